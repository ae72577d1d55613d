// The point-to-point engine: turns MPI sends and receives into tagged transport operations,
// completes requests from transport completions, and waits without burning cores.
// Contract with the layer above (the C API and, later, collectives and fault tolerance):
// every posted request completes exactly once, with success or an error, and a request whose
// peer is known dead completes with Err::other instead of waiting forever.
#pragma once

#include <ftmpi/transport/endpoint.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm.h"
#include "failure_state.h"
#include "fiber.h"
#include "library_lock.h"
#include "match_bits.h"
#include "request.h"
#include "runtime.h"
#include "wait_policy.h"

namespace ftmpi {

class Engine {
 public:
  // A process of the original job exchanges addresses with everybody; a REBUILD replacement
  // only publishes its own and gets its peers from add_peers (rebuild.cpp).
  Err init(Runtime* runtime, std::string* err);
  void shutdown();

  // dest/source are communicator ranks already validated (MPI_PROC_NULL handled by caller).
  // context: comm->context for user traffic, comm->coll_context for collectives.
  // stage: non-contiguous data already packed; the request takes it over and sends from it.
  // sync: MPI_Ssend semantics — complete only once the receiver has matched the message.
  Err isend(const void* buf, std::size_t bytes, int dest, int tag, Comm* comm,
            std::uint32_t context, Request** out, std::vector<std::uint8_t>* stage = nullptr,
            bool sync = false);
  // A blocking send's fast path: a small contiguous message that the transport takes whole
  // at once (Endpoint::try_inject) needs no request. False when it did not go (the caller
  // then sends through isend, which also reports a failed peer).
  bool send_now(const void* buf, std::size_t bytes, int dest, int tag, Comm* comm,
                std::uint32_t context) {
    const std::uint32_t peer = comm->peer_procs()[static_cast<std::size_t>(dest)];
    if (kFtChecks && failures_.is_failed(peer)) return false;
    if (!endpoint_->try_inject(peer, buf, bytes,
                               match::make(context, my_proc_, tag, match::Kind::user))) {
      return false;
    }
    (void)number_send(peer);
    return true;
  }
  // What a receive completed at once found (irecv's at_once).
  struct Received {
    int source = MPI_ANY_SOURCE;  // communicator rank
    int tag = MPI_ANY_TAG;
    std::size_t bytes = 0;
  };
  // buf == nullptr with bytes > 0: receive into the request's own buffer (Request::owned), for
  // the caller to unpack.
  // at_once given: a receive's fast path, as send_now is a send's. A message already taken in
  // from the transport (an unexpected one) that this receive accepts, small and fitting,
  // completes it here with no request (Endpoint::recv_now): *out = nullptr and *at_once
  // describes it (a synchronous send's ack goes out here). Otherwise the receive is posted.
  Err irecv(void* buf, std::size_t bytes, int source, int tag, Comm* comm, std::uint32_t context,
            Request** out, Received* at_once = nullptr);

  // Library-internal messages with raw match bits (see match_bits.h kinds). The send owns its
  // payload; the receive lands in r.owned (its first r.bytes bytes; the buffer keeps its full
  // size) and calls hook(r, arg), after which the request is recycled and the buffer kept for
  // the next internal receive (a standing receive reposted from its hook: no allocation and no
  // clearing of a kMaxMessage buffer per message). Sends to dead processes are dropped silently (the caller learns of the failure
  // through the failure listener). A send's hook, if given, is called once when it completes
  // (r.bytes 0 after an error); false: not sent, no hook will come (dead peer, refused).
  bool send_internal(std::uint32_t proc, std::vector<std::uint8_t> payload, std::uint64_t bits,
                     void (*hook)(Request&, void*) = nullptr, void* arg = nullptr);
  // Posted as a standing receive (Endpoint::recv_standing): always there, so the transport
  // does not take its large buffer for a sign of an exchange.
  Err recv_internal(std::size_t max_bytes, std::uint64_t bits, std::uint64_t ignore,
                    void (*hook)(Request&, void*), void* arg);
  // One more buffer of `bytes` for internal receives of that size, made now: a standing
  // receive's hook posts the next one before its own buffer is free, so the first message
  // needs a second buffer, and a large one is a large allocation (256 KiB allocated and
  // zeroed, page faults included: 0.1-0.2 ms at each member) at a moment that counts: the
  // first agreement of a job, which after ATOMIC collectives that settled (no agreement) is
  // a failure's repair. It tripled the 4-rank SHRINK repair (0.13 -> 0.36 ms).
  void add_internal_spare(std::size_t bytes);
  // Appends processes peer_count(), peer_count()+1, ...; an empty address is a slot that
  // never joined (a dead or never-started process): it is marked failed (`why`) at once.
  Err add_peers(const std::vector<std::vector<std::uint8_t>>& addrs, FailureSource why,
                std::string* err);
  std::uint32_t peer_count() const { return peers_; }
  std::vector<std::uint8_t> address() const { return endpoint_->address(); }

  // The user is done with a complete request; its record is recycled as soon as the transport
  // no longer refers to it.
  void retire(Request* r);
  // MPI_Request_free on a pending request: the operation goes on, nobody will wait for it, and
  // the record is recycled when the transport completes it. (A non-contiguous receive freed this
  // way is not unpacked.)
  void abandon(Request* r) { r->retired = true; }
  // Completes a pending request at once with an error code (failure handling); a receive is also
  // canceled in the transport.
  void purge(Request* r, int error_code);

  // Drops what waits unmatched on `context` for user receives: user and synchronous messages
  // and synchronous sends' acks, from anybody (a context id given back, context_retire.h).
  // Returns how many.
  std::size_t discard_context(std::uint32_t context) {
    constexpr std::uint64_t any = match::kSourceMask | match::kTagMask;
    return endpoint_->discard_matching(match::make(context, 0, 0), any | match::kSyncBit) +
           endpoint_->discard_matching(match::make(context, 0, 0, match::Kind::ack), any);
  }

  // Non-blocking probe for a message matching (source, tag) on comm's point-to-point context.
  // *found says whether one is waiting; if so the request-like fields of *out (source, tag,
  // bytes) describe it. The message stays queued.
  Err iprobe(int source, int tag, Comm* comm, bool* found, Request* out);
  // MPI_Improbe: the same, but a found message leaves matching at once (no other receive or
  // probe can take it, whichever thread asks) and *message names it for mrecv.
  Err improbe(int source, int tag, Comm* comm, bool* found, Request* out, std::uint64_t* message);
  // MPI_Mrecv/MPI_Imrecv: receives the message improbe took, from communicator rank `source`,
  // into buf (bytes its capacity; buf nullptr with bytes > 0: the request's own buffer, as in
  // irecv). A receive request like irecv's, completed by the transport like any receive.
  Err mrecv(void* buf, std::size_t bytes, std::uint64_t message, int source, Comm* comm,
            Request** out);

  // MPI_Cancel (engine_cancel.cpp): a pending receive is withdrawn; a send's message is taken
  // back from the receiver if no receive has matched it yet (even after the send completed
  // here: the request then waits once more, for the receiver's answer). Either way the
  // request's completion says cancelled or not.
  void cancel(Request* r);

  // Drives progress once; true if anything completed. Outside a fiber it also drives the
  // background work (set_background).
  bool progress();
  // Blocks until r is complete.
  void wait(Request* r);
  // Blocks, driving progress, until done() holds.
  // Under MPI_THREAD_MULTIPLE the library lock is given up while idle (library_lock.h), so
  // other threads call MPI meanwhile and done() is evaluated again after they did.
  // On a fiber (a nonblocking collective, fiber.h) it does not block: between checks it hands
  // control back to whoever resumed it (who holds the lock, if any, all along) — unless that
  // resumer is MPI_Wait on this collective alone (Fiber::may_block, Nbc::wait): then it
  // waits here like a blocking call, so a round costs no fiber switches and the back-off is
  // the blocking call's (reset by every message, not only by the whole collective's end).
  template <typename Done>
  void wait_until(Done&& done) {
    if (Fiber::running()) {
      while (!done()) {
        if (Fiber::may_block()) {  // the resumer is inside Waiting already (Nbc::wait)
          block_until(done, /*on_fiber=*/true);
          continue;
        }
        progress();
        if (Fiber::spin()) continue;  // a start's first polls (Nbc::start)
        Fiber::yield();
      }
      return;
    }
    // Done already (a nonblocking collective MPI_Wait ran to its end, a send that completed
    // at once): no Waiting scope, whose two atomic read-modify-writes were most of the cost.
    if (done()) return;
    LibraryLock::Waiting waiting;  // the progress agent keeps out meanwhile
    block_until(done, /*on_fiber=*/false);
  }
  // wait_until's blocking loop. On a fiber that may block (Fiber::may_block) it returns early
  // once blocking is withdrawn (another nonblocking collective started meanwhile: that one
  // needs the background steps only the resumer's loop runs), and the fiber yields again.
  template <typename Done>
  [[gnu::always_inline]] void block_until(Done& done, bool on_fiber) {
    WaitPolicy policy = wait_policy_;  // this wait's own back-off: several threads may wait
    policy.reset();
    while (!done()) {
      if (progress()) {
        policy.reset();
        // A wait whose every poll moves something (the offer rounds of a construction that
        // waits for another thread's construction, context_claims.h; a stream of messages)
        // would never give the lock up: hand it over when another thread is queued for it.
        if (LibraryLock::contended()) LibraryLock::idle_released(policy);
      } else if (LibraryLock::held_here()) {
        LibraryLock::idle_released(policy);
      } else {
        policy.idle();
      }
      if (on_fiber && !Fiber::may_block()) return;
    }
  }
  // Work every progress call outside a fiber drives as well: the pending nonblocking
  // collectives (nbc.h), so that any wait or test of the process moves them on. step(arg)
  // gets the event count (events()) and returns true if it completed something.
  void set_background(bool (*step)(void* arg, std::uint64_t events), void* arg) {
    background_ = step;
    background_arg_ = arg;
  }
  // How many polls a nonblocking collective's start makes before it returns (WaitPolicy).
  int nbc_start_polls() const { return wait_policy_.start_polls(); }
  // Counts what can unblock a waiting collective: completions, purges, failure reports.
  std::uint64_t events() const { return events_; }
  // A test or probe the application polls (MPI_Test*, MPI_Iprobe, MPI_Request_get_status)
  // found nothing: other threads waiting for the library lock get it first, and an
  // oversubscribed process yields the core (WaitPolicy::missed_poll). Call it last, holding
  // no pointers.
  void poll_missed() {
    if (Fiber::running()) return;  // a collective's body: its resumer holds the lock throughout
    if (LibraryLock::held_here()) LibraryLock::let_waiters_in();
    wait_policy_.missed_poll();
  }

  // Sends posted while on belong to an all-to-all exchange (transport::Endpoint::set_all_to_all).
  void set_all_to_all(bool on) { endpoint_->set_all_to_all(on); }

  // Waiting for a message without polling (the progress agent, progress_agent.h): see
  // transport::Endpoint::arm_wakeup. wait_for_wakeup and wake may be called without the
  // library lock, by any thread, until shutdown().
  void arm_wakeup() { endpoint_->arm_wakeup(); }
  void wait_for_wakeup(int timeout_ms) { endpoint_->wait_for_wakeup(timeout_ms); }
  void wake() { endpoint_->wake(); }

  // Waits until every send this process posted has completed (MPI_Finalize).
  void drain_sends();

  // The failure state this engine feeds (runtime reports drained in progress(), transport
  // errors as suspicions) and whose purge hook is the transport's mark_peer_failed.
  FailureState& failures() { return failures_; }
  const FailureState& failures() const { return failures_; }
  bool is_failed(std::uint32_t proc) const { return failures_.is_failed(proc); }

  RequestPool& requests() { return requests_; }
  const std::string& provider() const { return endpoint_->provider_name(); }
  std::uint32_t my_proc() const { return my_proc_; }

 private:
  // Completes what the transport already holds (progress() calls it before it applies
  // reported failures: a dead process's last messages arrived before its death was known).
  void take_arrivals();
  // What a receive or probe for (source, tag) asks the transport for.
  struct Selector {
    transport::PeerId peer{};
    std::uint64_t bits = 0;  // initialised: GCC 12 -O3 cannot see select() sets it on success
    std::uint64_t ignore = 0;
  };
  // Inline, with the failure's report out of line and cold: as an out-of-line call it cost
  // ~30 instructions on every receive of a job that never saw a failure (ft_overhead.sh).
  Err select(int source, int tag, Comm* comm, std::uint32_t context, Selector* out) const {
    out->peer = transport::kAnyPeer;
    out->ignore = match::kSyncBit;  // a synchronous send's message is received like any other
    std::uint32_t src_bits = 0;
    if (source == MPI_ANY_SOURCE) {
      out->ignore |= match::kSourceMask;
    } else {
      out->peer = comm->peer_procs()[static_cast<std::size_t>(source)];
      if (kFtChecks && failures_.is_failed(out->peer)) return peer_failed(*comm, source, out->peer);
      src_bits = out->peer;
    }
    if (tag == MPI_ANY_TAG) out->ignore |= match::kTagMask;
    out->bits = match::make(context, src_bits, tag == MPI_ANY_TAG ? 0 : tag);
    return Err::ok;
  }
  [[gnu::cold, gnu::noinline]] static Err peer_failed(const Comm& comm, int rank,
                                                      std::uint32_t proc);
  void complete(const transport::Completion& c);
  // One of a request's completions (the send itself, or a synchronous send's ack) is in.
  void finish_part(Request* r, int error);
  static void on_ack(Request& ack, void* self);
  void cancel_send(Request* r);
  // Counts along with the transport's numbering of sends to each peer (Request::message).
  std::uint32_t number_send(transport::PeerId peer) {
    if (peer >= sent_.size()) sent_.resize(peer + 1, 0);
    return sent_[peer]++;
  }
  // The transport failed an operation towards proc with s; suspects proc if s says it may be
  // dead (kAnyPeer: the provider could not tell who; ignored).
  void note_transport_error(transport::PeerId proc, transport::Status s);
  // Oversubscribed or not, from the processes on this machine (after peers were added).
  void configure_waits();
  // Keeps a finished internal receive's buffer for the next receive of its size.
  void keep_internal_spare(std::vector<std::uint8_t>* buffer);

  Runtime* runtime_ = nullptr;
  std::unique_ptr<transport::Endpoint> endpoint_;
  RequestPool requests_;
  // Buffers of finished internal receives, at most one per size, for the next receive of that
  // size (recv_internal): the agreement's standing receive is 256 KiB, the notices' 16 bytes.
  std::vector<std::vector<std::uint8_t>> internal_spares_;
  WaitPolicy wait_policy_;
  std::uint32_t my_proc_ = 0;
  FailureState failures_;
  std::uint32_t peers_ = 0;      // processes the transport knows
  std::vector<std::uint32_t> sent_;  // by process index: sends the transport accepted
  std::size_t pending_sends_ = 0;
  bool draining_ = false;  // MPI_Finalize's drain_sends: transport errors are no suspicions
  bool (*background_)(void*, std::uint64_t) = nullptr;
  void* background_arg_ = nullptr;
  std::uint64_t events_ = 0;
};

}  // namespace ftmpi
