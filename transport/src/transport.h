// The Endpoint the engine sees: routes every peer to one of two endpoints, both delivering into
// one matcher (MPICH ch4's shm/netmod split): peers on this host to the shm endpoint
// (shm_endpoint.h, our own shared memory), peers on other hosts, or every peer when
// FTMPI_PROVIDER names a libfabric provider, to the libfabric endpoint (net_endpoint.h, which
// loads libfabric only then). Receives, probes and cancels go to the matcher (matcher.h).
//
// The send path, for a newcomer: endpoint.h (Endpoint::send) -> transport.h (Transport::send,
// the route) -> shm_endpoint.cpp (ShmEndpoint::send) -> shm_ring.cpp (Writer::push); or
// -> net_endpoint.cpp (NetEndpoint::send, fi_inject / fi_tsend).
//
// Addresses: [kMagic][host id][machine id][pid][shm length][net length][shm address][libfabric
// address], so a peer's address says which host it is on, which machine's cores it shares
// (namespace hosts of one machine: the same kernel), which process it is and how each
// endpoint reaches it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ftmpi/transport/endpoint.h"
#include "net_endpoint.h"
#include "shm_endpoint.h"
#include "transport_core.h"

namespace ftmpi::transport {

class Transport final : public Endpoint {
 public:
  Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // provider: "shm" (this host only) or a libfabric provider for every peer; false with *err.
  bool init(const std::string& provider, const Knobs& knobs, std::string* err);

  const std::string& provider_name() const override { return provider_; }
  std::vector<std::uint8_t> address() const override { return address_; }
  Status insert_peers(const std::vector<std::vector<std::uint8_t>>& addrs) override;

  using Endpoint::send;
  Status send(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag, void* context,
              bool* done) override {
    if (dst < routes_.size()) {
      if (routes_[dst] == Route::shm) return shm_->send(dst, buf, len, tag, context, done);
      return net_->send(dst, buf, len, tag, context, done);
    }
    if (done != nullptr) *done = false;
    return unknown_peer(dst);
  }
  void set_all_to_all(bool on) override { core_.all_to_all = on; }
  bool try_inject(PeerId dst, const void* buf, std::size_t len, std::uint64_t tag) override {
    return dst < routes_.size() && routes_[dst] == Route::shm &&
           shm_->try_inject(dst, buf, len, tag);
  }
  Status recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore,
              void* context) override {
    return post_recv(src, buf, len, tag, ignore, context, /*standing=*/false);
  }
  Status recv_standing(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                       std::uint64_t ignore, void* context) override {
    return post_recv(src, buf, len, tag, ignore, context, /*standing=*/true);
  }
  bool recv_now(PeerId src, void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore,
                Completion* out) override {
    if (src != kAnyPeer && (src >= routes_.size() || failed_[src] != 0)) return false;
    return core_.matcher.take(src, buf, len, tag, ignore, out);
  }
  Status cancel(void* context) override;
  Status abandon_recv(void* context) override;
  void detach_send(PeerId dst, void* context) override;
  Status cancel_send(PeerId dst, std::uint32_t message, void* context, bool pending) override;
  Status probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context) override;
  Status claim(PeerId src, std::uint64_t tag, std::uint64_t ignore, Completion* out,
               std::uint64_t* message) override;
  Status recv_claimed(std::uint64_t message, void* buf, std::size_t len, void* context) override;
  std::size_t poll(Completion* out, std::size_t max) override {
    std::size_t n = core_.backlog.empty() ? 0 : core_.backlog.drain(out, max);
    if (n < max && shm_ != nullptr) n += shm_->poll(out + n, max - n);
    if (n < max && net_ != nullptr) n += net_->poll(out + n, max - n);
    return n;
  }
  void mark_peer_failed(PeerId peer) override;
  std::uint32_t processes_on_this_machine() const override;
  void discard_unexpected() override { core_.matcher.discard_unexpected(); }
  std::size_t discard_matching(std::uint64_t tag, std::uint64_t ignore) override {
    return core_.matcher.discard_matching(tag, ignore);
  }
  std::size_t release_departed_peers() override;
  bool holds_staged_sends() const override;
  void arm_wakeup() override {
    if (shm_ != nullptr) shm_->arm_wakeup();
  }
  // Only shm can wake us: with a libfabric endpoint too, the wait is cut to kNetWaitMs.
  void wait_for_wakeup(int timeout_ms) override {
    if (net_ != nullptr && timeout_ms > kNetWaitMs) timeout_ms = kNetWaitMs;
    if (shm_ != nullptr) {
      shm_->wait_for_wakeup(timeout_ms);
    } else {
      Endpoint::wait_for_wakeup(timeout_ms);
    }
  }
  void wake() override {
    if (shm_ != nullptr) shm_->wake();
  }
  const std::string& last_error() const override { return core_.last_error; }

 private:
  enum class Route : unsigned char { shm, net };
  Status unknown_peer(PeerId peer);
  Status post_recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                   std::uint64_t ignore, void* context, bool standing);
  // Before a probe: the endpoints hand what has arrived to the matcher.
  void take_in();

  // Declared first, destroyed last: the endpoints return records to its pool.
  TransportCore core_;
  std::unique_ptr<ShmEndpoint> shm_;
  std::unique_ptr<NetEndpoint> net_;
  std::string provider_;
  std::uint64_t host_ = 0;
  std::uint64_t machine_ = 0;
  std::vector<std::uint8_t> address_;
  std::vector<Route> routes_;           // by PeerId
  std::vector<unsigned char> failed_;   // by PeerId: mark_peer_failed was called
  std::vector<std::uint64_t> machine_of_;  // by PeerId: the machine id of its address
};

// This host's identity in addresses: its name and boot id (namespace hosts differ by name).
std::uint64_t this_host_id();
// The machine's identity: its kernel's boot id, shared by the namespace hosts of one machine.
std::uint64_t this_machine_id();

}  // namespace ftmpi::transport
