// Software tag matching over shm: the bounce pool, matching arrivals against posted receives
// and new receives against the unexpected list, large-message payload receives, probe, cancel
// and the peer-failure purge of unmatched receives. The wire format is in soft_match.h.
#include <rdma/fi_tagged.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sched.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "ofi_endpoint.h"

namespace ftmpi::transport {

namespace {

bool receive_matches(const OpRecord* op, PeerId source, std::uint64_t tag) {
  return (op->peer == kAnyPeer || op->peer == source) &&
         soft::tag_matches(tag, op->tag, op->ignore);
}

// Copies len bytes between our `local` and address `addr` of process pid, in the direction
// given (process_vm_readv or process_vm_writev); 0 or an errno.
enum class Cma { read, write };
int cma_copy(Cma how, std::uint64_t pid, void* local, std::uint64_t addr, std::size_t len) {
  std::size_t done = 0;
  while (done < len) {
    iovec mine{static_cast<char*>(local) + done, len - done};
    iovec theirs{reinterpret_cast<void*>(addr + done), len - done};
    const auto p = static_cast<pid_t>(pid);
    ssize_t n = how == Cma::read ? process_vm_readv(p, &mine, 1, &theirs, 1, 0)
                                 : process_vm_writev(p, &mine, 1, &theirs, 1, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EFAULT;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// Copies len bytes at remote address addr of process pid into dst; 0 or an errno.
int cma_read(std::uint64_t pid, void* dst, std::uint64_t addr, std::size_t len) {
  if (pid == static_cast<std::uint64_t>(getpid())) {
    if (len != 0) std::memcpy(dst, reinterpret_cast<const void*>(addr), len);
    return 0;
  }
  return cma_copy(Cma::read, pid, dst, addr, len);
}

}  // namespace

int OfiEndpoint::cma_read_shared(const Arrival& a, void* dst) {
  auto* out = static_cast<unsigned char*>(dst);
  const bool can_split = a.split_ok && a.len >= soft::kSplitMin && a.pid != my_pid_ &&
                         inbound_ != nullptr && a.source != kAnyPeer &&
                         ring_writer(a.source) != nullptr;
  if (!can_split) return cma_read(a.pid, dst, a.addr, a.len);
  // A sender that waits for us to read a large message of its own is reading ours meanwhile
  // (an exchange): it has no core to spare, so offering would only cost a message.
  for (const OpRecord* op = peers_[a.source].pending.head(); op != nullptr; op = op->next) {
    if (op->kind == OpKind::send && op->stage == 1) return cma_read(a.pid, dst, a.addr, a.len);
  }
  std::atomic<std::uint64_t>& word = inbound_->split();
  const std::uint64_t gen = ++split_generation_;
  const std::size_t from = (a.len / 2) & ~std::size_t{63};
  word.store(ring::split_word(gen, ring::kOffered), std::memory_order_release);
  const soft::Header h{0, soft::kSplitBit | a.seq};
  const soft::Split offer{gen, reinterpret_cast<std::uintptr_t>(dst), my_pid_, from, a.len};
  if (send_small(a.source, &h, sizeof h, &offer, sizeof offer) != 0) {
    word.store(ring::split_word(gen, ring::kTaken), std::memory_order_relaxed);
    return cma_read(a.pid, dst, a.addr, a.len);
  }
  const int err = cma_read(a.pid, out, a.addr, from);
  std::uint64_t expected = ring::split_word(gen, ring::kOffered);
  if (word.compare_exchange_strong(expected, ring::split_word(gen, ring::kTaken),
                                   std::memory_order_acq_rel)) {
    return err != 0 ? err : cma_read(a.pid, out + from, a.addr + from, a.len - from);
  }
  // The sender took it and is copying now, inside its own poll: wait for the end (it writes
  // into our buffer, so even after an error of our own). A sender that dies meanwhile is
  // noticed by its pid; one that stops forever, after the retry timeout.
  const auto start = std::chrono::steady_clock::now();
  for (unsigned spins = 1;; ++spins) {
    const ring::SplitState st = ring::split_state(word.load(std::memory_order_acquire));
    if (st == ring::kDone) return err;
    if (st == ring::kFailed) {  // its write was refused: read that part ourselves
      return err != 0 ? err : cma_read(a.pid, out + from, a.addr + from, a.len - from);
    }
    if (spins % 256 == 0) {
      sched_yield();
      if (kill(static_cast<pid_t>(a.pid), 0) != 0 && errno == ESRCH) return ESRCH;
      if (knobs_.retry_timeout_s > 0 &&
          std::chrono::steady_clock::now() - start >
              std::chrono::duration<double>(knobs_.retry_timeout_s)) {
        return ETIMEDOUT;
      }
    }
  }
}

bool OfiEndpoint::bulk_stage(OpRecord* op) {
  if (inbound_ == nullptr || op->len > inbound_->bulk_bytes()) return false;
  bulk_busy_.resize(inbound_->bulk_count());
  for (std::size_t i = 0; i < bulk_busy_.size(); ++i) {
    if (bulk_busy_[i]) continue;
    bulk_busy_[i] = true;
    op->bulk_slot = static_cast<std::int32_t>(i);
    std::memcpy(inbound_->bulk_data(i), op->buf, op->len);
    return true;
  }
  return false;
}

const unsigned char* OfiEndpoint::bulk_payload(const Arrival& a) {
  const ring::Region* r = nullptr;
  if (a.token == ring_token_ && a.pid == my_pid_) {
    r = inbound_.get();
  } else if (auto it = bulk_sources_.find(a.token); it != bulk_sources_.end()) {
    r = it->second.get();
  } else {
    auto region = std::make_unique<ring::Region>();
    if (!region->open(ring::region_name(a.pid, getuid(), a.token))) return nullptr;
    r = region.get();
    bulk_sources_.emplace(a.token, std::move(region));
  }
  if (r == nullptr || a.addr >= r->bulk_count() || a.len > r->bulk_bytes()) return nullptr;
  return r->bulk_data(static_cast<std::size_t>(a.addr));
}

void OfiEndpoint::help_copy(PeerId peer, std::uint32_t seq, const unsigned char* body) {
  if (peer == kAnyPeer) return;
  Peer& p = peers_[peer];
  if (p.failed || p.region == nullptr || p.ring_state != Peer::RingState::ring) return;
  soft::Split offer;
  std::memcpy(&offer, body, sizeof offer);
  OpRecord* op = p.pending.head();
  while (op != nullptr && !(op->kind == OpKind::send && op->stage == 1 && op->seq == seq)) {
    op = op->next;
  }
  // Only for the announced send it names, in the process that owns the region.
  if (op == nullptr || offer.len != op->len || offer.from > offer.len ||
      offer.pid != p.ring_pid) {
    return;
  }
  std::atomic<std::uint64_t>& word = p.region->split();
  std::uint64_t expected = ring::split_word(offer.generation, ring::kOffered);
  if (!word.compare_exchange_strong(expected, ring::split_word(offer.generation, ring::kClaimed),
                                    std::memory_order_acq_rel)) {
    return;  // taken back already (or an old offer)
  }
  // process_vm_writev only reads from our buffer, whatever its iovec's constness says.
  const int err = cma_copy(Cma::write, offer.pid,
                           const_cast<unsigned char*>(static_cast<const unsigned char*>(op->buf)) +
                               offer.from,
                           offer.addr + offer.from, offer.len - offer.from);
  word.store(ring::split_word(offer.generation, err == 0 ? ring::kDone : ring::kFailed),
             std::memory_order_release);
}

bool OfiEndpoint::soft_init(std::string* err) {
  soft_ = true;
  my_pid_ = static_cast<std::uint64_t>(getpid());
  bounce_size_ = inject_size_;
  if (bounce_size_ < soft::kRtsSize) {
    if (err != nullptr) *err = provider_ + ": inject size too small for software matching";
    return false;
  }
  inline_max_ = inject_size_ - soft::kHeaderSize;
  stage_.resize(inject_size_);
  if (knobs_.shm_ring && !ring_init(err)) return false;
  bounce_mem_.resize(soft::kBounceCount * bounce_size_);
  for (std::size_t i = 0; i < soft::kBounceCount; ++i) {
    OpRecord* b = pool_.get();
    b->user_context = nullptr;
    b->prev = b->next = nullptr;
    b->buf = bounce_mem_.data() + i * bounce_size_;
    b->len = bounce_size_;
    b->peer = kAnyPeer;
    b->kind = OpKind::bounce;
    b->orphaned = false;
    b->cancel_requested = false;
    b->scratch = nullptr;
    ssize_t rc = fi_trecv(ep_, const_cast<void*>(b->buf), bounce_size_, nullptr, FI_ADDR_UNSPEC,
                          soft::kMsgTag, 0, &b->fi_ctx);
    if (rc != 0) {
      if (err != nullptr) *err = provider_ + ": posting bounce receives failed: " +
                                 fi_strerror(static_cast<int>(-rc));
      return false;
    }
  }
  return true;
}

void OfiEndpoint::repost_bounce(OpRecord* bounce) {
  ssize_t rc = fi_trecv(ep_, const_cast<void*>(bounce->buf), bounce_size_, nullptr,
                        FI_ADDR_UNSPEC, soft::kMsgTag, 0, &bounce->fi_ctx);
  if (rc == 0) return;
  if (rc == -FI_EAGAIN) {
    bounce_retry_.push_back(bounce);
  } else {
    // Lost from the pool; the others carry on (and the unexpected queue of shm holds what
    // they cannot take yet).
    last_error_ = provider_ + ": reposting a bounce receive failed: " +
                  fi_strerror(static_cast<int>(-rc));
  }
}

bool OfiEndpoint::soft_arrival(OpRecord* bounce, std::size_t got, fi_addr_t src,
                               Completion* out) {
  const bool completed = soft_message(static_cast<const unsigned char*>(bounce->buf), got,
                                      peer_of_source(src), out);
  // After the message is out of the bounce: reposting may fill it again at once.
  repost_when_idle(bounce);
  return completed;
}

bool OfiEndpoint::soft_message(const unsigned char* p, std::size_t got, PeerId source,
                               Completion* out) {
  if (got < soft::kHeaderSize) {
    last_error_ = provider_ + ": dropped a malformed message of " + std::to_string(got) + " bytes";
    return false;
  }
  soft::Header h;
  std::memcpy(&h, p, sizeof h);
  Arrival a;
  a.source = source;
  a.tag = h.tag;
  if ((h.info & soft::kFinBit) != 0 && got >= soft::kFinSize) {
    std::uint64_t status = 0;
    std::memcpy(&status, p + sizeof h, sizeof status);
    return handle_fin(a.source, static_cast<std::uint32_t>(h.info), status, out);
  }
  if ((h.info & soft::kSplitBit) != 0 && got >= soft::kSplitSize) {
    help_copy(a.source, static_cast<std::uint32_t>(h.info), p + sizeof h);
    return false;
  }
  if ((h.info & soft::kRtsBit) != 0 && got >= soft::kRtsSize) {
    soft::Announce ann;
    std::memcpy(&ann, p + sizeof h, sizeof ann);
    a.announced = true;
    a.cma = (h.info & soft::kCmaBit) != 0;
    a.split_ok = (h.info & soft::kSplitOkBit) != 0;
    a.bulk = (h.info & soft::kBulkBit) != 0;
    a.token = ann.token;
    a.seq = static_cast<std::uint32_t>(h.info);
    a.len = static_cast<std::size_t>(ann.len);
    a.addr = ann.addr;
    a.pid = ann.pid;
  } else {
    a.len = got - soft::kHeaderSize;
    a.data = p + soft::kHeaderSize;
  }
  OpRecord* op = posted_.head();
  while (op != nullptr && !receive_matches(op, a.source, a.tag)) op = op->next;
  if (op != nullptr) {
    posted_.remove(op);
    return soft_deliver(op, a, out);
  }
  if (discard_) {
    if (a.announced && a.source != kAnyPeer && !peers_[a.source].failed) {
      send_fin(a.source, a.seq, soft::kFinOk);
    }
    return false;
  }
  if (spare_unexpected_.empty()) spare_unexpected_.emplace_back();
  unexpected_.splice(unexpected_.end(), spare_unexpected_, spare_unexpected_.begin());
  soft::Unexpected& u = unexpected_.back();
  u.source = a.source;
  u.tag = a.tag;
  u.announced = a.announced;
  u.cma = a.cma;
  u.bulk = a.bulk;
  u.token = a.token;
  u.seq = a.seq;
  u.len = a.len;
  u.addr = a.addr;
  u.pid = a.pid;
  if (a.announced) {
    u.data.clear();
  } else {
    u.data.assign(a.data, a.data + a.len);
  }
  return false;
}

void OfiEndpoint::flush_idle_bounces() {
  for (OpRecord* b : bounce_idle_) repost_bounce(b);
  bounce_idle_.clear();
}

void OfiEndpoint::discard_unexpected() {
  discard_ = true;
  for (const soft::Unexpected& u : unexpected_) {
    if (u.announced && u.source != kAnyPeer && !peers_[u.source].failed) {
      send_fin(u.source, u.seq, soft::kFinOk);
    }
  }
  spare_unexpected_.splice(spare_unexpected_.end(), unexpected_);
}

bool OfiEndpoint::soft_deliver(OpRecord* op, const Arrival& a, Completion* c) {
  *c = Completion{};
  c->context = op->user_context;
  c->tag = a.tag;
  c->source = a.source;
  c->message_len = a.len;
  if (a.announced) {
    if (a.source == kAnyPeer || peers_[a.source].failed) {
      // Its payload will not come from a failed peer (and an unknown sender cannot be asked).
      c->status = Status::peer_failed;
      last_error_ = provider_ + ": the sender of a large message has failed";
      free_op(op);
      return true;
    }
    op->peer = a.source;
    op->tag = a.tag;
    op->seq = a.seq;
    op->msg_len = a.len;
    if (a.cma || a.bulk) {
      if (a.len > op->len) {  // truncated: nothing to read, but the sender may finish
        c->status = Status::truncated;
        send_fin(a.source, a.seq, soft::kFinOk);
        free_op(op);
        return true;
      }
      int err = EPERM;  // a bulk slot we cannot reach: the payload comes through shm instead
      if (a.bulk) {
        if (const unsigned char* src = bulk_payload(a); src != nullptr) {
          if (a.len != 0) std::memcpy(const_cast<void*>(op->buf), src, a.len);
          err = 0;
        }
      } else if (knobs_.shm_cma) {
        err = cma_read_shared(a, const_cast<void*>(op->buf));
      }
      if (err == 0) {
        c->len = a.len;
        send_fin(a.source, a.seq, soft::kFinOk);
        free_op(op);
        return true;
      }
      if (err == ESRCH) {  // the sender is gone
        c->status = Status::peer_failed;
        last_error_ = provider_ + ": the sender of a large message has exited";
        free_op(op);
        return true;
      }
      if (err != EPERM && err != ENOSYS) {
        c->status = Status::error;
        last_error_ = provider_ + ": reading a large message (process_vm_readv) failed: " +
                      std::strerror(err);
        send_fin(a.source, a.seq, soft::kFinError);
        free_op(op);
        return true;
      }
      // No CMA between these processes: ask for the payload through shm instead.
      send_fin(a.source, a.seq, soft::kFinNak);
    } else if (a.len > op->len) {
      op->scratch = new unsigned char[a.len];
    }
    peers_[a.source].pending.push_back(op);
    return post_bulk_recv(op, c);
  }
  if (a.len > op->len) {
    c->status = Status::truncated;
  } else {
    if (a.len != 0) std::memcpy(const_cast<void*>(op->buf), a.data, a.len);
    c->len = a.len;
  }
  free_op(op);
  return true;
}

bool OfiEndpoint::post_bulk_recv(OpRecord* op, Completion* c) {
  void* dst = op->scratch != nullptr ? op->scratch : const_cast<void*>(op->buf);
  const fi_addr_t from = peers_[op->peer].addr;
  ssize_t rc = from == FI_ADDR_NOTAVAIL  // gone (insert_peers): its payload cannot come
                   ? -FI_EHOSTUNREACH
                   : fi_trecv(ep_, dst, op->msg_len, nullptr, from, soft::kBulkTag | op->seq, 0,
                              &op->fi_ctx);
  if (counted(rc) == 0) return false;
  if (rc == -FI_EAGAIN) {
    bulk_retry_.push_back(op);
    return false;
  }
  c->status = post_failed(rc, "fi_trecv (large message)");
  c->len = 0;
  release_op(op);
  return true;
}

void OfiEndpoint::send_fin(PeerId peer, std::uint32_t seq, std::uint64_t status) {
  if (peers_[peer].failed) return;
  const soft::Header h{0, soft::kFinBit | seq};
  unsigned char msg[soft::kFinSize];
  std::memcpy(msg, &h, sizeof h);
  std::memcpy(msg + sizeof h, &status, sizeof status);
  ssize_t rc = send_small(peer, msg, sizeof msg, nullptr, 0);
  if (rc == -FI_EAGAIN) {
    fin_retry_.push_back({peer, seq, status});
  } else if (rc != 0) {
    last_error_ = provider_ + ": sending a FIN failed: " + fi_strerror(static_cast<int>(-rc));
  }
}

bool OfiEndpoint::handle_fin(PeerId peer, std::uint32_t seq, std::uint64_t status,
                             Completion* c) {
  if (peer == kAnyPeer) return false;
  Peer& p = peers_[peer];
  OpRecord* op = p.pending.head();
  while (op != nullptr && !(op->kind == OpKind::send && op->stage == 1 && op->seq == seq)) {
    op = op->next;
  }
  if (op == nullptr) return false;  // purged meanwhile (peer_failed was reported)
  if (status == soft::kFinNak) {
    op->stage = 2;
    bool finished = false;
    ssize_t rc = post_send(op, &finished);
    if (rc == 0) return false;  // its CQ entry completes it
    if (rc == -FI_EAGAIN) {
      defer_send(p, op);
      return false;
    }
    *c = Completion{};
    c->context = op->user_context;
    c->source = peer;
    c->status = post_failed(rc, "fi_tsend (large message)");
    release_op(op);
    return true;
  }
  *c = Completion{};
  c->context = op->user_context;
  c->source = peer;
  if (status != soft::kFinOk) {
    c->status = Status::error;
    last_error_ = provider_ + ": the receiver could not read a large message";
  }
  release_op(op);
  return true;
}

void OfiEndpoint::flush_soft_retries() {
  std::vector<soft::PendingFin> fins;
  fins.swap(fin_retry_);
  for (const soft::PendingFin& f : fins) send_fin(f.peer, f.seq, f.status);
  std::vector<OpRecord*> bounces;
  bounces.swap(bounce_retry_);
  for (OpRecord* b : bounces) repost_bounce(b);
  std::vector<OpRecord*> bulks;
  bulks.swap(bulk_retry_);
  for (OpRecord* op : bulks) {
    if (op->orphaned) {  // its peer failed meanwhile and it was reported; never posted
      free_op(op);
      continue;
    }
    Completion c;
    c.context = op->user_context;
    c.tag = op->tag;
    c.source = op->peer;
    c.message_len = op->msg_len;
    if (post_bulk_recv(op, &c)) backlog_.push(c);
  }
}

Status OfiEndpoint::soft_recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                              std::uint64_t ignore, void* context) {
  OpRecord* op = pool_.get();
  op->user_context = context;
  op->buf = buf;
  op->len = len;
  op->tag = tag;
  op->ignore = ignore;
  op->peer = src;
  op->kind = OpKind::recv;
  op->orphaned = false;
  op->cancel_requested = false;
  op->stage = 0;
  op->seq = 0;
  op->msg_len = 0;
  op->scratch = nullptr;
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (!receive_matches(op, it->source, it->tag)) continue;
    Arrival a;
    a.source = it->source;
    a.tag = it->tag;
    a.announced = it->announced;
    a.cma = it->cma;
    a.bulk = it->bulk;
    a.token = it->token;
    a.seq = it->seq;
    a.len = it->len;
    a.addr = it->addr;
    a.pid = it->pid;
    a.data = it->data.data();
    Completion c;
    if (soft_deliver(op, a, &c)) backlog_.push(c);
    spare_unexpected_.splice(spare_unexpected_.end(), unexpected_, it);
    return Status::ok;
  }
  posted_.push_back(op);
  return Status::ok;
}

Status OfiEndpoint::soft_probe(PeerId src, std::uint64_t tag, std::uint64_t ignore,
                               void* context) {
  Completion c;
  c.context = context;
  c.status = Status::no_message;
  c.source = src;
  for (const soft::Unexpected& u : unexpected_) {
    if ((src == kAnyPeer || src == u.source) && soft::tag_matches(u.tag, tag, ignore)) {
      c.status = Status::ok;
      c.tag = u.tag;
      c.len = c.message_len = u.len;
      c.source = u.source;
      break;
    }
  }
  backlog_.push(c);
  return Status::ok;
}

Status OfiEndpoint::soft_cancel(void* context) {
  for (OpRecord* op = posted_.head(); op != nullptr; op = op->next) {
    if (op->user_context != context) continue;
    posted_.remove(op);
    Completion c;
    c.context = context;
    c.status = Status::canceled;
    c.tag = op->tag;
    c.source = op->peer;
    backlog_.push(c);
    free_op(op);
    return Status::ok;
  }
  // Matched already (its completion says so) or not a receive of ours.
  return Status::ok;
}

void OfiEndpoint::soft_fail_peer(PeerId peer) {
  for (OpRecord* op = posted_.head(); op != nullptr;) {
    OpRecord* next = op->next;
    if (op->peer == peer) {
      posted_.remove(op);
      Completion c;
      c.context = op->user_context;
      c.status = Status::peer_failed;
      c.source = peer;
      backlog_.push(c);
      free_op(op);
    }
    op = next;
  }
}

void OfiEndpoint::soft_cleanup() {
  // After the endpoint is closed: free the landing buffers of receives still in flight.
  for (Peer& p : peers_) {
    for (OpRecord* op = p.pending.head(); op != nullptr; op = op->next) {
      delete[] op->scratch;
      op->scratch = nullptr;
    }
  }
  for (OpRecord* op : bulk_retry_) {
    delete[] op->scratch;
    op->scratch = nullptr;
  }
}

}  // namespace ftmpi::transport
