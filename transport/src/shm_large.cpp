// The shm endpoint's large messages (wire.h): bulk slots, CMA reads with the sender's help
// (the shared copy of shm_ring.h), the FINs that complete them, and the stream through the
// ring when neither copy can be used.
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "shm_endpoint.h"

namespace ftmpi::transport {

namespace {

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

// Copies len bytes at remote address addr of process pid into dst; 0 or an errno. self: our
// own pid (cached: getpid() is a system call, one per message here).
int cma_read(std::uint64_t self, std::uint64_t pid, void* dst, std::uint64_t addr, std::size_t len) {
  if (pid == self) {
    if (len != 0) std::memcpy(dst, reinterpret_cast<const void*>(addr), len);
    return 0;
  }
  return cma_copy(Cma::read, pid, dst, addr, len);
}

// Whether process_vm_readv here costs under 3 memcpys of the same 128 KiB (the best of 2 after
// a warm-up each, reading our own memory; once per process, ~0.1 ms). Where it does (a KVM
// guest: ~2x), a receiver's one CMA read beats the sender's and the receiver's two copies of
// a staged message when both ranks are busy copying anyway; where system calls and page
// pinning cost more (the other VM this was measured on: a 512 KiB CMA read 48-53 µs against
// 26-33 µs for a staged transfer's two copies), staging stays. It runs inside the first large
// exchange, so it must be cheap: its buffers are mapped populated (a page fault one at a time
// cost ~1.7 µs each here, and the first version's 512 KiB of fresh heap and 7 rounds took
// ~0.5 ms: MPICH's perf/sendrecvl saw its 32 KiB step three times slower than its 16 KiB one).
bool cma_cheap_here() {
  static const bool cheap = [] {
    constexpr std::size_t kBytes = std::size_t{128} << 10;
    void* map = mmap(nullptr, 2 * kBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (map == MAP_FAILED) return false;
    auto* from = static_cast<unsigned char*>(map);
    unsigned char* to = from + kBytes;
    std::memset(from, 1, kBytes);
    const auto self = static_cast<std::uint64_t>(getpid());
    using Clock = std::chrono::steady_clock;
    Clock::duration copy = Clock::duration::max(), cma = Clock::duration::max();
    bool ok = true;
    for (int i = 0; i < 3 && ok; ++i) {
      auto t0 = Clock::now();
      std::memcpy(to, from, kBytes);
      asm volatile("" : : "r"(to) : "memory");  // the copy is not optimised away
      auto t1 = Clock::now();
      ok = cma_copy(Cma::read, self, to, reinterpret_cast<std::uintptr_t>(from), kBytes) == 0;
      auto t2 = Clock::now();
      if (i >= 1) {
        copy = std::min(copy, t1 - t0);
        cma = std::min(cma, t2 - t1);
      }
    }
    munmap(map, 2 * kBytes);
    return ok && cma < 3 * copy;
  }();
  return cheap;
}

}  // namespace

// A staged send completes at once but costs two copies (ours into the bulk pages, the
// receiver's out of them); a CMA one costs the receiver's read alone but completes only when
// the receiver has read it. When this process also waits for a large message (a large
// receive is posted: alltoall, sendrecv, a halo exchange, a ring), it will not leave before
// its peers have run anyway, and every side is copying at once, so the cheaper copy wins:
// 2-rank 64 KiB alltoall 12.6 -> 8.6 µs, 256 KiB 46 -> 26 µs on a KVM guest (Open MPI, which
// reads with CMA: 8.3-9.3, 27-28). From FTMPI_SHM_DIRECT_MIN (16 KiB) one-way sends go by
// CMA as well, as Open MPI's do above 4 KiB. OSU's osu_latency (unchanged buffers, whose
// clean lines stay in the reader's cache), half a round trip: 16 KiB 4.0 -> 1.6 µs, 32 KiB
// 2.8, 64 KiB 4.7 (MPICH 2.4, 3.4, 5.0; Open MPI 2.3-2.7, 3.3-3.7, 4.8-5.1; staged, 32 and 64
// KiB took 6.9 and 12.5 in the same pattern). With the data rewritten each time
// (pingpong.c's pattern) 128 KiB 16.5 -> 9.7, 512 KiB 59 -> 32, but 16 KiB 4.0 -> 4.35
// (Open MPI 4.85), and below 16 KiB two copies win by more (8 KiB, half a round trip: 2.4
// staged, 3.0 by CMA), so there only exchanges use CMA (FTMPI_SHM_DIRECT_MIN=8K favours
// osu_latency's 8 KiB).
// When ranks share cores, only an alltoall's sends (see the end).
bool ShmEndpoint::send_by_cma(const OpRecord& op) {
  constexpr std::size_t kExchangeMin = std::size_t{32} << 10;
  const Knobs& k = core_.knobs;
  if (!k.shm_cma || cma_refused_ || k.shm_single_copy == Knobs::SingleCopy::never) return false;
  // To ourselves there is nobody else to read it: staged, a blocking send to self completes
  // (up to a bulk slot) instead of waiting for a receive of its own.
  if (peers_[op.peer].pid == pid_) return false;
  const bool direct = k.shm_direct_min != 0 && op.len >= k.shm_direct_min;
  if (!direct && (op.len < kExchangeMin || !core_.matcher.expects_large(kExchangeMin))) {
    return false;
  }
  if (k.shm_single_copy == Knobs::SingleCopy::always) return true;
  // Ranks sharing cores stage (a staged send completes without its receiver running: that
  // spares a hand-over of the core per message), but not an alltoall's sends, where every
  // member sends and receives at once and one copy beats two (64 KiB blocks, 4 ranks on 2
  // cores: 52 -> 34 us, 8 ranks 374 -> 272; Open MPI 35, 271). Collectives that pass data on
  // (bcast, allreduce's steps) stay staged: single copy for every send took a 64 KiB
  // allreduce at 4 ranks from 39 to 55 us, a bcast at 8 from 22 to 40.
  return (!k.oversubscribed || core_.all_to_all) && cma_cheap_here();
}

int ShmEndpoint::cma_read_shared(const Arrival& a, void* dst) {
  auto* out = static_cast<unsigned char*>(dst);
  const std::uint64_t pid = a.rndv.pid, addr = a.rndv.addr;
  const auto seq = static_cast<std::uint32_t>(a.rndv.info & wire::kSeqMask);
  const bool can_split = (a.rndv.info & wire::kSplitOkBit) != 0 && a.len >= wire::kSplitMin &&
                         pid != pid_ && a.source != kAnyPeer &&
                         connect(a.source) == Status::ok &&
                         peers_[a.source].path == Peer::Path::ring;
  if (!can_split) return cma_read(pid_, pid, dst, addr, a.len);
  // A sender that waits for us to read a large message of its own is reading ours meanwhile
  // (an exchange): it has no core to spare, so offering would only cost a message.
  for (const OpRecord* op = peers_[a.source].pending.head(); op != nullptr; op = op->next) {
    if (op->kind == OpKind::send && op->stage == 1) return cma_read(pid_, pid, dst, addr, a.len);
  }
  std::atomic<std::uint64_t>& word = inbound_->split();
  const std::uint64_t gen = ++split_generation_;
  const std::size_t from = (a.len / 2) & ~std::size_t{63};
  word.store(ring::split_word(gen, ring::kOffered), std::memory_order_release);
  const wire::Header h{0, wire::kSplitBit | seq};
  const wire::Split offer{gen, reinterpret_cast<std::uintptr_t>(dst), pid_, from, a.len};
  if (!push(peers_[a.source], &h, sizeof h, &offer, sizeof offer)) {
    word.store(ring::split_word(gen, ring::kTaken), std::memory_order_relaxed);
    return cma_read(pid_, pid, dst, addr, a.len);
  }
  const int err = cma_read(pid_, pid, out, addr, from);
  std::uint64_t expected = ring::split_word(gen, ring::kOffered);
  if (word.compare_exchange_strong(expected, ring::split_word(gen, ring::kTaken),
                                   std::memory_order_acq_rel)) {
    return err != 0 ? err : cma_read(pid_, pid, out + from, addr + from, a.len - from);
  }
  // The sender took it and is copying now, inside its own poll: wait for the end (it writes
  // into our buffer, so even after an error of our own). A sender that dies meanwhile is
  // noticed by its pid; one that stops forever, after the retry timeout.
  const auto start = std::chrono::steady_clock::now();
  for (unsigned spins = 1;; ++spins) {
    const ring::SplitState st = ring::split_state(word.load(std::memory_order_acquire));
    if (st == ring::kDone) return err;
    if (st == ring::kFailed) {  // its write was refused: read that part ourselves
      return err != 0 ? err : cma_read(pid_, pid, out + from, addr + from, a.len - from);
    }
    if (spins % 256 == 0) {
      sched_yield();
      if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return ESRCH;
      if (core_.knobs.retry_timeout_s > 0 &&
          std::chrono::steady_clock::now() - start >
              std::chrono::duration<double>(core_.knobs.retry_timeout_s)) {
        return ETIMEDOUT;
      }
    }
  }
}

std::size_t ShmEndpoint::bulk_pages_of(std::size_t len) {
  return len == 0 ? 1 : (len + ring::kBulkPage - 1) / ring::kBulkPage;
}

bool ShmEndpoint::bulk_stage(OpRecord* op) {
  const std::size_t total = inbound_->bulk_pages();
  const std::size_t need = bulk_pages_of(op->len);
  if (op->len > inbound_->bulk_bytes() || bulk_used_ + need > total) return false;
  bulk_busy_.resize(total);
  // First fit: the lowest free pages, so that the pages in use stay few and the same. Each
  // page a process touches the first time costs a fault (on this VM a costly one) and comes
  // cold from memory; next fit cycled every sender through its whole area, and every
  // receiver through every sender's, so a job's first ~32 large collectives at 8 ranks on 2
  // cores ran 5-15 times slower than the later ones (64 KiB allreduce 11.8 -> 2.6 ms per
  // operation with first fit, allgather all at once 15.8 -> 0.6 ms of CPU).
  std::size_t run = 0;
  for (std::size_t i = 0; i < total; ++i) {
    run = bulk_busy_[i] ? 0 : run + 1;
    if (run < need) continue;
    const std::size_t first = i + 1 - need;
    for (std::size_t j = first; j <= i; ++j) bulk_busy_[j] = true;
    bulk_used_ += need;
    op->bulk_slot = static_cast<std::int32_t>(first);
    if (op->len != 0) std::memcpy(inbound_->bulk_page(first), op->buf, op->len);
    return true;
  }
  return false;
}

void ShmEndpoint::bulk_release(OpRecord* op) {
  const auto first = static_cast<std::size_t>(op->bulk_slot);
  const std::size_t need = bulk_pages_of(op->len);
  for (std::size_t j = first; j < first + need && j < bulk_busy_.size(); ++j) bulk_busy_[j] = false;
  bulk_used_ -= need;
  op->bulk_slot = -1;
}

const unsigned char* ShmEndpoint::bulk_payload(const Arrival& a) {
  const std::uint64_t pid = a.rndv.pid, addr = a.rndv.addr;
  const ring::Region* r = nullptr;
  if (a.rndv.token == token_ && pid == pid_) {
    r = inbound_.get();
  } else if (auto it = bulk_sources_.find(a.rndv.token); it != bulk_sources_.end()) {
    r = it->second.get();
  } else {
    auto region = std::make_unique<ring::Region>();
    if (!region->open(ring::region_name(pid, getuid(), a.rndv.token))) return nullptr;
    r = region.get();
    bulk_sources_.emplace(a.rndv.token, std::move(region));
  }
  // addr is the first page; the message must lie inside the area.
  const std::size_t pages = r == nullptr ? 0 : r->bulk_pages();
  if (r == nullptr || addr >= pages || a.len > r->bulk_bytes() ||
      a.len > (pages - addr) * ring::kBulkPage) {
    return nullptr;
  }
  return r->bulk_page(static_cast<std::size_t>(addr));
}

void ShmEndpoint::help_copy(PeerId peer, std::uint32_t seq, const unsigned char* body) {
  if (peer == kAnyPeer) return;
  Peer& p = peers_[peer];
  if (p.failed || p.path != Peer::Path::ring) return;
  wire::Split offer;
  std::memcpy(&offer, body, sizeof offer);
  OpRecord* op = find_pending(peer, OpKind::send, seq, 1);
  // Only for the announced send it names, in the process that owns the region.
  if (op == nullptr || offer.len != op->len || offer.from > offer.len ||
      offer.pid != p.pid) {
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

OpRecord* ShmEndpoint::find_pending(PeerId peer, OpKind kind, std::uint32_t seq,
                                    std::uint8_t stage) {
  OpRecord* op = peers_[peer].pending.head();
  while (op != nullptr && !(op->kind == kind && op->stage == stage && op->seq == seq)) {
    op = op->next;
  }
  return op;
}

void ShmEndpoint::send_fin(PeerId peer, std::uint32_t seq, std::uint64_t status) {
  if (peer == kAnyPeer || peers_[peer].failed || connect(peer) != Status::ok) return;
  const wire::Header h{0, wire::kFinBit | seq};
  if (!push(peers_[peer], &h, sizeof h, &status, sizeof status)) {
    fin_retry_.push_back({peer, seq, status});
  }
}

bool ShmEndpoint::on_fin(PeerId peer, std::uint32_t seq, std::uint64_t status, Completion* c) {
  if (peer == kAnyPeer) return false;
  if (status == wire::kFinWithdrawn || status == wire::kFinKept) {
    return on_withdraw_answer(peer, seq, status == wire::kFinWithdrawn, c);
  }
  OpRecord* op = find_pending(peer, OpKind::send, seq, 1);
  if (op == nullptr) return false;  // purged meanwhile (peer_failed was reported)
  if (status == wire::kFinNak) {  // the receiver cannot copy it: stream it through the ring
    if (op->bulk_slot < 0) cma_refused_ = true;  // and stage exchanges from now on
    // A small message staged when the ring was full completed already: the user may have
    // reused its buffer, so it is streamed from the pages.
    if (op->orphaned) op->buf = inbound_->bulk_page(static_cast<std::size_t>(op->bulk_slot));
    op->stage = 2;
    op->done_bytes = 0;
    if (!stream_send(op)) {
      ++streaming_count_;  // poll() pushes the rest
      return false;
    }
  }
  peers_[peer].pending.remove(op);
  if (op->orphaned) {  // completed already: only its pages come back
    free_op(op);
    return false;
  }
  *c = Completion{};
  c->context = op->user_context;
  c->source = peer;
  if (status == wire::kFinError) {
    c->status = Status::error;
    core_.last_error = "shm: the receiver could not read a large message";
  }
  free_op(op);
  return true;
}

bool ShmEndpoint::deliver_large(OpRecord* op, const Arrival& a, Completion* c) {
  *c = Completion{};
  c->context = op->user_context;
  c->tag = a.tag;
  c->source = a.source;
  c->message_len = a.len;
  const auto seq = static_cast<std::uint32_t>(a.rndv.info & wire::kSeqMask);
  if (a.source == kAnyPeer || peers_[a.source].failed) {
    // Its payload will not come from a failed peer (and an unknown sender cannot be asked).
    c->status = Status::peer_failed;
    core_.last_error = "shm: the sender of a large message has failed";
    free_op(op);
    return true;
  }
  if (a.len > op->len) {  // truncated: nothing to read, but the sender may finish
    c->status = Status::truncated;
    send_fin(a.source, seq, wire::kFinOk);
    free_op(op);
    return true;
  }
  int err = EPERM;  // a bulk slot we cannot reach: the payload is streamed instead
  if ((a.rndv.info & wire::kBulkBit) != 0) {
    if (const unsigned char* src = bulk_payload(a); src != nullptr) {
      if (a.len != 0) std::memcpy(const_cast<void*>(op->buf), src, a.len);
      err = 0;
    }
  } else if (core_.knobs.shm_cma) {
    err = cma_read_shared(a, const_cast<void*>(op->buf));
  }
  if (err == 0) {
    c->len = a.len;
    send_fin(a.source, seq, wire::kFinOk);
    free_op(op);
    return true;
  }
  if (err == ESRCH) {  // the sender is gone
    c->status = Status::peer_failed;
    core_.last_error = "shm: the sender of a large message has exited";
    free_op(op);
    return true;
  }
  if (err != EPERM && err != ENOSYS) {
    c->status = Status::error;
    core_.last_error =
        std::string("shm: reading a large message (process_vm_readv) failed: ") +
        std::strerror(err);
    send_fin(a.source, seq, wire::kFinError);
    free_op(op);
    return true;
  }
  // No CMA between these processes (EPERM: ptrace rules; or FTMPI_SHM_CMA=0): the sender
  // streams the payload through its ring, and on_chunk() places it.
  op->peer = a.source;
  op->tag = a.tag;
  op->seq = seq;
  op->msg_len = a.len;
  op->stage = 2;
  op->done_bytes = 0;
  peers_[a.source].pending.push_back(op);
  send_fin(a.source, seq, wire::kFinNak);
  return false;
}

bool ShmEndpoint::accept_large(OpRecord* op, const Arrival& a, Completion* /*c*/) {
  matched_.push_back({op, a});
  return false;
}

void ShmEndpoint::detach_send(PeerId dst, void* context) {
  // Deferred sends are pushed later from op->buf; an announced one is streamed from it if its
  // receiver cannot read our memory (kFinNak). Staged in our bulk pages, the payload is there.
  if (dst >= peers_.size()) return;
  Peer& p = peers_[dst];
  OpRecord* op = p.deferred.find(OpKind::send, context);
  if (op == nullptr) op = p.pending.find(OpKind::send, context);
  if (op == nullptr || op->orphaned) return;
  if (op->bulk_slot >= 0) {
    op->buf = inbound_->bulk_page(static_cast<std::size_t>(op->bulk_slot));
  } else {
    own_send_payload(op);
  }
}

void ShmEndpoint::abandon_matched_recv(void* context) {
  for (auto it = matched_.begin(); it != matched_.end(); ++it) {
    if (it->op->user_context != context) continue;
    drop_large(it->arrival);  // never read: its sender may finish
    complete_ended(it->op, it->arrival.source, Status::canceled);
    matched_.erase(it);
    return;
  }
  for (Peer& p : peers_) {
    OpRecord* op = p.pending.find(OpKind::recv, context);
    if (op == nullptr || op->stage != 2) continue;
    p.pending.remove(op);
    complete_ended(op, op->peer, Status::canceled);
    return;
  }
}

void ShmEndpoint::complete_ended(OpRecord* op, PeerId source, Status status) {
  Completion c;
  c.context = op->user_context;
  c.status = status;
  c.source = source;
  core_.backlog.push(c);
  free_op(op);
}

void ShmEndpoint::drop_large(const Arrival& a) {
  send_fin(a.source, static_cast<std::uint32_t>(a.rndv.info & wire::kSeqMask), wire::kFinOk);
}

bool ShmEndpoint::stream_send(OpRecord* op) {
  Peer& p = peers_[op->peer];
  // The largest record a ring takes, less the shared ring's token and the chunk's header.
  const std::size_t room = p.path == Peer::Path::ring ? p.writer.max_record()
                                                      : p.shared.max_record();
  const std::size_t chunk_max = room - 8 - wire::kChunkHeaderSize - 8;
  const auto* buf = static_cast<const unsigned char*>(op->buf);
  while (op->done_bytes < op->len) {
    const std::size_t n = std::min(chunk_max, op->len - op->done_bytes);
    unsigned char head[wire::kChunkHeaderSize];
    const wire::Header h{0, wire::kChunkBit | op->seq};
    const wire::Chunk ch{op->done_bytes};
    std::memcpy(head, &h, sizeof h);
    std::memcpy(head + sizeof h, &ch, sizeof ch);
    if (!push(p, head, sizeof head, buf + op->done_bytes, n)) return false;
    op->done_bytes += n;
  }
  return true;
}

bool ShmEndpoint::on_chunk(PeerId peer, std::uint32_t seq, const unsigned char* body,
                           std::size_t len, Completion* c) {
  if (peer == kAnyPeer) return false;
  OpRecord* op = find_pending(peer, OpKind::recv, seq, 2);
  wire::Chunk ch;
  std::memcpy(&ch, body, sizeof ch);
  const std::size_t n = len - sizeof ch;
  if (op == nullptr || ch.offset > op->msg_len || n > op->msg_len - ch.offset) return false;
  std::memcpy(static_cast<unsigned char*>(const_cast<void*>(op->buf)) + ch.offset,
              body + sizeof ch, n);
  op->done_bytes += n;
  if (op->done_bytes < op->msg_len) return false;
  peers_[peer].pending.remove(op);
  *c = Completion{};
  c->context = op->user_context;
  c->tag = op->tag;
  c->source = peer;
  c->len = c->message_len = op->msg_len;
  free_op(op);
  return true;
}

}  // namespace ftmpi::transport
