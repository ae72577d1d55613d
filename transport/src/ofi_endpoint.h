// Endpoint over one libfabric RDM endpoint with tagged messaging. Large messages rely on the
// provider's own zero-copy path (shm: CMA; tcp;ofi_rxm: its rendezvous), measured to reach the
// fi_pingpong bandwidth (see transport/README.md).
//
// Sends the provider cannot take right now (-FI_EAGAIN after a short retry: a full queue, or
// shm waiting for a peer that has not progressed yet) are deferred, per peer and in order, and
// posted from poll(); so send() never waits on the peer, as MPI_Isend must not. Receives and
// probes retry (driving progress) until FTMPI_TRANSPORT_RETRY_TIMEOUT.
//
// Files: ofi_endpoint.cpp (setup, addressing), ofi_endpoint_ops.cpp (send/recv/probe/cancel),
// ofi_endpoint_progress.cpp (CQ reading, retry on -FI_EAGAIN, peer failure).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <string>
#include <vector>

#include "completion_backlog.h"
#include "ftmpi/transport/endpoint.h"
#include "knobs.h"
#include "op_record.h"

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

  Status send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag,
              void* context) override;
  Status recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore,
              void* context) override;
  Status cancel(void* context) override;
  Status probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context) override;
  std::size_t poll(Completion* out, std::size_t max) override;
  void mark_peer_failed(PeerId peer) override;
  const std::string& last_error() const override { return last_error_; }

 private:
  struct Peer {
    fi_addr_t addr = FI_ADDR_UNSPEC;
    bool failed = false;
    OpList pending;   // posted: sends to it, receives and probes directed at it
    OpList deferred;  // sends not yet accepted by the provider, oldest first
  };
  enum class Retry { briefly, until_timeout };

  // Checks src/dst for a new operation; fills last_error_ when it is not usable.
  Status check_peer(PeerId peer, bool allow_any);
  OpRecord* start_op(OpKind kind, PeerId peer, void* context);
  void release_op(OpRecord* op);
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

  ssize_t post_send(OpRecord* op);
  void defer_send(Peer& peer, OpRecord* op);
  // Posts a peer's deferred sends in order; true when none is left.
  bool flush_deferred(Peer& peer);
  void flush_all_deferred();

  // Reads one batch from the CQ and converts it; returns completions written to out.
  std::size_t read_cq(Completion* out, std::size_t max);
  std::size_t read_cq_error(Completion* out);
  void progress_into_backlog();
  PeerId peer_of_source(fi_addr_t src) const;

  std::string provider_;
  Knobs knobs_;
  std::string last_error_;
  std::vector<std::uint8_t> address_;
  std::size_t inject_size_ = 0;
  bool peek_supported_ = true;
  std::size_t deferred_count_ = 0;

  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_av* av_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_ep* ep_ = nullptr;

  std::vector<Peer> peers_;
  OpList wildcard_;
  OpPool pool_;
  CompletionBacklog backlog_;
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
