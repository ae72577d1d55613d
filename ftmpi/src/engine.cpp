#include "engine.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "ftmpi/debug_log.h"
#include "match_bits.h"
#include "progress_agent.h"

namespace ftmpi {

using transport::Completion;
using transport::Status;

Err Engine::init(Runtime* runtime, std::string* err) {
  runtime_ = runtime;
  my_proc_ = static_cast<std::uint32_t>(runtime->rank());
  if (static_cast<std::uint32_t>(runtime->size()) > match::kMaxProcesses) {
    *err = "job too large for the match-bit layout";
    return Err::intern;
  }
  endpoint_ = transport::Endpoint::open("", err);
  if (!endpoint_) return Err::intern;
  FTMPI_DLOG("startup", "MPI_Init: transport %s open, exchanging addresses",
             endpoint_->provider_name().c_str());
  failures_.set_limit(match::kMaxProcesses);
  // The transport-level step of marking a process failed: everything addressed to it completes
  // with peer_failed (purged) before any listener hears of the failure.
  failures_.set_purge([this](std::uint32_t proc) {
    if (proc < peers_) endpoint_->mark_peer_failed(static_cast<transport::PeerId>(proc));
  });
  if (runtime->is_replacement() || runtime->is_spare()) {  // no fence: see rebuild.h
    if (!runtime->publish_address(endpoint_->address(), err)) return Err::intern;
  } else {
    std::vector<std::vector<std::uint8_t>> addrs;
    if (!runtime->exchange_addresses(endpoint_->address(), &addrs, err)) return Err::intern;
    if (add_peers(addrs, FailureSource::startup, err) != Err::ok) return Err::intern;
  }
  FTMPI_DLOG("startup", "MPI_Init: %u peers inserted", peers_);
  configure_waits();
  return Err::ok;
}

// Oversubscribed = more live processes of the job on this MACHINE than it has cores. The
// machine, not the host: namespace hosts (tests/netns) are one kernel sharing its cores, and
// counting only this host's ranks left a host with 2 ranks on "its" 2 cores spinning 20000
// polls per wait while 8 ranks shared those cores (README, REBUILD with a hot spare). On a
// cluster every host is its own machine and the count is this host's ranks, as before.
// Before any peer is known (a spare, a replacement) PMIx's local size stands in.
void Engine::configure_waits() {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  std::uint32_t here = endpoint_->processes_on_this_machine();
  if (here == 0) here = static_cast<std::uint32_t>(runtime_->local_size());
  const bool oversubscribed = cores > 0 && here > static_cast<std::uint32_t>(cores);
  const bool network = endpoint_->provider_name() != "shm";  // libfabric polled too
  wait_policy_.configure(oversubscribed, network);
  FTMPI_DLOG("startup", "wait policy: %u live process(es) on this machine (PMIx local size %d), %ld core(s): %s%s",
             here, runtime_->local_size(), cores, oversubscribed ? "oversubscribed" : "a core each",
             network ? ", polling libfabric" : "");
}

void Engine::shutdown() { endpoint_.reset(); }

Err Engine::peer_failed(const Comm& comm, int rank, std::uint32_t proc) {
  return fail_report(failure_err(comm), "rank %d (process %u) has failed", rank, proc);
}

Err Engine::isend(const void* buf, std::size_t bytes, int dest, int tag, Comm* comm,
                  std::uint32_t context, Request** out, std::vector<std::uint8_t>* stage,
                  bool sync) {
  std::uint32_t peer = comm->peer_procs()[static_cast<std::size_t>(dest)];
  if (kFtChecks && failures_.is_failed(peer)) return peer_failed(*comm, dest, peer);
  Request* r = requests_.allocate(Request::Kind::send);
  r->comm = comm;
  r->peer = dest;
  if (stage != nullptr) {
    r->owned = std::move(*stage);
    buf = r->owned.data();
  }
  if (sync) {
    // Post the ack receive first: the ack may come back before send() even returns.
    Request* ack = requests_.allocate(Request::Kind::recv);
    ack->internal = true;
    ack->hook = &Engine::on_ack;
    ack->hook_arg = this;
    ack->match_bits = reinterpret_cast<std::uintptr_t>(r);  // the parent, until the ack lands
    Status a = endpoint_->recv(peer, nullptr, 0, match::make(context, peer, tag, match::Kind::ack),
                               0, ack);
    if (a != Status::ok) {
      requests_.release(ack);
      requests_.release(r);
      return fail(Err::intern, "posting the ack receive of a synchronous send failed");
    }
    ack->in_transport = true;
    r->ack = ack;
    r->parts = 2;
    r->sync = true;
  }
  bool done = false;
  Status s = endpoint_->send(peer, buf, bytes,
                             match::make(context, my_proc_, tag, sync ? match::Kind::sync : match::Kind::user), r,
                             &done);
  if (s != Status::ok) {
    if (r->ack != nullptr) {
      r->ack->match_bits = 0;  // detach; the canceled receive recycles itself
      (void)endpoint_->cancel(r->ack);
    }
    requests_.release(r);
    note_transport_error(peer, s);
    return fail_report(s == Status::peer_failed ? failure_err(*comm) : Err::intern, "send to rank %d failed: %s",
                dest, transport::status_name(s));
  }
  *out = r;
  r->message = number_send(peer);
  if (done) {  // copied out already: no completion will come
    finish_part(r, MPI_SUCCESS);
    return Err::ok;
  }
  ++pending_sends_;
  r->in_transport = true;
  return Err::ok;
}

Err Engine::irecv(void* buf, std::size_t bytes, int source, int tag, Comm* comm,
                  std::uint32_t context, Request** out, Received* at_once) {
  Selector sel;
  if (Err e = select(source, tag, comm, context, &sel); e != Err::ok) return e;
  if (Completion c; at_once != nullptr &&
                    endpoint_->recv_now(sel.peer, buf, bytes, sel.bits, sel.ignore, &c)) {
    const std::uint32_t proc = match::source_of(c.tag);
    const std::vector<int>& map = comm->peer_rank_of_proc();
    at_once->source = proc < map.size() ? map[proc] : MPI_ANY_SOURCE;
    at_once->tag = match::tag_of(c.tag);
    at_once->bytes = c.len;
    // As complete() does: the sender of a synchronous send waits for word that it matched.
    if ((c.tag & match::kSyncBit) != 0) {
      send_internal(proc, {}, match::make(match::context_of(c.tag), my_proc_, at_once->tag, match::Kind::ack));
    }
    *out = nullptr;
    return Err::ok;
  }
  Request* r = requests_.allocate(Request::Kind::recv);
  r->comm = comm;
  r->peer = source;
  if (buf == nullptr && bytes > 0) {
    r->owned = requests_.take_buffer(bytes);
    buf = r->owned.data();
  }
  Status s = endpoint_->recv(sel.peer, buf, bytes, sel.bits, sel.ignore, r);
  if (s != Status::ok) {
    requests_.release(r);
    return fail(Err::intern, "posting a receive failed: %s", endpoint_->last_error().c_str());
  }
  r->in_transport = true;
  *out = r;
  return Err::ok;
}

bool Engine::send_internal(std::uint32_t proc, std::vector<std::uint8_t> payload,
                           std::uint64_t bits, void (*hook)(Request&, void*), void* arg) {
  if (failures_.is_failed(proc)) return false;
  Request* r = requests_.allocate(Request::Kind::send);
  r->internal = true;
  r->owned = std::move(payload);
  r->hook = hook;
  r->hook_arg = arg;
  Status s = endpoint_->send(proc, r->owned.data(), r->owned.size(), bits, r);
  if (s != Status::ok) {
    requests_.release(r);
    note_transport_error(proc, s);
    return false;
  }
  (void)number_send(proc);
  r->in_transport = true;
  return true;
}

Err Engine::recv_internal(std::size_t max_bytes, std::uint64_t bits, std::uint64_t ignore,
                          void (*hook)(Request&, void*), void* arg) {
  Request* r = requests_.allocate(Request::Kind::recv);
  r->internal = true;
  // A spare of exactly this size, or a new buffer. Sizes never mix: a 16-byte notice receive
  // that took the agreement's 256 KiB spare would leave the next agreement message a new
  // 256 KiB buffer to allocate and zero (add_internal_spare says what that costs).
  auto spare = std::find_if(internal_spares_.begin(), internal_spares_.end(),
                            [max_bytes](const auto& b) { return b.size() == max_bytes; });
  if (spare != internal_spares_.end()) {
    r->owned.swap(*spare);
    internal_spares_.erase(spare);
  }
  r->owned.resize(max_bytes);  // no-op for a reused buffer
  r->hook = hook;
  r->hook_arg = arg;
  Status s = endpoint_->recv_standing(transport::kAnyPeer, r->owned.data(), max_bytes, bits,
                                      ignore, r);
  if (s != Status::ok) {
    requests_.release(r);
    return fail(Err::intern, "posting an internal receive failed: %s",
                endpoint_->last_error().c_str());
  }
  r->in_transport = true;
  return Err::ok;
}

void Engine::add_internal_spare(std::size_t bytes) {
  std::vector<std::uint8_t> buffer(bytes);
  keep_internal_spare(&buffer);
}

void Engine::keep_internal_spare(std::vector<std::uint8_t>* buffer) {
  const std::size_t size = buffer->size();
  if (size == 0 || std::any_of(internal_spares_.begin(), internal_spares_.end(),
                               [size](const auto& b) { return b.size() == size; })) {
    return;  // one of this size is enough
  }
  internal_spares_.push_back(std::move(*buffer));
}

void Engine::complete(const Completion& c) {
  auto* r = static_cast<Request*>(c.context);
  // The only cost on success: this compare. Covers user and internal operations alike (an
  // agreement message to a dead peer is often the first to notice).
  if (kFtChecks && (c.status == Status::peer_failed || c.status == Status::error)) {
    note_transport_error(c.source, c.status);
  }
  r->in_transport = false;
  if (r->kind == Request::Kind::probe) {
    r->complete = true;
    r->found = c.status == Status::ok;
    if (r->found) {
      std::uint32_t proc = match::source_of(c.tag);
      const std::vector<int>& map = r->comm->peer_rank_of_proc();
      r->source = proc < map.size() ? map[proc] : MPI_ANY_SOURCE;
      r->tag = match::tag_of(c.tag);
      r->bytes = c.message_len;
    } else if (c.status != Status::no_message) {
      r->error = to_code(fail(Err::intern, "probe failed: %s", transport::status_name(c.status)));
    }
    return;
  }
  if (r->internal) {
    if (r->hook == &Engine::on_ack) {
      // The parent learns of its ack (or that it will never come) unless a purge detached it.
      auto* parent = reinterpret_cast<Request*>(static_cast<std::uintptr_t>(r->match_bits));
      if (parent != nullptr) {
        parent->ack = nullptr;
        // Canceled: MPI_Cancel took the message back, so no ack will come (engine_cancel.cpp).
        finish_part(parent, c.status == Status::ok || c.status == Status::canceled
                                ? MPI_SUCCESS
                                : to_code(fail_report(failure_err(*parent->comm), "rank %d has failed", parent->peer)));
      }
    } else if (r->hook != nullptr && c.status != Status::canceled) {
      // An error completion (the provider gave up on it) still goes to the hook, empty, so a
      // standing receive such as the agreement's is posted again instead of silently lost.
      r->bytes = c.status == Status::ok ? c.len : 0;
      r->match_bits = c.status == Status::ok ? c.tag : 0;
      r->hook(*r, r->hook_arg);
    }
    keep_internal_spare(&r->owned);
    requests_.release(r);
    return;
  }
  if (r->kind == Request::Kind::send) --pending_sends_;
  if (r->complete) {  // already completed by a purge; only the record is left to recycle
    if (r->retired) requests_.release(r);
    return;
  }
  if (r->kind == Request::Kind::recv) {
    r->bytes = c.len;
    std::uint32_t proc = match::source_of(c.tag);
    const std::vector<int>& map = r->comm->peer_rank_of_proc();
    r->source = proc < map.size() ? map[proc] : MPI_ANY_SOURCE;
    r->tag = match::tag_of(c.tag);
    // The sender of a synchronous send waits for this: the message has been matched.
    if ((c.tag & match::kSyncBit) != 0 && c.status != Status::peer_failed) {
      send_internal(proc, {}, match::make(match::context_of(c.tag), my_proc_, r->tag, match::Kind::ack));
    }
  }
  int error = MPI_SUCCESS;
  switch (c.status) {
    case Status::ok: break;
    case Status::canceled:
      r->cancelled = true;
      r->bytes = 0;
      // A synchronous send taken back: its ack will never come, so its receive goes too.
      if (r->ack != nullptr) (void)endpoint_->cancel(r->ack);
      break;
    case Status::truncated:
      error = to_code(fail(Err::truncate, "message of %zu bytes from rank %d truncated to %zu bytes",
                           c.message_len, r->source, c.len));
      break;
    case Status::peer_failed:
      error = to_code(fail_report(failure_err(*r->comm), "rank %d has failed", r->peer));
      break;
    default:
      error = to_code(fail(Err::intern, "transport: %s", transport::status_name(c.status)));
      break;
  }
  finish_part(r, error);
}

void Engine::finish_part(Request* r, int error) {
  if (error != MPI_SUCCESS && r->error == MPI_SUCCESS) r->error = error;
  if (--r->parts > 0) return;
  r->complete = true;
  if (r->retired && !r->in_transport) requests_.release(r);  // freed by the user while pending
}

void Engine::on_ack(Request&, void*) {}  // a tag for complete(); the work happens there

Err Engine::iprobe(int source, int tag, Comm* comm, bool* found, Request* out) {
  Selector sel;
  if (Err e = select(source, tag, comm, comm->context, &sel); e != Err::ok) return e;
  Request* r = requests_.allocate(Request::Kind::probe);
  r->comm = comm;
  Status s = endpoint_->probe(sel.peer, sel.bits, sel.ignore, r);
  if (s != Status::ok) {
    requests_.release(r);
    return fail(Err::intern, "probe is not available: %s", endpoint_->last_error().c_str());
  }
  r->in_transport = true;
  // The provider answers a probe at once, found or not; a plain poll loop keeps the caller's
  // own wait (MPI_Probe) in charge of backing off.
  while (!r->complete) progress();
  *found = r->found;
  out->source = r->source;
  out->tag = r->tag;
  out->bytes = r->bytes;
  int error = r->error;
  requests_.release(r);
  return error == MPI_SUCCESS ? Err::ok : fail(Err::intern, "probe failed");
}

void Engine::retire(Request* r) {
  r->retired = true;
  if (!r->in_transport) requests_.release(r);
}

void Engine::purge(Request* r, int error_code) {
  if (r->complete) return;
  r->complete = true;
  r->error = error_code;
  ++events_;
  if (r->ack != nullptr) {  // a synchronous send's ack will not be waited for
    r->ack->match_bits = 0;
    (void)endpoint_->cancel(r->ack);
    r->ack = nullptr;
  }
  // Abandoned, not cancelled: a receive already matched to a payload still arriving drops the
  // rest, since the user may free the buffer as soon as the purged request is handed back.
  if (r->in_transport && r->kind == Request::Kind::recv) (void)endpoint_->abandon_recv(r);
  // A send the transport still holds goes on from its own copy: the user's buffer is theirs
  // again. (One from `owned` needs none: the retired request keeps it until the transport
  // is done.)
  if (r->in_transport && r->kind == Request::Kind::send && r->owned.empty() &&
      r->comm != nullptr && r->peer >= 0 && r->peer < r->comm->peer_size()) {
    endpoint_->detach_send(r->comm->peer_procs()[static_cast<std::size_t>(r->peer)], r);
  }
}

void Engine::note_transport_error(transport::PeerId proc, Status s) {
  if (!kFtChecks || (s != Status::peer_failed && s != Status::error)) return;
  // kAnyPeer: a wildcard receive's error names nobody. Ourselves: not a peer problem.
  if (proc >= peers_ || proc == my_proc_ || draining_) return;
  failures_.suspect(proc);
}

Err Engine::add_peers(const std::vector<std::vector<std::uint8_t>>& addrs, FailureSource why,
                      std::string* err) {
  if (peers_ + addrs.size() > match::kMaxProcesses) {
    *err = "too many processes for the match-bit layout";
    return Err::intern;
  }
  std::vector<std::vector<std::uint8_t>> insert = addrs;
  const std::vector<std::uint8_t> mine = endpoint_->address();
  for (auto& a : insert) {
    if (a.empty()) a = mine;  // a placeholder that is never used: the slot is marked failed
  }
  if (endpoint_->insert_peers(insert) != Status::ok) {
    *err = "cannot insert peer addresses: " + endpoint_->last_error();
    return Err::intern;
  }
  const std::uint32_t first = peers_;
  peers_ += static_cast<std::uint32_t>(addrs.size());
  for (std::uint32_t p = first; p < peers_; ++p) {
    if (failures_.is_failed(p)) {
      // Reported dead before the transport knew it (a replacement that died early): the
      // failure path ran then without a transport purge; run that step now.
      endpoint_->mark_peer_failed(static_cast<transport::PeerId>(p));
    } else if (addrs[p - first].empty()) {
      failures_.mark_failed(p, why);
    }
  }
  if (why != FailureSource::startup) configure_waits();  // MPI_Init configures once it has them all
  return Err::ok;
}

bool Engine::progress() {
  ProgressAgent::note_poll();  // the progress agent stays out meanwhile (progress_agent.h)
  if (kFtChecks && runtime_->has_failures()) {
    // What a dead process sent before it died is already here (shared memory holds it the
    // moment it is written; the daemon only learns of the death after): take it first, so a
    // synchronous send's ack or a message it sent last is not purged with it. A synchronous
    // send to a process that received and then exited used to fail (MPICH's ft/multi_isendalive).
    take_arrivals();
    failures_.drain(runtime_);
    ++events_;
  }
  // A few at a time; more completions wait for the next call. Left uninitialised: poll()
  // writes every completion it returns whole, and an empty poll is most calls of a wait loop
  // (initialising 16 cost a 768-byte `rep stos` per poll, 4 still 32 instructions).
  union Batch {
    Batch() {}
    Completion items[4];
  } batch;
  std::size_t n = endpoint_->poll(batch.items, 4);
  for (std::size_t i = 0; i < n; ++i) complete(batch.items[i]);
  events_ += n;
  bool moved = n > 0;
  if (background_ != nullptr && !Fiber::running() && background_(background_arg_, events_)) {
    moved = true;
  }
  return moved;
}

void Engine::take_arrivals() {
  // Bounded: a live sender could keep the queue from ever being empty; a ring holds 64 KiB,
  // so the bound covers many ringfuls and the rest is taken by the next calls as usual.
  Completion items[16];
  for (int round = 0; round < 256; ++round) {
    const std::size_t n = endpoint_->poll(items, 16);
    for (std::size_t i = 0; i < n; ++i) complete(items[i]);
    events_ += n;
    if (n < 16) return;
  }
}

void Engine::wait(Request* r) {
  wait_until([r] { return r->complete; });
}

void Engine::drain_sends() {
  // Receives are over: what others sent us unmatched (a collective cut short by a failure)
  // is released so that their sends, and so their MPI_Finalize, complete.
  endpoint_->discard_unexpected();
  // Small sends staged in our bulk pages (the ring was full) completed at once, but their
  // receiver copies them from our memory: they count too.
  if (pending_sends_ == 0 && !endpoint_->holds_staged_sends()) return;
  // Ours may be such leftovers too, sent to a survivor that has finalized and left since (it
  // released what had reached it, not what came later): nobody will take them. A peer on
  // this machine that has exited is marked gone (checked every 20 ms); a libfabric peer's
  // exit closes its connection, but a rendezvous send to it can stay pending (tcp;ofi_rxm), so
  // once a failure has been seen (the only way such leftovers arise: every collective that
  // returned success had its sends taken) the wait ends after kLeftoverWait. A correct
  // program has no send of its own pending here (MPI-3.1 8.7).
  using Clock = std::chrono::steady_clock;
  constexpr auto kCheckEvery = std::chrono::milliseconds(20);
  constexpr auto kLeftoverWait = std::chrono::seconds(2);
  draining_ = true;
  const Clock::time_point start = Clock::now();
  Clock::time_point next_check = start + kCheckEvery;
  wait_until([&] {
    if (pending_sends_ == 0 && !endpoint_->holds_staged_sends()) return true;
    const Clock::time_point now = Clock::now();
    if (now < next_check) return false;
    next_check = now + kCheckEvery;
    endpoint_->release_departed_peers();  // their completions come with the next poll
    if (failures_.failed_count() > 0 && now - start > kLeftoverWait) {
      FTMPI_DLOG("finalize", "MPI_Finalize: %zu send(s) left untaken after a failure; not waiting longer",
                 pending_sends_);
      return true;
    }
    return false;
  });
}

}  // namespace ftmpi
