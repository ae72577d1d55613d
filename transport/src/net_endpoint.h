// The libfabric endpoint (netmod): peers on other hosts, or every peer when FTMPI_PROVIDER
// names a libfabric provider. One RDM endpoint with tagged messaging, `tcp;ofi_rxm` by
// default; libfabric itself is loaded on first use (libfabric_api.h).
//
// Matching is the matcher's (matcher.h), as on shm, so wildcard receives span both endpoints:
// the stream of messages and announcements (wire.h) arrives untagged (fi_inject / fi_recv) in a
// pool of bounce receives; a large message's payload follows its announcement at once as a
// tagged send with wire tag kBulkTag | seq (tcp;ofi_rxm moves it by its zero-copy rendezvous),
// and the receiver posts a directed exact receive for it once the announcement matched.
// The stream is untagged so that payloads nobody has asked for yet (thousands, when a sender
// floods a receiver busy elsewhere) sit in rxm's tagged unexpected list only: a bounce repost
// scans the untagged one, whose first entry always matches. With the stream tagged too, every
// repost walked all the waiting payloads (rxm_match_unexp_msg_tag_addr under repost_bounce)
// and such a receiver crawled (ft.suspect.tcp: 1 run in ~30 past its 13 s at load 15).
//
// Sends the provider cannot take right now (-FI_EAGAIN after a short retry) are deferred, per
// peer and in order, and posted from poll(), so send() never waits on the peer.
//
// Files: net_endpoint.cpp (setup, addressing, the send path, large receives),
// net_progress.cpp (CQ reading, bounces, the retry wrapper's slow path, peer failure).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <deque>
#include <string>
#include <vector>

#include "libfabric_api.h"
#include "matcher.h"
#include "net_stalled_peers.h"
#include "transport_core.h"
#include "wire.h"

namespace ftmpi::transport {

class NetEndpoint final : public LargeMessageChannel {
 public:
  explicit NetEndpoint(TransportCore& core) : core_(core) {}
  ~NetEndpoint();
  NetEndpoint(const NetEndpoint&) = delete;
  NetEndpoint& operator=(const NetEndpoint&) = delete;

  // Loads libfabric and opens fabric, domain, AV, CQ and endpoint on `provider`, bound to
  // source_addr when given (a job on several hosts: FTMPI_NET_ADDR); one_host keeps tcp on
  // loopback. False with *err on failure.
  bool init(const std::string& provider, const std::string& source_addr, bool one_host,
            std::string* err);
  const std::string& provider_name() const { return provider_; }
  const std::vector<std::uint8_t>& address() const { return address_; }
  // Peer id reaches the libfabric address addr; false (last_error) when the AV refuses it.
  // pid: its process when it runs on this host, else 0 (net_stalled_peers.h).
  bool add_peer(PeerId id, const std::uint8_t* addr, std::size_t len, pid_t pid);

  Status send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag, void* context,
              bool* done);
  void detach_send(PeerId dst, void* context);  // Endpoint::detach_send
  std::size_t poll(Completion* out, std::size_t max);
  void fail_peer(PeerId peer);

  bool deliver_large(OpRecord* op, const Arrival& a, Completion* c) override;
  void drop_large(const Arrival& a) override;

 private:
  struct Peer {
    fi_addr_t addr = FI_ADDR_UNSPEC;
    bool failed = false;
    OpList pending;   // posted to libfabric: sends to it, payload receives from it
    OpList deferred;  // sends not yet accepted by the provider, oldest first
    std::uint32_t next_seq = 0;
  };
  static constexpr std::size_t kBounceCount = 128;
  // Consumed bounces held back for an idle poll; the rest of the pool stays posted.
  static constexpr std::size_t kIdleBounces = 16;

  // The one retry wrapper: a post returning -FI_EAGAIN drives progress (stashing completions
  // in the backlog) and tries again a few times. Returns -FI_EAGAIN when it gives up.
  template <typename Post>
  ssize_t post_with_retry(Post&& post) {
    ssize_t rc = post();
    if (rc != -FI_EAGAIN) return rc;  // the hot path: no progress
    for (unsigned attempt = 1; attempt < 64 && rc == -FI_EAGAIN; ++attempt) {
      progress_into_backlog();
      rc = post();
    }
    return rc;
  }
  Status post_failed(ssize_t rc, const char* what);
  // One message of our stream (a then b) to dst: 0, -FI_EAGAIN or another -FI_* error.
  ssize_t inject(PeerId dst, const void* a, std::size_t alen, const void* b, std::size_t blen);
  // Posts (or advances) a send; *finished when it completed at once (no CQ entry to come).
  ssize_t post_send(OpRecord* op, bool* finished);
  void complete(OpRecord* op, Status s);  // a send's completion to the backlog, record freed
  bool flush_deferred(Peer& peer);
  // Posts what it can of every peer's deferred sends; a peer whose sends stay refused and
  // whose process is gone (net_stalled_peers.h) has them failed.
  void flush_all_deferred();
  void fail_deferred(PeerId peer);
  // The payload receive of a matched large message; true when *c holds its completion.
  bool post_payload_recv(OpRecord* op, Completion* c);

  // net_progress.cpp
  std::size_t read_cq(Completion* out, std::size_t max);
  std::size_t read_cq_error(Completion* out);
  void progress_into_backlog();
  PeerId peer_of_source(fi_addr_t src) const;
  bool on_bounce(OpRecord* bounce, std::size_t got, fi_addr_t src, Completion* out);
  void repost_bounce(OpRecord* bounce);
  void flush_retries();
  void free_op(OpRecord* op);
  const char* strerror(ssize_t rc) const {
    return fi_->strerror(static_cast<int>(rc < 0 ? -rc : rc));
  }

  TransportCore& core_;
  const LibfabricApi* fi_ = nullptr;
  std::string provider_;
  std::vector<std::uint8_t> address_;
  std::size_t inline_max_ = 0;  // largest payload that goes with its header in one inject
  std::size_t bounce_size_ = 0;
  std::size_t deferred_count_ = 0;

  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_av* av_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_ep* ep_ = nullptr;

  std::vector<Peer> peers_;  // by PeerId; entries of peers not routed here stay unused
  StalledPeers stalled_;     // is a peer on this host whose sends stall still there?
  // fi_addr -> PeerId (FI_AV_TABLE: in insertion order of the routed peers).
  std::vector<PeerId> peer_of_addr_;
  std::deque<std::vector<std::uint8_t>> av_names_;  // every address given to fi_av_insert
  std::vector<unsigned char> bounce_mem_;
  std::vector<unsigned char> stage_;       // header + payload of a small send
  std::vector<OpRecord*> bounce_retry_;    // bounces whose repost saw -FI_EAGAIN
  std::vector<OpRecord*> bounce_idle_;     // consumed bounces waiting for an idle poll
  std::vector<OpRecord*> payload_retry_;   // payload receives not posted yet (-FI_EAGAIN)
};

}  // namespace ftmpi::transport
