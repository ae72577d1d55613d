// The shm endpoint's region, addresses, send path, ring polling and peer failure
// (shm_endpoint.h). Large payloads are in shm_large.cpp.
#include "shm_endpoint.h"

#include <ftmpi/shm_segments.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ftmpi::transport {

namespace {

// [token][pid][uid][kAddressMagic], 8 bytes each.
constexpr std::uint64_t kAddressMagic = 0x524c52544d544646ull;  // "FFTMTRLR"
constexpr std::size_t kAddressSize = 4 * sizeof(std::uint64_t);
// How long a failed peer's regions stay mapped after its failure (fail_peer): repairs end within
// a few ms (20 ms across 3 hosts). At most kRetiredMax wait (a peer has its ring region and maybe
// a bulk source, ~10 MB together), so failures in quick succession (ft.rebuild.unmap: 50 in
// 0.6 s) keep the mapped memory bounded; the older ones then go at the next poll.
constexpr std::chrono::milliseconds kRetiredUnmapDelay{50};
constexpr std::size_t kRetiredMax = 2;

std::uint64_t random_token() {
  std::uint64_t t = 0;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &t, sizeof t) != static_cast<ssize_t>(sizeof t)) t = 0;
    close(fd);
  }
  if (t == 0) {  // no urandom: time and pid are unique enough on one host
    t = static_cast<std::uint64_t>(
            std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (static_cast<std::uint64_t>(getpid()) << 40);
  }
  return t == 0 ? 1 : t;  // 0 means "free" in a ring's owner word
}

}  // namespace

ShmEndpoint::~ShmEndpoint() {
  // Peers finalizing after us stop waiting for us to take what they staged (a program's
  // unmatched sends) rather than until this process exits.
  if (inbound_ != nullptr) inbound_->mark_closed();
  for (MatchedLarge& m : matched_) free_op(m.op);
  for (Peer& p : peers_) {
    while (OpRecord* op = p.pending.pop_front()) free_op(op);
    while (OpRecord* op = p.deferred.pop_front()) free_op(op);
  }
}

bool ShmEndpoint::init(std::string* err) {
  pid_ = static_cast<std::uint64_t>(getpid());
  // What killed processes of this user left in /dev/shm: the one sweeper (shm_segments.h).
  (void)shm_segments::remove_stale(getuid());
  token_ = random_token();
  const Knobs& k = core_.knobs;
  auto region = std::make_unique<ring::Region>();
  if (!region->create(token_, k.shm_rings, k.shm_ring_kb * 1024, err, k.shm_bulk_slots,
                      k.shm_bulk_kb * 1024)) {
    if (err != nullptr) *err = "shm: " + *err;
    return false;
  }
  inbound_ = std::move(region);
  const std::size_t s = inbound_->shared_index();
  shared_in_.reader.attach(&inbound_->control(s), inbound_->data(s), inbound_->ring_bytes());
  shared_in_.attached = true;
  return true;
}

std::vector<std::uint8_t> ShmEndpoint::address() const {
  const std::uint64_t words[4] = {token_, pid_, static_cast<std::uint64_t>(getuid()),
                                  kAddressMagic};
  const auto* b = reinterpret_cast<const std::uint8_t*>(words);
  return std::vector<std::uint8_t>(b, b + kAddressSize);
}

bool ShmEndpoint::is_address(const std::uint8_t* addr, std::size_t len) {
  std::uint64_t magic = 0;
  if (len != kAddressSize) return false;
  std::memcpy(&magic, addr + 3 * sizeof magic, sizeof magic);
  return magic == kAddressMagic;
}

void ShmEndpoint::add_peer(PeerId id, const std::uint8_t* addr) {
  if (peers_.size() <= id) peers_.resize(id + std::size_t{1});
  Peer& p = peers_[id];
  std::memcpy(&p.token, addr, 8);
  std::memcpy(&p.pid, addr + 8, 8);
  std::memcpy(&p.uid, addr + 16, 8);
  peers_of_token_[p.token].push_back(id);
}

PeerId ShmEndpoint::peer_of_token(std::uint64_t token) const {
  auto it = peers_of_token_.find(token);
  if (it == peers_of_token_.end()) return kAnyPeer;
  // One address may stand for several slots (a process inserted twice, some marked failed):
  // prefer a live one.
  for (PeerId id : it->second) {
    if (!peers_[id].failed) return id;
  }
  return it->second.back();
}

Status ShmEndpoint::connect(PeerId dst) {
  Peer& p = peers_[dst];
  if (p.path == Peer::Path::ring || p.path == Peer::Path::shared) return Status::ok;
  if (p.path == Peer::Path::unconnected) {
    auto region = std::make_unique<ring::Region>();
    if (region->open(ring::region_name(p.pid, p.uid, p.token))) {
      const std::size_t i =
          core_.knobs.shm_ring ? region->claim(token_) : region->ring_count();
      if (i < region->ring_count()) {
        p.writer.attach(&region->control(i), region->data(i), region->ring_bytes(),
                       &region->doorbell());
        p.path = Peer::Path::ring;
      } else {  // every private ring taken (or FTMPI_SHM_RING=0): the shared one
        const std::size_t s = region->shared_index();
        p.shared.attach(&region->control(s), region->data(s), region->ring_bytes(),
                       &region->doorbell());
        p.path = Peer::Path::shared;
      }
      p.region = std::move(region);
      return Status::ok;
    }
    p.path = Peer::Path::gone;
  }
  // Its region is made before its address is published and removed when it closes: gone.
  core_.last_error = "shm: peer " + std::to_string(dst) + " has ended (its region is gone)";
  return Status::peer_failed;
}

bool ShmEndpoint::push_briefly(Peer& p, const void* a, std::size_t alen, const void* b,
                               std::size_t blen) {
  // A full ring drains in microseconds when its receiver polls; a receiver that is itself
  // blocked sending to us needs us to drain ours meanwhile.
  for (unsigned attempt = 0; attempt < 64; ++attempt) {
    if (push(p, a, alen, b, blen)) return true;
    progress_into_backlog();
  }
  return false;
}

bool ShmEndpoint::try_inject(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag) {
  Peer& p = peers_[dst];
  const wire::Header h{tag, p.next_seq};
  if (len <= kInlineMax && p.path == Peer::Path::ring && p.deferred.empty() && !p.failed &&
      p.writer.push(&h, sizeof h, buf, len, nullptr, 0, kSmallReserve)) {
    ++p.next_seq;
    return true;
  }
  return false;
}

Status ShmEndpoint::send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag,
                         void* context, bool* done) {
  Peer& p = peers_[dst];
  const wire::Header h{tag, p.next_seq};
  // The latency-critical case first: a small message into an open private ring with nothing
  // queued before it is one push, finished when it returns.
  if (len <= kInlineMax && p.path == Peer::Path::ring && p.deferred.empty() && !p.failed &&
      p.writer.push(&h, sizeof h, buf, len, nullptr, 0, kSmallReserve)) {
    ++p.next_seq;
    if (done != nullptr) {
      *done = true;
    } else {
      Completion c;
      c.context = context;
      c.source = dst;
      core_.backlog.push(c);
    }
    return Status::ok;
  }
  if (done != nullptr) *done = false;
  if (p.failed) return Status::peer_failed;
  if (Status s = connect(dst); s != Status::ok) return s;
  // Non-overtaking: nothing may pass a deferred send to the same peer.
  const bool behind = !p.deferred.empty() && !flush_deferred(p);
  // Accepted from here on: it takes its number (h carries it already).
  const std::uint32_t seq = p.next_seq++;
  auto finished_here = [&] {
    if (done != nullptr) {
      *done = true;
    } else {
      Completion c;
      c.context = context;
      c.source = dst;
      core_.backlog.push(c);
    }
  };
  if (len <= kInlineMax && !behind && push_small(p, &h, sizeof h, buf, len)) {
    finished_here();
    return Status::ok;
  }
  OpRecord* op = new_op(core_.pool, OpKind::send, dst, context);
  op->buf = buf;
  op->len = len;
  op->tag = tag;
  op->seq = seq;
  if (behind) {
    p.deferred.push_back(op);
    ++deferred_count_;
    return Status::ok;
  }
  // A large one, or a small one that found the ring full (a window of sends its receiver
  // has not drained yet).
  switch (post(op, /*briefly=*/true)) {
    case Posted::deferred:
      p.deferred.push_back(op);
      ++deferred_count_;
      break;
    case Posted::pushed:
      free_op(op);
      finished_here();
      break;
    case Posted::staged:  // the user's buffer is free; the FIN only gives the pages back
      finished_here();
      break;
    case Posted::announced: break;  // its FIN completes it
  }
  return Status::ok;
}

ShmEndpoint::Posted ShmEndpoint::post_small(OpRecord* op, bool briefly) {
  Peer& p = peers_[op->peer];
  const wire::Header h{op->tag, op->seq};
  if (op->bulk_slot < 0) {
    if (push_small(p, &h, sizeof h, op->buf, op->len)) return Posted::pushed;
    // The ring is full: copy it into our bulk pages and announce it in a 56-byte record, so
    // that the rest of a window goes out without its receiver running (a full ring used to
    // make the sender wait for the receiver mid-window: two more hand-overs of the CPUs per
    // window). Sent eagerly, as the inline message would have been: it completes now, never
    // waiting for a receive to match it (two ranks sending to each other first must not
    // deadlock); the FIN only frees the pages.
    if (!bulk_stage(op)) {
      return briefly && push_briefly(p, &h, sizeof h, op->buf, op->len) ? Posted::pushed
                                                                        : Posted::deferred;
    }
  }
  const wire::Header rts{op->tag, wire::kRtsBit | wire::kBulkBit | op->seq};
  const wire::Announce a{op->len, static_cast<std::uint64_t>(op->bulk_slot), pid_, token_};
  if (!push(p, &rts, sizeof rts, &a, sizeof a)) return Posted::deferred;  // pages kept
  op->stage = 1;  // until the receiver's FIN
  op->orphaned = true;
  p.pending.push_back(op);
  return Posted::staged;
}

ShmEndpoint::Posted ShmEndpoint::post(OpRecord* op, bool briefly) {
  if (op->len <= kInlineMax) return post_small(op, briefly);
  Peer& p = peers_[op->peer];
  auto put = [&](const void* a, std::size_t alen, const void* b, std::size_t blen) {
    return briefly ? push_briefly(p, a, alen, b, blen) : push(p, a, alen, b, blen);
  };
  // A large message: announce it (in order with the small ones). Up to a bulk slot's size it
  // is staged in one of ours (kept across a deferral); else the receiver reads it with CMA,
  // and through a private ring we can help it copy (help_copy).
  const bool bulk = op->bulk_slot >= 0 || (!send_by_cma(*op) && bulk_stage(op));
  const bool split_ok = !bulk && op->len >= wire::kSplitMin && p.path == Peer::Path::ring;
  const wire::Header h{op->tag, wire::kRtsBit | (bulk ? wire::kBulkBit : wire::kCmaBit) |
                                    (split_ok ? wire::kSplitOkBit : 0) | op->seq};
  const wire::Announce a{op->len,
                         bulk ? static_cast<std::uint64_t>(op->bulk_slot)
                              : reinterpret_cast<std::uintptr_t>(op->buf),
                         pid_, token_};
  if (!put(&h, sizeof h, &a, sizeof a)) return Posted::deferred;
  op->stage = 1;  // until the receiver's FIN
  p.pending.push_back(op);
  if (!bulk) return Posted::announced;
  // Staged: the user's buffer is free now, so the send completes, as an eager one would
  // (MPI_Ssend waits for its own ack, above this layer); the FIN only gives the pages back.
  // Waiting for it made every sender in a collective wait for its receivers to run: when
  // ranks share cores, a hand-over of a core per message.
  op->orphaned = true;
  return Posted::staged;
}

void ShmEndpoint::finish_send(OpRecord* op, Status s) {
  Completion c;
  c.context = op->user_context;
  c.status = s;
  c.source = op->peer;
  core_.backlog.push(c);
  free_op(op);
}

bool ShmEndpoint::flush_deferred(Peer& p) {
  while (OpRecord* op = p.deferred.pop_front()) {
    --deferred_count_;
    switch (post(op, /*briefly=*/false)) {
      case Posted::deferred:
        p.deferred.push_front(op);
        ++deferred_count_;
        return false;
      case Posted::pushed: finish_send(op, Status::ok); break;
      case Posted::staged: {  // its completion now; the record waits for the FIN
        Completion c;
        c.context = op->user_context;
        c.source = op->peer;
        core_.backlog.push(c);
        break;
      }
      case Posted::announced: break;
    }
  }
  return true;
}

void ShmEndpoint::free_op(OpRecord* op) {
  delete[] op->scratch;
  op->scratch = nullptr;
  if (op->bulk_slot >= 0) bulk_release(op);  // its receiver is done with it (FIN), or gone
  core_.pool.put(op);
}

void ShmEndpoint::progress_into_backlog() {
  Completion batch[16];
  const std::size_t n = poll(batch, 16);
  for (std::size_t i = 0; i < n; ++i) core_.backlog.push(batch[i]);
}

std::size_t ShmEndpoint::poll(Completion* out, std::size_t max) {
  std::size_t n = 0;
  // Payloads of receives matched while posted (accept_large): they were waiting already.
  while (!matched_.empty() && n < max) {
    const MatchedLarge m = matched_.front();
    matched_.pop_front();
    if (deliver_large(m.op, m.arrival, &out[n])) ++n;
  }
  if (!in_poll_) {  // a record is read in place: nothing below may read rings again
    in_poll_ = true;
    const std::size_t claimed = inbound_->claimed();
    if (claimed > in_rings_.size()) in_rings_.resize(claimed);
    const std::size_t count = in_rings_.size();
    std::size_t i = ring_cursor_ < count ? ring_cursor_ : 0;
    for (std::size_t visited = 0; visited < count && n < max; ++visited) {
      InboundRing& r = in_rings_[i];
      if (r.attached || ring_attach(i)) n += poll_ring(r, false, out + n, max - n);
      if (++i == count) i = 0;
    }
    ring_cursor_ = i;
    // Most jobs never use the shared ring: one load says so without the call.
    if (n < max && shared_in_.reader.has_record()) n += poll_ring(shared_in_, true, out + n, max - n);
    in_poll_ = false;
  }
  if (deferred_count_ != 0) {
    for (Peer& p : peers_) {
      if (!p.deferred.empty()) flush_deferred(p);
    }
  }
  if (streaming_count_ != 0) {
    for (Peer& p : peers_) {
      for (OpRecord* op = p.pending.head(); op != nullptr;) {
        OpRecord* next = op->next;
        if (op->kind == OpKind::send && op->stage == 2 && stream_send(op)) {
          p.pending.remove(op);
          --streaming_count_;
          if (op->orphaned) {
            free_op(op);  // a staged small message, completed already
          } else {
            finish_send(op, Status::ok);
          }
        }
        op = next;
      }
    }
  }
  if (!fin_retry_.empty()) {
    std::vector<PendingFin> fins;
    fins.swap(fin_retry_);
    for (const PendingFin& f : fins) send_fin(f.peer, f.seq, f.status);
  }
  if (!retired_.empty()) unmap_retired_when_due();
  return n;
}

void ShmEndpoint::retire(std::unique_ptr<ring::Region> region) {
  retired_.push_back({std::move(region), std::chrono::steady_clock::now()});
}

void ShmEndpoint::unmap_retired_when_due() {
  const auto now = std::chrono::steady_clock::now();
  while (!retired_.empty() &&
         (retired_.size() > kRetiredMax || now - retired_.front().at >= kRetiredUnmapDelay)) {
    retired_.pop_front();
  }
}

bool ShmEndpoint::ring_attach(std::size_t index) {
  ring::RingControl& ctl = inbound_->control(index);
  const std::uint64_t owner = ctl.owner.load(std::memory_order_acquire);
  if (owner == 0) return false;  // counted as claimed, owner not written yet
  InboundRing& r = in_rings_[index];
  r.reader.attach(&ctl, inbound_->data(index), inbound_->ring_bytes());
  r.owner = owner;
  r.attached = true;
  r.peer = peer_of_token(owner);
  return true;
}

std::size_t ShmEndpoint::poll_ring(InboundRing& r, bool shared, Completion* out,
                                   std::size_t max) {
  std::size_t n = 0;
  std::size_t len = 0;
  while (n < max) {
    const unsigned char* rec = r.reader.peek(&len);
    if (rec == nullptr) break;
    PeerId source = r.peer;
    if (shared) {  // [sender's token][record]
      std::uint64_t token = 0;
      if (len >= sizeof token) std::memcpy(&token, rec, sizeof token);
      source = peer_of_token(token);
      rec += sizeof token;
      len = len >= sizeof token ? len - sizeof token : 0;
    } else if (source == kAnyPeer) {
      source = r.peer = peer_of_token(r.owner);
    }
    if (on_record(rec, len, source, !shared, &out[n])) ++n;
    r.reader.consume();
  }
  return n;
}

bool ShmEndpoint::on_record(const unsigned char* p, std::size_t got, PeerId source,
                            bool private_ring, Completion* out) {
  if (got < wire::kHeaderSize) {
    core_.last_error = "shm: dropped a malformed message of " + std::to_string(got) + " bytes";
    return false;
  }
  wire::Header h;
  std::memcpy(&h, p, sizeof h);
  const auto seq = static_cast<std::uint32_t>(h.info & wire::kSeqMask);
  if ((h.info & wire::kControlMask) == 0) {  // the common case: a small message
    Arrival a;
    a.source = source;
    a.tag = h.tag;
    a.seq = seq;
    a.len = got - wire::kHeaderSize;
    a.data = p + wire::kHeaderSize;
    return core_.matcher.arrive(a, out);
  }
  if ((h.info & wire::kChunkBit) != 0 && got >= wire::kChunkHeaderSize) {
    return on_chunk(source, seq, p + sizeof h, got - sizeof h, out);
  }
  if ((h.info & wire::kFinBit) != 0 && got >= wire::kFinSize) {
    std::uint64_t status = 0;
    std::memcpy(&status, p + sizeof h, sizeof status);
    return on_fin(source, seq, status, out);
  }
  if ((h.info & wire::kWithdrawBit) != 0) {
    on_withdraw(source, seq);
    return false;
  }
  if ((h.info & wire::kSplitBit) != 0 && got >= wire::kSplitSize) {
    help_copy(source, seq, p + sizeof h);
    return false;
  }
  if ((h.info & wire::kRtsBit) != 0 && got >= wire::kRtsSize) {
    wire::Announce ann;
    std::memcpy(&ann, p + sizeof h, sizeof ann);
    Arrival a;
    a.source = source;
    a.tag = h.tag;
    a.seq = seq;
    a.len = static_cast<std::size_t>(ann.len);
    a.channel = this;
    a.rndv.info = private_ring ? h.info : h.info & ~wire::kSplitOkBit;
    a.rndv.addr = ann.addr;
    a.rndv.pid = ann.pid;
    a.rndv.token = ann.token;
    return core_.matcher.arrive(a, out);
  }
  core_.last_error = "shm: dropped a message with unknown header bits";
  return false;
}

bool ShmEndpoint::departed_with_sends(PeerId peer) const {
  if (peer >= peers_.size()) return false;
  const Peer& p = peers_[peer];
  if (p.failed || p.pid == 0 || (p.deferred.empty() && p.pending.empty())) return false;
  // It closed its endpoint (finalized; it may live on long after MPI_Finalize) ...
  if (p.region != nullptr && p.region->closed()) return true;
  // ... or exited. Its pid is in its address; a peer on this host shares our pid namespace.
  return kill(static_cast<pid_t>(p.pid), 0) == -1 && errno == ESRCH;
}

void ShmEndpoint::fail_peer(PeerId peer) {
  if (peer >= peers_.size()) return;
  Peer& p = peers_[peer];
  p.failed = true;
  // Receives matched to its announcements, payload not read yet: peer_failed now (p.failed
  // makes deliver_large say so without reading).
  for (auto it = matched_.begin(); it != matched_.end();) {
    if (it->arrival.source != peer) {
      ++it;
      continue;
    }
    Completion c;
    if (deliver_large(it->op, it->arrival, &c)) core_.backlog.push(c);
    it = matched_.erase(it);
  }
  // Same shape as ucp_ep_set_failed: everything outstanding completes with an error.
  for (OpList* list : {&p.deferred, &p.pending}) {
    while (OpRecord* op = list->pop_front()) {
      if (list == &p.deferred) --deferred_count_;
      if (op->kind == OpKind::send && op->stage == 2) --streaming_count_;
      if (op->orphaned) {  // completed already (a staged small message)
        free_op(op);
        continue;
      }
      complete_ended(op, peer, Status::peer_failed);
    }
  }
  // Its shared memory goes too (a REBUILD job maps every replacement's region: 50 repairs kept
  // 514 MB mapped): our ring in its region, and its bulk slots if we mapped them. Nothing uses
  // them any more: Path::gone refuses sends, and a bulk payload of it still unmatched is looked
  // up again (and found gone once the daemon removed the region).
  // The unmapping waits until the failure is kRetiredUnmapDelay old (retire): it must fall
  // neither on the layer above hearing of the failure (a racing ULFM test saw that) nor on the
  // repair's agreement, where it came at the second poll (8-rank SHRINK repair 0.95-1.00 ms
  // with it there, 0.58-0.74 without, ft_latency).
  if (p.region != nullptr) retire(std::move(p.region));
  p.path = Peer::Path::gone;
  if (auto it = bulk_sources_.find(p.token); it != bulk_sources_.end()) {
    retire(std::move(it->second));
    bulk_sources_.erase(it);
  }
}

}  // namespace ftmpi::transport
