// Endpoint over one libfabric RDM endpoint with tagged messaging. Large messages rely on the
// provider's own zero-copy path (shm: CMA; tcp;ofi_rxm: its rendezvous), measured to reach the
// fi_pingpong bandwidth (see transport/README.md).
//
// Sends the provider cannot take right now (-FI_EAGAIN after a short retry: a full queue, or
// shm waiting for a peer that has not progressed yet) are deferred, per peer and in order, and
// posted from poll(); so send() never waits on the peer, as MPI_Isend must not. Receives and
// probes retry (driving progress) until FTMPI_TRANSPORT_RETRY_TIMEOUT.
//
// Over shm, matching is done here, not by the provider (libfabric 1.17 shm mismatches receives
// with ignore masks against unexpected messages): see soft_match.h.
//
// On shm the small-message stream (small messages, announcements, FINs) goes through our own
// shared-memory rings (shm_ring.h) when both ends have them; libfabric then carries only the
// rare medium payloads and the no-CMA fallback, so its CQ is read only while such an operation
// is outstanding (and every 16th poll, for senders that could not get a ring).
//
// Files: ofi_endpoint.cpp (setup, addressing), ofi_endpoint_ops.cpp (send/recv/probe/cancel),
// ofi_endpoint_progress.cpp (CQ reading, retry on -FI_EAGAIN, peer failure),
// ofi_endpoint_soft.cpp (software matching), ofi_endpoint_ring.cpp (the rings).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <deque>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "completion_backlog.h"
#include "ftmpi/transport/endpoint.h"
#include "knobs.h"
#include "op_record.h"
#include "shm_ring.h"
#include "soft_match.h"

namespace ftmpi::transport {

class OfiEndpoint final : public Endpoint {
 public:
  OfiEndpoint() = default;
  ~OfiEndpoint() override;
  OfiEndpoint(const OfiEndpoint&) = delete;
  OfiEndpoint& operator=(const OfiEndpoint&) = delete;

  // Opens fabric, domain, AV, CQ and endpoint; false (with *err) on failure.
  bool init(const std::string& provider, const Knobs& knobs, std::string* err);

  const std::string& provider_name() const override { return provider_; }
  std::vector<std::uint8_t> address() const override { return address_; }
  Status insert_peers(const std::vector<std::vector<std::uint8_t>>& addrs) override;

  using Endpoint::send;
  Status send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag, void* context,
              bool* done) override;
  Status recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore,
              void* context) override;
  Status cancel(void* context) override;
  Status probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context) override;
  std::size_t poll(Completion* out, std::size_t max) override;
  void mark_peer_failed(PeerId peer) override;
  void discard_unexpected() override;
  const std::string& last_error() const override { return last_error_; }

 private:
  struct Peer {
    fi_addr_t addr = FI_ADDR_UNSPEC;
    bool failed = false;
    OpList pending;   // posted: sends to it, receives and probes directed at it
    OpList deferred;  // sends not yet accepted by the provider, oldest first
    std::uint32_t next_seq = 0;  // software matching: next large message's sequence number
    // Our ring into its region: decided on the first message and kept (order must not change
    // paths). has_ring_address: its address named a region.
    enum class RingState : unsigned char { untried, ring, libfabric } ring_state =
        RingState::untried;
    bool has_ring_address = false;
    std::uint64_t ring_pid = 0, ring_uid = 0, ring_token = 0;
    std::unique_ptr<ring::Region> region;
    ring::Writer writer;
  };
  // One of our inbound rings. Until its owner's token is among the inserted addresses (a
  // replacement's hello arrives before we look its address up), its messages come from
  // kAnyPeer, as libfabric reports an unknown sender.
  struct InboundRing {
    ring::Reader reader;
    bool attached = false;
    std::uint64_t owner = 0;
    PeerId peer = kAnyPeer;
  };
  // A message on the small-message stream, as software matching sees it.
  struct Arrival {
    PeerId source = kAnyPeer;
    std::uint64_t tag = 0;
    bool announced = false;
    bool cma = false;
    std::uint32_t seq = 0;
    std::size_t len = 0;
    std::uint64_t addr = 0;
    std::uint64_t pid = 0;
    bool split_ok = false;  // came through our ring: the sender can take a Split offer
    bool bulk = false;      // the payload waits in slot `addr` of the sender's region
    std::uint64_t token = 0;  // ... which this names (with pid)
    const unsigned char* data = nullptr;
  };
  enum class Retry { briefly, until_timeout };

  // Checks src/dst for a new operation; fills last_error_ when it is not usable.
  Status check_peer(PeerId peer, bool allow_any);
  OpRecord* start_op(OpKind kind, PeerId peer, void* context);
  void release_op(OpRecord* op);
  void free_op(OpRecord* op);  // back to the pool (with its scratch buffer), no list upkeep
  OpList& list_for(PeerId peer) { return peer == kAnyPeer ? wildcard_ : peers_[peer].pending; }
  // A post returned rc != 0: describe it, release the record, and say what the caller gets.
  Status fail_post(OpRecord* op, ssize_t rc, const char* what);
  Status post_failed(ssize_t rc, const char* what);

  // The one retry wrapper: a post returning -FI_EAGAIN drives progress (stashing completions
  // in the backlog) and tries again: a few times (briefly), or yielding the CPU after a while
  // until the retry timeout. Returns -FI_EAGAIN when it gives up.
  template <typename Post>
  ssize_t post_with_retry(Retry policy, Post&& post) {
    ssize_t rc = post();
    if (rc != -FI_EAGAIN) return rc;  // the hot path: no clock read, no progress
    return retry_slow_path(policy, post);
  }
  template <typename Post>
  ssize_t retry_slow_path(Retry policy, Post& post);
  // Yields the CPU and enforces the retry timeout; *started_s < 0 until the clock is started.
  bool retry_should_give_up(Retry policy, unsigned attempt, double* started_s);

  // Small sends without a record: fi_tinject (software matching: with a header).
  ssize_t inject(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag);
  // Software matching: one message on dst's small-message stream, made of a then b: its ring,
  // or fi_tinject with kMsgTag. 0, -FI_EAGAIN (full) or another -FI_* error.
  ssize_t send_small(PeerId dst, const void* a, std::size_t alen, const void* b,
                     std::size_t blen);
  // Posts (or advances) a send; *finished when it completed at once (no CQ entry to come).
  ssize_t post_send(OpRecord* op, bool* finished);
  void complete_send_now(OpRecord* op);
  void defer_send(Peer& peer, OpRecord* op);
  // Posts a peer's deferred sends in order; true when none is left.
  bool flush_deferred(Peer& peer);
  void flush_all_deferred();

  // Reads one batch from the CQ and converts it; returns completions written to out.
  std::size_t read_cq(Completion* out, std::size_t max);
  std::size_t read_cq_error(Completion* out);
  void progress_into_backlog();
  PeerId peer_of_source(fi_addr_t src) const;

  // Rings (shm), ofi_endpoint_ring.cpp.
  bool ring_init(std::string* err);
  // Splits a peer's address into libfabric's part and our ring trailer (filled into *peer).
  std::vector<std::uint8_t> ring_parse_address(const std::vector<std::uint8_t>& addr,
                                               Peer* peer);
  ring::Writer* ring_writer(PeerId dst);
  // Drains our inbound rings through soft_message(); returns completions written to out.
  std::size_t poll_rings(Completion* out, std::size_t max);
  // Attaches a newly claimed ring (false while its owner is not written yet) and looks for the
  // peer that owns it.
  bool ring_attach(std::size_t index);
  void ring_resolve(InboundRing& r);
  // The copy shared between the two ends of a large message (shm_ring.h, split): the receiver
  // reads `a`'s payload into dst with the sender's help when it can; 0 or an errno (ESRCH: the
  // sender is gone).
  int cma_read_shared(const Arrival& a, void* dst);
  // The sender's part: a Split offer for its announced send `seq` to `peer`.
  void help_copy(PeerId peer, std::uint32_t seq, const unsigned char* body);
  // Bulk slots (shm_ring.h): stages op's payload in a free slot of ours (false: none free or
  // too large); and, receiving, where a bulk message's payload is (nullptr: not reachable).
  bool bulk_stage(OpRecord* op);
  const unsigned char* bulk_payload(const Arrival& a);
  // A post that will produce a CQ entry: count it (rc == 0) so that poll() reads the CQ.
  ssize_t counted(ssize_t rc) {
    if (rc == 0) ++fi_outstanding_;
    return rc;
  }
  // Whether this poll must also read libfabric's CQ.
  bool cq_poll_due() {
    return !ring_only_inbound_ || fi_outstanding_ != 0 || (++poll_tick_ & 15u) == 0;
  }

  // Software matching (shm), ofi_endpoint_soft.cpp.
  bool soft_init(std::string* err);
  Status soft_recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                   std::uint64_t ignore, void* context);
  Status soft_probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context);
  Status soft_cancel(void* context);
  // A bounce receive completed: soft_message() on it, then the bounce goes back.
  bool soft_arrival(OpRecord* bounce, std::size_t got, fi_addr_t src, Completion* out);
  // One message of the small-message stream (got bytes at p, from source): match or queue it,
  // or act on an announcement/FIN. Returns whether a user completion was written to *out.
  bool soft_message(const unsigned char* p, std::size_t got, PeerId source, Completion* out);
  // A receive matched a message: true when *c now holds its completion (the record is freed);
  // false when the large payload's receive is posted (or queued for posting).
  bool soft_deliver(OpRecord* op, const Arrival& a, Completion* c);
  bool post_bulk_recv(OpRecord* op, Completion* c);
  void send_fin(PeerId peer, std::uint32_t seq, std::uint64_t status);
  // A FIN for one of our announced sends: true when *c now holds its completion.
  bool handle_fin(PeerId peer, std::uint32_t seq, std::uint64_t status, Completion* c);
  void repost_bounce(OpRecord* bounce);
  // A consumed bounce goes back to the provider later, on the next poll that finds nothing
  // (or once kIdleBounces have piled up), so that reposting is off the path from a message's
  // arrival to the caller's next send.
  void repost_when_idle(OpRecord* bounce) {
    bounce_idle_.push_back(bounce);
    if (bounce_idle_.size() >= soft::kIdleBounces) flush_idle_bounces();
  }
  void flush_idle_bounces();
  void flush_soft_retries();
  void soft_fail_peer(PeerId peer);
  void soft_cleanup();

  std::string provider_;
  Knobs knobs_;
  std::string last_error_;
  std::vector<std::uint8_t> address_;
  std::size_t inject_size_ = 0;
  // Largest send that goes without a CQ entry: inject_size_, or with software matching the
  // largest payload that fits an inject with its header.
  std::size_t inline_max_ = 0;
  bool peek_supported_ = true;
  std::size_t deferred_count_ = 0;

  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_av* av_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_ep* ep_ = nullptr;

  std::vector<Peer> peers_;
  std::deque<std::vector<std::uint8_t>> av_names_;  // every address given to fi_av_insert
  // fi_addr -> PeerId (FI_AV_TABLE: normally the identity; see insert_peers for shm's exception).
  std::vector<PeerId> peer_of_addr_;
  static constexpr fi_addr_t kMaxPeerAddr = fi_addr_t{1} << 24;
  OpList wildcard_;
  OpPool pool_;
  CompletionBacklog backlog_;

  // Software matching (shm); see soft_match.h.
  bool soft_ = false;
  bool discard_ = false;  // discard_unexpected() was called
  std::size_t bounce_size_ = 0;
  std::vector<unsigned char> bounce_mem_;
  std::vector<unsigned char> stage_;  // header + payload of a small send
  OpList posted_;                     // user receives not matched yet, in posting order
  std::list<soft::Unexpected> unexpected_;  // in arrival order
  std::list<soft::Unexpected> spare_unexpected_;
  std::vector<OpRecord*> bounce_retry_;  // bounces whose repost saw -FI_EAGAIN
  std::vector<OpRecord*> bounce_idle_;   // consumed bounces waiting for an idle poll
  std::vector<OpRecord*> bulk_retry_;    // large-payload receives not posted yet (-FI_EAGAIN)
  std::vector<soft::PendingFin> fin_retry_;  // FINs not sent yet (-FI_EAGAIN)
  std::uint64_t my_pid_ = 0;

  // Rings (shm_ring.h); see ofi_endpoint_ring.cpp.
  std::unique_ptr<ring::Region> inbound_;
  std::uint64_t ring_token_ = 0;
  std::uint64_t split_generation_ = 0;  // of our last Split offer
  std::vector<bool> bulk_busy_;          // our bulk slots in use (staged, FIN not yet in)
  // Senders' regions mapped to copy bulk payloads out, by token.
  std::unordered_map<std::uint64_t, std::unique_ptr<ring::Region>> bulk_sources_;
  std::vector<InboundRing> in_rings_;
  std::size_t ring_cursor_ = 0;  // where the next poll starts (fairness among senders)
  std::unordered_map<std::uint64_t, std::vector<PeerId>> peers_of_token_;
  bool in_ring_poll_ = false;
  // Every message to us travels by ring (we have a region and no peer lacks one): the CQ only
  // needs reading for operations we posted to libfabric.
  bool ring_only_inbound_ = false;
  std::size_t fi_outstanding_ = 0;  // posted to libfabric, CQ entry to come (not bounces)
  unsigned poll_tick_ = 0;
};

template <typename Post>
ssize_t OfiEndpoint::retry_slow_path(Retry policy, Post& post) {
  double started_s = -1.0;
  for (unsigned attempt = 1;; ++attempt) {
    progress_into_backlog();
    ssize_t rc = post();
    if (rc != -FI_EAGAIN) return rc;
    if (retry_should_give_up(policy, attempt, &started_s)) return -FI_EAGAIN;
  }
}

}  // namespace ftmpi::transport
