// The shm endpoint: peers on this host, through our own shared memory only (no libfabric).
// Small messages and announcements go through the rings of shm_ring.h (a private ring per
// sender and receiver, or the receiver's shared ring); large payloads are copied through the
// sender's bulk slots, read by the receiver with CMA (process_vm_readv, the sender helping with
// process_vm_writev from 128 KiB on), or, when neither can be used, streamed through the ring.
// The wire format is in wire.h; matching is the matcher's (matcher.h).
//
// Files: shm_endpoint.cpp (region, addresses, the send path, polling the rings, peer failure),
// shm_large.cpp (large messages: bulk slots, CMA, the shared copy, FINs, streaming).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "matcher.h"
#include "shm_ring.h"
#include "transport_core.h"
#include "wire.h"

namespace ftmpi::transport {

class ShmEndpoint final : public LargeMessageChannel {
 public:
  // Largest payload sent inline, in one ring record with its header (above: announced).
  // 8 KiB: a 4 KiB message (osu_latency's and many halos' size) inline costs one record and
  // two copies, staged also an announcement, its FIN and page bookkeeping (1.6 -> 1.35 µs);
  // 16 KiB records filled a 64 KiB ring with four messages, and windows of 8 KiB fell back
  // to staging mid-window (11.3 -> 8.9 GB/s), so larger ones stay announced.
  static constexpr std::size_t kInlineMax = 8192 - wire::kHeaderSize;

  explicit ShmEndpoint(TransportCore& core) : core_(core) {}
  ShmEndpoint(const ShmEndpoint&) = delete;
  ShmEndpoint& operator=(const ShmEndpoint&) = delete;
  ~ShmEndpoint();

  // Creates our region (rings, bulk slots); false with *err.
  bool init(std::string* err);
  // [token][pid][uid][magic]: names our region.
  std::vector<std::uint8_t> address() const;
  // Whether addr is a shm endpoint's address (from address()).
  static bool is_address(const std::uint8_t* addr, std::size_t len);
  // Peer id reaches the endpoint at addr (is_address() was true).
  void add_peer(PeerId id, const std::uint8_t* addr);

  // The send path: a small message into the peer's ring is finished when this returns (*done,
  // when done is given); a large one is announced and completes through poll().
  Status send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag, void* context,
              bool* done);
  void detach_send(PeerId dst, void* context);  // Endpoint::detach_send
  // Endpoint::try_inject: send()'s first case alone (a small message into an open private
  // ring, nothing queued before it), or nothing.
  bool try_inject(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag);
  // Drains our rings into the matcher, posts deferred sends and streams; completions to out.
  std::size_t poll(Completion* out, std::size_t max);
  // The purge of peer (Transport::mark_peer_failed): its sends and streaming receives.
  void fail_peer(PeerId peer);
  // Endpoint::abandon_recv for a receive matched already whose payload is not all in: one
  // whose payload waits for our next poll (accept_large; its sender is let go with a FIN) or
  // streams through the ring (stage 2; its later chunks find no receive and are dropped).
  // Completed as canceled at once: the user's buffer is never written after this.
  void abandon_matched_recv(void* context);
  // Sends to peer are outstanding and it has closed its endpoint or exited
  // (Endpoint::release_departed_peers).
  bool departed_with_sends(PeerId peer) const;
  // Endpoint::holds_staged_sends: bulk pages still staged (their FIN not in yet).
  bool holds_staged_sends() const { return bulk_used_ != 0; }
  // Endpoint::arm_wakeup/wait_for_wakeup/wake on our region's doorbell (shm_ring.h).
  void arm_wakeup() { ring::arm(inbound_->doorbell()); }
  void wait_for_wakeup(int timeout_ms) { ring::wait(inbound_->doorbell(), timeout_ms); }
  void wake() { ring::ring(inbound_->doorbell()); }
  // Endpoint::cancel_send for a peer on this host (shm_withdraw.cpp).
  Status cancel_send(PeerId dst, std::uint32_t message, void* context, bool pending);

  bool deliver_large(OpRecord* op, const Arrival& a, Completion* c) override;
  void drop_large(const Arrival& a) override;
  // A receive posted after its large message was announced: kept in matched_, its payload
  // moved by our next poll (never inside MPI_Irecv: see LargeMessageChannel::accept_large).
  bool accept_large(OpRecord* op, const Arrival& a, Completion* c) override;

 private:
  struct Peer {
    bool failed = false;
    OpList pending;   // announced sends (FIN to come), streaming receives
    OpList deferred;  // sends the ring had no room for yet, oldest first
    std::uint32_t next_seq = 0;  // the number of our next send to it (wire.h)
    // How we reach it, decided on the first message and kept (order must not change paths).
    enum class Path : unsigned char { unconnected, ring, shared, gone } path = Path::unconnected;
    std::uint64_t pid = 0, uid = 0, token = 0;
    std::unique_ptr<ring::Region> region;
    ring::Writer writer;        // Path::ring: our private ring in its region
    ring::SharedWriter shared;  // Path::shared: its region's shared ring
  };
  // One ring of our region. Until its sender's token is among the inserted addresses (a
  // replacement's message can arrive before we insert it), its messages come from kAnyPeer.
  struct InboundRing {
    ring::Reader reader;
    bool attached = false;
    std::uint64_t owner = 0;
    PeerId peer = kAnyPeer;
  };

  // Opens dst's region and picks its ring once; peer_failed when the region is gone.
  Status connect(PeerId dst);
  // One record of a then b on dst's stream; false when there is no room now.
  bool push(Peer& p, const void* a, std::size_t alen, const void* b, std::size_t blen) {
    return p.path == Peer::Path::ring ? p.writer.push(a, alen, b, blen)
                                      : p.shared.push(token_, a, alen, b, blen);
  }
  // A small message's record: like push(), but a private ring keeps kSmallReserve bytes free
  // after it, room for the announcements of the messages that find it full (post_small).
  static constexpr std::size_t kSmallReserve = 4096;
  bool push_small(Peer& p, const void* a, std::size_t alen, const void* b, std::size_t blen) {
    return p.path == Peer::Path::ring ? p.writer.push(a, alen, b, blen, nullptr, 0, kSmallReserve)
                                      : p.shared.push(token_, a, alen, b, blen);
  }
  // push(), driving our own rings meanwhile for a little while when the ring is full.
  bool push_briefly(Peer& p, const void* a, std::size_t alen, const void* b, std::size_t blen);
  // What became of a send handed to the stream: pushed (whole into the ring: done, the
  // record is free), staged (copied into our bulk pages and announced: done for the user, the
  // record stays in pending, orphaned, until the FIN frees the pages), announced (a large one
  // the receiver reads from the user's buffer: its FIN completes it), deferred (no room now;
  // bulk pages it got are kept).
  enum class Posted : unsigned char { pushed, staged, announced, deferred };
  // Starts (or continues) a send: small ones through post_small, large ones announced.
  Posted post(OpRecord* op, bool briefly);
  // A small message into the ring, or, when the ring is full, staged in bulk pages.
  Posted post_small(OpRecord* op, bool briefly);
  void finish_send(OpRecord* op, Status s);  // its completion to the backlog, record freed
  bool flush_deferred(Peer& p);
  void free_op(OpRecord* op);  // gives a bulk slot back with the record
  void progress_into_backlog();

  // Receiving (shm_endpoint.cpp): one record of a ring from source.
  bool on_record(const unsigned char* p, std::size_t got, PeerId source, bool private_ring,
                 Completion* out);
  std::size_t poll_ring(InboundRing& r, bool shared, Completion* out, std::size_t max);
  bool ring_attach(std::size_t index);
  PeerId peer_of_token(std::uint64_t token) const;
  void send_fin(PeerId peer, std::uint32_t seq, std::uint64_t status);
  bool on_fin(PeerId peer, std::uint32_t seq, std::uint64_t status, Completion* c);
  // cancel_send's two ends (shm_withdraw.cpp): the receiver drops and answers, the sender
  // takes the answer.
  void on_withdraw(PeerId peer, std::uint32_t seq);
  bool on_withdraw_answer(PeerId peer, std::uint32_t seq, bool withdrawn, Completion* c);
  OpRecord* find_pending(PeerId peer, OpKind kind, std::uint32_t seq, std::uint8_t stage);

  // Large messages (shm_large.cpp).
  bool bulk_stage(OpRecord* op);  // copies op's payload into free bulk pages, if any
  // A large send that goes by CMA although it would fit in bulk pages: half of an exchange,
  // or from FTMPI_SHM_DIRECT_MIN any (shm_large.cpp says when and why).
  bool send_by_cma(const OpRecord& op);
  void bulk_release(OpRecord* op);
  static std::size_t bulk_pages_of(std::size_t len);
  const unsigned char* bulk_payload(const Arrival& a);
  int cma_read_shared(const Arrival& a, void* dst);
  void help_copy(PeerId peer, std::uint32_t seq, const unsigned char* body);
  // Pushes as much of a streamed send as the ring takes; true when all of it is out.
  bool stream_send(OpRecord* op);
  bool on_chunk(PeerId peer, std::uint32_t seq, const unsigned char* body, std::size_t len,
                Completion* c);

  TransportCore& core_;
  // A receiver answered a CMA announcement with NAK (it cannot read our memory): exchanges
  // are staged again.
  bool cma_refused_ = false;
  std::vector<Peer> peers_;  // by PeerId; entries of peers not on this host stay unused
  std::uint64_t token_ = 0;
  std::uint64_t pid_ = 0;
  std::unique_ptr<ring::Region> inbound_;
  std::vector<InboundRing> in_rings_;  // our private rings, as they get claimed
  InboundRing shared_in_;
  std::size_t ring_cursor_ = 0;  // where the next poll starts (fairness among senders)
  bool in_poll_ = false;
  std::unordered_map<std::uint64_t, std::vector<PeerId>> peers_of_token_;
  std::size_t deferred_count_ = 0;
  std::size_t streaming_count_ = 0;  // sends whose payload goes through the ring (kFinNak)
  struct PendingFin {
    PeerId peer;
    std::uint32_t seq;
    std::uint64_t status;
  };
  std::vector<PendingFin> fin_retry_;  // FINs the ring had no room for yet
  std::uint64_t split_generation_ = 0;  // of our last Split offer
  std::vector<bool> bulk_busy_;         // our bulk pages in use (staged, FIN not yet in)
  std::size_t bulk_used_ = 0;           // ... how many
  // Receives matched while being posted whose payload is not moved yet (accept_large), in
  // matching order: poll() moves them before it reads the rings.
  struct MatchedLarge {
    OpRecord* op;
    Arrival arrival;
  };
  std::deque<MatchedLarge> matched_;
  // Ends op with `status` from `source` and frees its record: an abandoned receive
  // (abandon_matched_recv, canceled), an operation on a dead peer (peer_failed).
  void complete_ended(OpRecord* op, PeerId source, Status status);
  // Senders' regions mapped to copy bulk payloads out, by token.
  std::unordered_map<std::uint64_t, std::unique_ptr<ring::Region>> bulk_sources_;
  // Failed peers' regions, oldest first, each unmapped by the first poll kRetiredUnmapDelay
  // after its failure, or sooner when more than kRetiredMax wait (fail_peer).
  struct Retired {
    std::unique_ptr<ring::Region> region;
    std::chrono::steady_clock::time_point at;
  };
  std::deque<Retired> retired_;
  void retire(std::unique_ptr<ring::Region> region);
  void unmap_retired_when_due();
};

}  // namespace ftmpi::transport
