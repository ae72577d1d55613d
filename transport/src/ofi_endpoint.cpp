// Setup and teardown of the libfabric objects, addressing, and the Endpoint::open factory.
#include <cstdlib>
#include "ofi_endpoint.h"

#include <rdma/fi_cm.h>

#include "provider.h"

namespace ftmpi::transport {

namespace {

std::string describe(const char* call, int rc) {
  return std::string(call) + " failed: " + fi_strerror(rc < 0 ? -rc : rc);
}

}  // namespace

std::unique_ptr<Endpoint> Endpoint::open(const std::string& provider, std::string* err) {
  Knobs knobs = Knobs::from_environment();
  std::string name = resolve_provider(provider, knobs.provider, err);
  if (name.empty()) return nullptr;
  auto ep = std::make_unique<OfiEndpoint>();
  if (!ep->init(name, knobs, err)) return nullptr;
  return ep;
}

bool OfiEndpoint::init(const std::string& provider, const Knobs& knobs, std::string* err) {
  provider_ = provider;
  knobs_ = knobs;
  export_provider_defaults(knobs);
  if (provider == "shm") sweep_stale_shm_regions();
  info_ = query_fabric_info(provider, err);
  if (info_ == nullptr) return false;
  inject_size_ = info_->tx_attr->inject_size;
  inline_max_ = inject_size_;
  // shm in libfabric 1.17 treats an FI_PEEK receive as a real zero-length receive (it never
  // reports "no message" and consumes the message it finds); with software matching, which
  // shm gets, probe() never reaches the provider.
  peek_supported_ = true;

  auto fail = [&](const char* call, int rc) {
    if (err != nullptr) *err = provider + ": " + describe(call, rc);
    return false;
  };
  int rc = fi_fabric(info_->fabric_attr, &fabric_, nullptr);
  if (rc != 0) return fail("fi_fabric", rc);
  rc = fi_domain(fabric_, info_, &domain_, nullptr);
  if (rc != 0) return fail("fi_domain", rc);

  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_TAGGED;
  // No wait object: progress is driven by poll(), and a wait object would make every CQ write
  // signal it (shm cannot wake a remote waiter anyway).
  cq_attr.wait_obj = FI_WAIT_NONE;
  cq_attr.size = 0;  // provider default, sized to the tx+rx queues
  rc = fi_cq_open(domain_, &cq_attr, &cq_, nullptr);
  if (rc != 0) return fail("fi_cq_open", rc);

  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  rc = fi_av_open(domain_, &av_attr, &av_, nullptr);
  if (rc != 0) return fail("fi_av_open", rc);

  rc = fi_endpoint(domain_, info_, &ep_, nullptr);
  if (rc != 0) return fail("fi_endpoint", rc);
  rc = fi_ep_bind(ep_, &av_->fid, 0);
  if (rc != 0) return fail("fi_ep_bind(av)", rc);
  rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV);
  if (rc != 0) return fail("fi_ep_bind(cq)", rc);
  rc = fi_enable(ep_);
  if (rc != 0) return fail("fi_enable", rc);

  std::size_t len = 0;
  rc = fi_getname(&ep_->fid, nullptr, &len);
  if (rc != -FI_ETOOSMALL && rc != 0) return fail("fi_getname", rc);
  address_.resize(len);
  rc = fi_getname(&ep_->fid, address_.data(), &len);
  if (rc != 0) return fail("fi_getname", rc);
  address_.resize(len);
  // shm 1.17 cannot match receives with ignore masks against unexpected messages: match in
  // software (soft_match.h).
  if (provider == "shm") return soft_init(err);
  return true;
}

OfiEndpoint::~OfiEndpoint() {
  // Closing the endpoint first makes libfabric drop every pointer to our op records; the pool
  // (and any orphaned records in it) is freed after that, with the object.
  if (ep_ != nullptr) fi_close(&ep_->fid);
  soft_cleanup();
  if (av_ != nullptr) fi_close(&av_->fid);
  if (cq_ != nullptr) fi_close(&cq_->fid);
  if (domain_ != nullptr) fi_close(&domain_->fid);
  if (fabric_ != nullptr) fi_close(&fabric_->fid);
  if (info_ != nullptr) fi_freeinfo(info_);
}

Status OfiEndpoint::insert_peers(const std::vector<std::vector<std::uint8_t>>& addrs) {
  for (const auto& full : addrs) {
    Peer parsed;
    // shm 1.17 keeps a pointer to the address we insert (its rbmap key is the caller's
    // buffer, compared on every later insert), so the bytes must live as long as the AV.
    av_names_.push_back(soft_ ? ring_parse_address(full, &parsed) : full);
    const std::vector<std::uint8_t>& a = av_names_.back();
    fi_addr_t fa = FI_ADDR_UNSPEC;
    int n = fi_av_insert(av_, a.data(), 1, &fa, 0, nullptr);
    if (n != 1) {
      last_error_ = provider_ + ": " + describe("fi_av_insert", n < 0 ? n : -FI_EINVAL);
      return Status::error;
    }
    const PeerId id = static_cast<PeerId>(peers_.size());
    if (fa < peer_of_addr_.size() && peer_of_addr_[fa] != kAnyPeer) {
      // shm 1.17: inserting the address of an endpoint that is already gone (a fast peer
      // finished and closed it) leaves its slot in shm's peer map free, so the next insert
      // reuses that slot and the AV hands back the gone peer's fi_addr, which from now on
      // reaches this peer. The gone one stays unreachable through libfabric. With rings, what
      // it sent before it finished is waiting in ours (MPI_Finalize does not wait for the
      // receivers), so it is not failed: receives from it still match; sends to it fail.
      const PeerId gone = peer_of_addr_[fa];
      peers_[gone].addr = FI_ADDR_NOTAVAIL;
      if (!peers_[gone].has_ring_address || inbound_ == nullptr) peers_[gone].failed = true;
      peer_of_addr_[fa] = id;
    } else if (fa < kMaxPeerAddr) {
      if (fa >= peer_of_addr_.size()) peer_of_addr_.resize(fa + 1, kAnyPeer);
      peer_of_addr_[fa] = id;
    } else {
      last_error_ = provider_ + ": fi_av_insert returned address " + std::to_string(fa);
      return Status::error;
    }
    parsed.addr = fa;
    if (parsed.has_ring_address) peers_of_token_[parsed.ring_token].push_back(id);
    peers_.push_back(std::move(parsed));
  }
  return Status::ok;
}

PeerId OfiEndpoint::peer_of_source(fi_addr_t src) const {
  return src < peer_of_addr_.size() ? peer_of_addr_[src] : kAnyPeer;
}

}  // namespace ftmpi::transport
