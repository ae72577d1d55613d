// The Transport: opening, addresses and routing, the receive side's entry into the matcher,
// and the one peer-failure path.
#include "transport.h"

#include <time.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "ftmpi_proto/wire.h"
#include "provider.h"

namespace ftmpi::transport {

namespace {

// A process's address, as published through PMIx (written and read with the protocol library's
// codec): u64 magic | u64 host id | u64 machine id | u32 pid | u32 shm length | u32 net length
// | shm bytes | net bytes. The pid lets a peer on the same host see that the process is gone
// (net_stalled_peers.h).
constexpr std::uint64_t kMagic = 0x33524441544d5446ull;  // "FTMADR3"

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string boot_id() {
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string id;
  return std::getline(boot, id) ? id : std::string();
}

}  // namespace

std::uint64_t this_host_id() {
  char name[256] = {};
  (void)gethostname(name, sizeof name - 1);
  const std::string boot = boot_id();
  return fnv1a(boot.empty() ? std::string(name) : std::string(name) + "/" + boot);
}

// The running kernel: hosts that are network namespaces (or containers) of one machine share
// it, and with it the machine's cores; real hosts of a cluster each have their own.
std::uint64_t this_machine_id() {
  const std::string boot = boot_id();
  return boot.empty() ? this_host_id() : fnv1a("boot/" + boot);
}

std::uint32_t Transport::processes_on_this_machine() const {
  std::uint32_t n = 0;
  for (std::size_t p = 0; p < machine_of_.size(); ++p) n += machine_of_[p] == machine_ && failed_[p] == 0 ? 1 : 0;
  return n;
}

std::unique_ptr<Endpoint> Endpoint::open(const std::string& provider, std::string* err) {
  Knobs knobs = Knobs::from_environment();
  auto t = std::make_unique<Transport>();
  if (!t->init(resolve_provider(provider, knobs.provider), knobs, err)) return nullptr;
  return t;
}

bool Transport::init(const std::string& provider, const Knobs& knobs, std::string* err) {
  core_.knobs = knobs;
  host_ = this_host_id();
  machine_ = this_machine_id();
  std::vector<std::uint8_t> shm_addr, net_addr;
  const bool one_host = knobs.nhosts <= 1;
  // shm for this host; libfabric for every peer (FTMPI_PROVIDER names one) or, in a job on
  // several hosts, for the peers on the others. One host with shm: libfabric is never loaded.
  std::string net_provider;
  if (provider == "shm") {
    shm_ = std::make_unique<ShmEndpoint>(core_);
    if (!shm_->init(err)) return false;
    shm_addr = shm_->address();
    provider_ = "shm";
    if (!one_host) net_provider = resolve_provider("tcp", "");
  } else {
    net_provider = provider;
  }
  if (!net_provider.empty()) {
    net_ = std::make_unique<NetEndpoint>(core_);
    if (!net_->init(net_provider, knobs.net_addr, one_host, err)) return false;
    net_addr = net_->address();
    provider_ = shm_ != nullptr ? "shm+" + net_->provider_name() : net_->provider_name();
  }
  proto::WireWriter w;
  w.u64(kMagic);
  w.u64(host_);
  w.u64(machine_);
  w.u32(static_cast<std::uint32_t>(getpid()));
  w.u32(static_cast<std::uint32_t>(shm_addr.size()));
  w.u32(static_cast<std::uint32_t>(net_addr.size()));
  w.raw(shm_addr.data(), shm_addr.size());
  w.raw(net_addr.data(), net_addr.size());
  address_ = std::move(w.bytes());
  return true;
}

Status Transport::insert_peers(const std::vector<std::vector<std::uint8_t>>& addrs) {
  for (const auto& a : addrs) {
    const auto id = static_cast<PeerId>(routes_.size());
    proto::WireReader r(a);
    const std::uint64_t magic = r.u64();
    const std::uint64_t host = r.u64();
    const std::uint64_t machine = r.u64();
    const std::uint32_t pid = r.u32();
    const std::uint32_t shm_len = r.u32();
    const std::uint32_t net_len = r.u32();
    if (r.status() != proto::ProtoStatus::ok || magic != kMagic ||
        r.remaining() != std::size_t{shm_len} + net_len) {
      core_.last_error = "peer " + std::to_string(id) + ": not a transport address";
      return Status::error;
    }
    // The two addresses are the rest of the buffer; the endpoints read them in place.
    const std::uint8_t* shm_addr = a.data() + (a.size() - r.remaining());
    const std::uint8_t* net_addr = shm_addr + shm_len;
    if (shm_ != nullptr && host == host_ && ShmEndpoint::is_address(shm_addr, shm_len)) {
      shm_->add_peer(id, shm_addr);
      routes_.push_back(Route::shm);
    } else if (net_ != nullptr && net_len != 0) {
      // Same host id (name and boot): the same kernel and pid namespace, so its pid is
      // meaningful here.
      const pid_t local_pid = host == host_ ? static_cast<pid_t>(pid) : 0;
      if (!net_->add_peer(id, net_addr, net_len, local_pid)) return Status::error;
      routes_.push_back(Route::net);
    } else {
      core_.last_error = "peer " + std::to_string(id) +
                         (host == host_ ? " uses another provider (FTMPI_PROVIDER differs)"
                                        : " is on another host, and this process has no "
                                          "libfabric endpoint");
      return Status::error;
    }
    failed_.push_back(0);
    machine_of_.push_back(machine);
  }
  return Status::ok;
}

Status Transport::unknown_peer(PeerId peer) {
  core_.last_error = "peer " + std::to_string(peer) + " was never inserted";
  return Status::error;
}

Status Transport::post_recv(PeerId src, void* buf, std::size_t len, std::uint64_t tag,
                            std::uint64_t ignore, void* context, bool standing) {
  if (src != kAnyPeer) {
    if (src >= routes_.size()) return unknown_peer(src);
    if (failed_[src] != 0) return Status::peer_failed;
  }
  core_.matcher.post_recv(src, buf, len, tag, ignore, context, standing);
  return Status::ok;
}

Status Transport::probe(PeerId src, std::uint64_t tag, std::uint64_t ignore, void* context) {
  if (src != kAnyPeer) {
    if (src >= routes_.size()) return unknown_peer(src);
    if (failed_[src] != 0) return Status::peer_failed;
  }
  take_in();
  core_.matcher.probe(src, tag, ignore, context);
  return Status::ok;
}

// A probe asks what has arrived: let the endpoints hand their arrivals to the matcher first.
void Transport::take_in() {
  Completion batch[16];
  std::size_t n = shm_ != nullptr ? shm_->poll(batch, 16) : 0;
  if (net_ != nullptr) n += net_->poll(batch + n, 16 - n);
  for (std::size_t i = 0; i < n; ++i) core_.backlog.push(batch[i]);
}

Status Transport::claim(PeerId src, std::uint64_t tag, std::uint64_t ignore, Completion* out,
                        std::uint64_t* message) {
  if (src != kAnyPeer) {
    if (src >= routes_.size()) return unknown_peer(src);
    if (failed_[src] != 0) return Status::peer_failed;
  }
  take_in();
  return core_.matcher.claim(src, tag, ignore, out, message) ? Status::ok : Status::no_message;
}

Status Transport::recv_claimed(std::uint64_t message, void* buf, std::size_t len, void* context) {
  if (core_.matcher.receive_claimed(message, buf, len, context)) return Status::ok;
  core_.last_error = "no claimed message " + std::to_string(message);
  return Status::error;
}

Status Transport::cancel(void* context) {
  // Not pending any more (matched, or not a receive): its Completion says what happened.
  (void)core_.matcher.cancel(context);
  return Status::ok;
}

Status Transport::abandon_recv(void* context) {
  if (!core_.matcher.cancel(context) && shm_ != nullptr) shm_->abandon_matched_recv(context);
  return Status::ok;
}

void Transport::detach_send(PeerId dst, void* context) {
  if (dst >= routes_.size()) return;
  if (routes_[dst] == Route::shm) {
    shm_->detach_send(dst, context);
  } else if (net_ != nullptr) {
    net_->detach_send(dst, context);
  }
}

Status Transport::cancel_send(PeerId dst, std::uint32_t message, void* context, bool pending) {
  if (dst >= routes_.size()) return unknown_peer(dst);
  if (routes_[dst] == Route::shm) return shm_->cancel_send(dst, message, context, pending);
  // libfabric: the provider has a large message's payload in its rendezvous, which we cannot
  // take back, and small ones are not numbered: never canceled (MPI allows it).
  if (!pending) {
    Completion c;
    c.context = context;
    c.source = dst;
    core_.backlog.push(c);
  }
  return Status::ok;
}

bool Transport::holds_staged_sends() const {
  return shm_ != nullptr && shm_->holds_staged_sends();
}

std::size_t Transport::release_departed_peers() {
  if (shm_ == nullptr) return 0;
  std::size_t gone = 0;
  for (PeerId p = 0; p < routes_.size(); ++p) {
    if (routes_[p] != Route::shm || failed_[p] != 0 || !shm_->departed_with_sends(p)) continue;
    mark_peer_failed(p);
    ++gone;
  }
  return gone;
}

void Transport::mark_peer_failed(PeerId peer) {
  if (peer >= routes_.size() || failed_[peer] != 0) return;
  failed_[peer] = 1;
  // Mark, then purge everything that waits for the peer (UCX's ucp_ep_set_failed): receives
  // directed at it in the matcher, and the route's sends and payload transfers.
  core_.matcher.fail_peer(peer);
  if (routes_[peer] == Route::shm) {
    shm_->fail_peer(peer);
  } else {
    net_->fail_peer(peer);
  }
}

// A provider without a wait object: a short sleep, then the caller polls again.
void Endpoint::wait_for_wakeup(int timeout_ms) {
  const int ms = timeout_ms < kNetWaitMs ? timeout_ms : kNetWaitMs;
  timespec ts{0, static_cast<long>(ms) * 1000000L};
  nanosleep(&ts, nullptr);
}

}  // namespace ftmpi::transport
