// The transport layer's one public interface: a reliable, tag-matched message endpoint; peers
// on this host through our own shared memory, others through libfabric RDM (loaded only then).
// Everything above (ftmpi's point-to-point engine) sees only this header.
//
// Addressing: peers are inserted once, in order; the i-th inserted address becomes PeerId i.
// Matching: a receive matches a message when (msg_tag & ~ignore) == (tag & ~ignore) and, unless
// the source is kAnyPeer, the message came from that peer. Messages between one pair of
// endpoints that can match the same receive are matched in the order they were sent.
// Completions: every send/recv/probe posted with a context reports exactly one Completion
// carrying that context, from poll(). A context must stay valid until then. A call that
// returns anything but Status::ok posted nothing and reports no Completion.
// Threading: one thread at a time per Endpoint (libfabric, when used, has FI_THREAD_DOMAIN).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ftmpi::transport {

enum class [[nodiscard]] Status {
  ok,
  truncated,    // receive buffer shorter than the message; buffer content undefined
  canceled,     // the operation was canceled before it matched
  no_message,   // probe found nothing
  peer_failed,  // the peer is unreachable or dead
  error,        // anything else; Endpoint::last_error() describes it
};

const char* status_name(Status s);

using PeerId = std::uint32_t;
inline constexpr PeerId kAnyPeer = 0xffffffffu;

struct Completion {
  void* context = nullptr;
  Status status = Status::ok;
  std::uint64_t tag = 0;         // the message's tag (receives and probes)
  std::size_t len = 0;           // bytes placed in the buffer (receive) / message size (probe)
  // Full size of the message. When truncated, len is 0 (contents undefined) and message_len is
  // the full size.
  std::size_t message_len = 0;
  // Sender of a received/probed message (needed for kAnyPeer); the target peer for a send.
  // kAnyPeer when the provider could not tell (a truncated or failed wildcard receive).
  PeerId source = kAnyPeer;
};

class Endpoint {
 public:
  virtual ~Endpoint() = default;

  // provider: "" picks FTMPI_PROVIDER from the environment, else "shm" (our shared memory;
  // libfabric is not loaded). "tcp" (= "tcp;ofi_rxm") or any other libfabric provider name
  // sends every peer through that provider. Returns nullptr and fills *err.
  static std::unique_ptr<Endpoint> open(const std::string& provider, std::string* err);

  virtual const std::string& provider_name() const = 0;
  virtual std::vector<std::uint8_t> address() const = 0;
  // Appends peers; the first call's first address is PeerId 0.
  virtual Status insert_peers(const std::vector<std::vector<std::uint8_t>>& addrs) = 0;

  // Non-blocking. Large messages are announced and move once matched (rendezvous); the
  // send's completion means the buffer may be reused. A send that finds no room (a full ring
  // or provider queue) retries briefly while driving progress, then waits in order and goes
  // out from poll(); send() never waits for the peer. Sends to, and receives/probes directed
  // at, a peer already marked failed (or, on shm, a peer that has ended) return
  // Status::peer_failed at once.
  Status send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag, void* context) {
    return send(dst, buf, len, tag, context, nullptr);
  }
  // The same; with `done` given, a send finished before returning (a small message, copied
  // out) sets *done = true and reports no Completion, which spares the caller a trip through
  // the completion queue on the latency-critical path. Otherwise *done = false.
  virtual Status send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag,
                      void* context, bool* done) = 0;
  // A small message sent whole at once, or nothing at all: true when it went out (numbered
  // like any accepted send, no Completion), false when the caller must use send() instead (a
  // large message, no room now, sends queued before it, a failed peer, a route without this
  // path). The blocking MPI_Send's path: no operation record anywhere.
  virtual bool try_inject(PeerId, const void*, std::size_t, std::uint64_t) { return false; }
  // While on, the sends given are part of an exchange in which every member sends to and
  // receives from all others at once (an alltoall that posted all its receives first): shm may
  // have them read with one copy even when ranks share cores, as nobody waits on a hand-over
  // of the core that it would not wait on anyway.
  virtual void set_all_to_all(bool) {}
  virtual Status recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                      std::uint64_t ignore, void* context) = 0;
  // recv() for a receive that stays posted whatever the application does, waiting for what
  // may come (the library's agreement and notice messages): the same, except that the
  // transport does not take it for a sign that this process is in the middle of an exchange
  // (shm: large sends while a large receive is posted are read by the receiver with CMA).
  virtual Status recv_standing(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                               std::uint64_t ignore, void* context) {
    return recv(src, buf, len, tag, ignore, context);
  }
  // A receive that a message already here completes at once, or nothing at all: true when
  // the oldest waiting message it accepts (matched exactly as recv() would) was small, fit
  // len, and is now in buf, described by *out (context nullptr; no Completion from poll());
  // false when the caller must use recv() instead (no such message yet, a large or too long
  // one, a failed or unknown peer). Looks only at what poll() has already taken in: the
  // receive path of MPI_Recv and of collectives, with no operation record anywhere.
  virtual bool recv_now(PeerId, void*, std::size_t, std::uint64_t, std::uint64_t, Completion*) {
    return false;
  }
  // Asks for a posted receive to be canceled; its Completion then says canceled (or ok, if it
  // matched first).
  virtual Status cancel(void* context) = 0;
  // A receive its user gave up without MPI_Cancel's promise (a failure or revoke purge): as
  // cancel() while it is posted; if it matched a large message whose payload is still
  // arriving (shm, streamed through the ring), the rest of the payload is dropped and its
  // Completion says canceled, so the buffer is nobody's from now on (the sender finishes).
  virtual Status abandon_recv(void* context) { return cancel(context); }
  // A send to dst its user gave up (a failure or revoke purge handed its request back with an
  // error) while the transport still holds it: the user may free or reuse the buffer now, so
  // what is not sent yet goes from a copy (a collective cut short returns at once, and its
  // small messages often live on its stack). Out of reach: a payload a peer on this host
  // reads from our memory itself (CMA; it then reads whatever is there) and one a provider
  // took already (libfabric's rendezvous).
  virtual void detach_send(PeerId /*dst*/, void* /*context*/) {}
  // Sends to one peer are numbered 0, 1, 2, ... in the order send() accepted them (returned
  // ok); the caller counts along. Asks dst to drop our message number `message` if no receive
  // has matched it yet (MPI_Cancel of a send). pending: the send has not reported its
  // Completion yet; that Completion then says canceled (dropped: never received) or ok
  // (matched, and received once). Otherwise one new Completion with `context` says the same.
  // Where messages cannot be taken back (a provider matching on its own), the answer is ok.
  virtual Status cancel_send(PeerId dst, std::uint32_t message, void* context, bool pending) = 0;
  // Non-blocking probe: one Completion with status ok (tag, message_len filled, message left in
  // place) or no_message.
  virtual Status probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context) = 0;
  // A matched probe (MPI_Mprobe), answered at once: the oldest message a receive (src, tag,
  // ignore) would match leaves matching (no other receive or probe can take it) and *out
  // describes it (tag, source, message_len; no Completion from poll()); *message names it for
  // recv_claimed. no_message when none has arrived; peer_failed as for probe().
  virtual Status claim(PeerId, std::uint64_t, std::uint64_t, Completion*, std::uint64_t*) {
    return Status::error;
  }
  // Receives the message claim() took, as a receive matched to it (one Completion with
  // context; eager or rendezvous alike; the sender's failure since is the rendezvous's, as
  // for any matched receive). error: `message` names no claimed message.
  virtual Status recv_claimed(std::uint64_t, void*, std::size_t, void*) { return Status::error; }

  // Drives progress and returns up to max completions; never blocks. When nothing happened it
  // costs one load per sender's ring (shm) or one fi_cq_read (libfabric).
  virtual std::size_t poll(Completion* out, std::size_t max) = 0;

  // Marks a peer dead: every pending operation towards or expecting it (not kAnyPeer receives)
  // completes with peer_failed at the next poll, and later sends to it fail at once. Idempotent.
  virtual void mark_peer_failed(PeerId peer) = 0;
  // Live inserted peers (this process included, once inserted) whose address says they run on
  // this machine, i.e. share its cores: the same kernel, whatever their host name (the
  // namespace hosts of tests/netns are one machine; the hosts of a cluster are not).
  virtual std::uint32_t processes_on_this_machine() const = 0;
  // No receive will be posted any more (MPI_Finalize): every message waiting unmatched, and
  // every one arriving unmatched from now on, is dropped, and a large one is released so that
  // its sender's send completes (messages of collectives cut short by a failure are never
  // received). Otherwise a sender could wait for this endpoint forever.
  virtual void discard_unexpected() = 0;
  // Only the messages waiting unmatched that a (kAnyPeer, tag, ignore) receive would accept,
  // and only those here now (a large one released as above): a context id given back after
  // its communicator was cut short (ftmpi/src/context_retire.h). Returns how many.
  virtual std::size_t discard_matching(std::uint64_t tag, std::uint64_t ignore) = 0;
  // MPI_Finalize, while this process waits for its own sends to complete: a peer on this
  // machine whose process has exited (after its own MPI_Finalize: no failure was reported) will
  // never take what we still send it (the leftovers of a collective cut short by a failure
  // that reached it after its discard_unexpected); it is marked failed here, so those sends
  // complete with peer_failed. Only peers with sends outstanding are looked at. Returns how
  // many were found gone. (A libfabric peer's exit closes its connection instead.)
  virtual std::size_t release_departed_peers() { return 0; }
  // Sends reported complete whose bytes still wait in this process's memory for their
  // receiver (shm: small messages staged in bulk pages when the ring was full): MPI_Finalize
  // waits for them too, or the receiver would find the region gone.
  virtual bool holds_staged_sends() const { return false; }

  // Waiting for messages without polling (the library's asynchronous progress thread).
  // arm_wakeup(), by the thread driving the endpoint, asks the next message that arrives to
  // wake a waiter; call it, then poll() once more, then wait: a message published after that
  // poll wakes the wait. wait_for_wakeup() may be called from any thread while another drives
  // the endpoint (it touches nothing but the wake-up word); it returns on a message, wake(), or
  // after timeout_ms, and may return early. wake() (any thread) ends a wait at once.
  // shm: a futex word in our region that senders check after each record (one load). Over
  // libfabric (no wait object yet) the wait is a sleep of at most kNetWaitMs.
  static constexpr int kNetWaitMs = 1;
  virtual void arm_wakeup() {}
  virtual void wait_for_wakeup(int timeout_ms);
  virtual void wake() {}

  virtual const std::string& last_error() const = 0;
};

}  // namespace ftmpi::transport
