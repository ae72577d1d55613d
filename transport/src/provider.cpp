#include "provider.h"

#include <arpa/inet.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <cstdlib>
#include <cstring>

namespace ftmpi::transport {

namespace {
constexpr std::size_t kWantedInjectSize = 4096;
// kWantedInjectSize plus room for rxm's packet header (rxm's eager limit is the buffer size
// minus that header; inject must fit below it).
constexpr char kRxmBufferSize[] = "4608";
}  // namespace

std::string resolve_provider(const std::string& requested, const std::string& env_value) {
  const std::string name = requested.empty() ? env_value : requested;
  if (name.empty() || name == "shm") return "shm";
  if (name == "tcp") return "tcp;ofi_rxm";
  return name;
}

void export_provider_defaults(const std::string& provider, bool one_host) {
  // One host: keep tcp on loopback, so jobs work without (or inside) a configured network.
  // Several hosts: the endpoint binds to FTMPI_NET_ADDR (FI_SOURCE), which an interface
  // filter of lo would hide.
  if (one_host) setenv("FI_TCP_IFACE", "lo", /*overwrite=*/0);
  // "tcp;ofi_rxm" is two providers layered; the filter lists them with commas.
  std::string filter = provider;
  for (char& c : filter) {
    if (c == ';') c = ',';
  }
  setenv("FI_PROVIDER", filter.c_str(), /*overwrite=*/0);
  // rxm 1.17 mishandles a receive shorter than its message: with dynamic receive buffers the
  // tcp connection fails ("dynamically provided rbuf is too small"), and in the SAR protocol
  // (16 KiB..128 KiB) it crashes. Without both, truncation is reported and the connection
  // lives on; SAR's range goes through rxm's zero-copy rendezvous instead.
  setenv("FI_OFI_RXM_ENABLE_DYN_RBUF", "0", /*overwrite=*/0);
  // rxm's buffer pools grow by 1024 buffers of FI_OFI_RXM_BUFFER_SIZE (default 16 KiB): the
  // first send of a process maps and initialises 17 MB of send buffers, its first connection
  // as much of receive buffers. A REBUILD's agreement is the first tcp send of most ranks
  // (collectives cross hosts through one rank per host), and those 17 MB cost 7-20 ms each on
  // the repair's path (strace: mmap of 17305600 bytes, then 20 ms without a system call before
  // the sendmsg, load ~12). Buffers just big enough for our inject size (kWantedInjectSize
  // plus rxm's header) make each pool 4.9 MB: 3-host REBUILD with a spare, 8 ranks, 9 runs
  // alternating, load ~15: 71.7 -> 23.3 ms median (8 KiB buffers: 35.1). Messages between
  // that size and 16 KiB take rxm's rendezvous instead of its eager copy; our own large path
  // (announce, then the payload) already starts above the inject size.
  setenv("FI_OFI_RXM_BUFFER_SIZE", kRxmBufferSize, /*overwrite=*/0);
  // The SAR range (buffer size .. SAR limit) stays empty: rendezvous above the buffer size.
  setenv("FI_OFI_RXM_SAR_LIMIT", kRxmBufferSize, /*overwrite=*/0);
  // rxm preallocates its message buffers (16 KiB each) for 128 receives and 128 sends per
  // connection: 77 MB resident per process at open. A killed process's exit unmaps them
  // before its daemon can reap it, which delays the failure report: kill to reaped 33 ms
  // (load ~20) against 12 ms with 32 each (25 MB). Our own queues stay ahead of it (128
  // bounce receives; a full send queue defers our sends in order).
  setenv("FI_OFI_RXM_MSG_RX_SIZE", "32", /*overwrite=*/0);
  setenv("FI_OFI_RXM_MSG_TX_SIZE", "32", /*overwrite=*/0);
  // With manual progress rxm looks at its connection events (a peer's connection request, the
  // answer to ours) at most every FI_OFI_RXM_CM_PROGRESS_INTERVAL us (default 10000) of idle
  // polling, so every first message between two processes waited ~10-20 ms per side. A
  // REBUILD repair on several hosts is made of such first messages (the new process, spare or
  // started, says hello to every survivor): 3 hosts, 8 ranks, one spare, load ~25,
  // tests/bench/spares.sh-style runs, 7 each: 363 -> 307 ms median with a spare, 555 -> 416 ms
  // without. The check is a non-blocking EQ read only when a poll found nothing: the 8 B tcp
  // ping-pong median did not move (4.8-5.0 us both ways).
  setenv("FI_OFI_RXM_CM_PROGRESS_INTERVAL", "100", /*overwrite=*/0);
  // ... and when polls keep finding something (a peer floods us), only on every
  // FI_OFI_RXM_CQ_EQ_FAIRNESS-th (default 128) such poll, each of up to 32 completions: a
  // flooded process took one step of accepting another peer's first connection per ~4096 of
  // the flood's messages, and that peer's message came 1.2-1.7 s late, 15 s once (40 s in CI,
  // ft.suspect.tcp at 8cf9ca5). With 1 the interval above is the only limit, busy or idle:
  // at most one non-blocking EQ read per 100 us (flood_new_peer.c: see README).
  setenv("FI_OFI_RXM_CQ_EQ_FAIRNESS", "1", /*overwrite=*/0);
  // Over tcp rxm shares one receive queue (SRX) among all its connections by default, and
  // the tcp provider serves its connections in a fixed order each progress call: a flooding
  // peer's connection, served first and never drained, took every receive rxm posted back,
  // and another connection's message that had arrived waited, header read, until the flood
  // ended (flood_new_peer.c: ~1 run in 25 under load, 8-20 s, the whole flood; ss showed its
  // bytes unread). A receive queue per connection cannot be taken by another connection.
  setenv("FI_OFI_RXM_USE_SRX", "0", /*overwrite=*/0);
}

fi_info* query_fabric_info(const LibfabricApi& api, const std::string& provider,
                           const std::string& source_addr, std::string* err) {
  if (!source_addr.empty()) {
    in_addr probe{};
    if (inet_pton(AF_INET, source_addr.c_str(), &probe) != 1) {
      if (err != nullptr) *err = "FTMPI_NET_ADDR '" + source_addr + "' is not an IPv4 address";
      return nullptr;
    }
  }
  fi_info* hints = api.dupinfo(nullptr);
  if (hints == nullptr) {
    if (err != nullptr) *err = "fi_allocinfo failed";
    return nullptr;
  }
  hints->ep_attr->type = FI_EP_RDM;
  // FI_SOURCE so a message on our stream names its sender; FI_DIRECTED_RECV for the receive
  // of a large message's payload from its announcing peer. The stream is untagged (FI_MSG),
  // the payloads tagged: rxm keeps an unexpected list per kind, and each repost of a bounce
  // scans its own kind's list (net_endpoint.h).
  hints->caps = FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | FI_SOURCE | FI_DIRECTED_RECV;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;  // every op carries an OpRecord with fi_context2
  // MPI non-overtaking: sends between a pair of endpoints are matched in order.
  hints->tx_attr->msg_order = FI_ORDER_SAS;
  hints->rx_attr->msg_order = FI_ORDER_SAS;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
  hints->domain_attr->av_type = FI_AV_TABLE;  // fi_addr_t == insertion index == PeerId
  // We never register memory: only tagged send/recv, so no FI_MR_LOCAL/FI_MR_ENDPOINT duties.
  hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->fabric_attr->prov_name = strdup(provider.c_str());

  // A job on several hosts: bind to the job network's address (port chosen by the kernel), so
  // fi_getname publishes an address the other hosts reach, never loopback.
  const char* node = source_addr.empty() ? nullptr : source_addr.c_str();
  const std::uint64_t flags = node != nullptr ? FI_SOURCE : 0;
  fi_info* info = nullptr;
  // Ask for an inject size like shm's inline limit: messages up to it travel as one inject
  // into a bounce receive. tcp;ofi_rxm offers 64 B unless asked (then a 100 B message would
  // be an announcement plus a payload send); it allows up to its buffer size, 16 KiB.
  hints->tx_attr->inject_size = kWantedInjectSize;
  int rc = api.getinfo(FI_VERSION(1, 17), node, nullptr, flags, hints, &info);
  if (rc == -FI_ENODATA) {  // a provider with a smaller limit: take what it offers
    hints->tx_attr->inject_size = 0;
    rc = api.getinfo(FI_VERSION(1, 17), node, nullptr, flags, hints, &info);
  }
  api.freeinfo(hints);
  if (rc != 0 || info == nullptr) {
    if (err != nullptr) {
      if (node != nullptr) {
        *err = "provider '" + provider + "' offers no tagged RDM endpoint on " + source_addr +
               " (FTMPI_NET_ADDR; fi_getinfo: " + api.strerror(-rc) + ")";
      } else {
        *err = "unknown provider '" + provider + "': libfabric offers no tagged RDM endpoint " +
               "by that name (fi_getinfo: " + api.strerror(-rc) + ")";
      }
    }
    return nullptr;
  }
  // Several infos may match (one per interface); the first is the provider's preferred one.
  fi_info* chosen = api.dupinfo(info);
  api.freeinfo(info);
  if (chosen == nullptr && err != nullptr) *err = "fi_dupinfo failed";
  return chosen;
}

}  // namespace ftmpi::transport
