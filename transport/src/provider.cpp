#include "provider.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <cstdlib>
#include <cstring>

namespace ftmpi::transport {

std::string resolve_provider(const std::string& requested, const std::string& env_value,
                             std::string* err) {
  std::string name = requested.empty() ? env_value : requested;
  // Default: tcp;ofi_rxm. libfabric 1.17's shm provider loses or mismatches messages when a
  // wildcard (ignore-mask) receive meets already-arrived messages from several peers
  // (reproducer: tests/e2e/mpi/p2p_basic.c with FTMPI_PROVIDER=shm at 4 ranks), so shm is
  // opt-in (FTMPI_PROVIDER=shm) until that is fixed or worked around.
  if (name.empty()) return "tcp;ofi_rxm";
  if (name == "shm") return "shm";
  if (name == "tcp" || name == "tcp;ofi_rxm") return "tcp;ofi_rxm";
  if (err != nullptr) {
    *err = "unknown provider '" + name + "' (supported: shm, tcp;ofi_rxm, tcp)";
  }
  return "";
}

void export_provider_defaults(const Knobs& knobs) {
  // One host: keep tcp on loopback, so jobs work without (or inside) a configured network.
  // Multi-host runs set FI_TCP_IFACE themselves.
  setenv("FI_TCP_IFACE", "lo", /*overwrite=*/0);
  // shm keeps each unexpected message in a receive-context slot, 1024 by default: an MPI
  // sender that runs ahead of its receiver by more than that would stall.
  setenv("FI_SHM_RX_SIZE", std::to_string(knobs.shm_rx_size).c_str(), /*overwrite=*/0);
  // rxm 1.17 mishandles a receive shorter than its message: with dynamic receive buffers the
  // tcp connection fails ("dynamically provided rbuf is too small"), and in the SAR protocol
  // (16 KiB..128 KiB) it crashes. Without both, truncation is reported and the connection
  // lives on; SAR's range goes through rxm's zero-copy rendezvous instead.
  setenv("FI_OFI_RXM_ENABLE_DYN_RBUF", "0", /*overwrite=*/0);
  setenv("FI_OFI_RXM_SAR_LIMIT", "16384", /*overwrite=*/0);
}

fi_info* query_fabric_info(const std::string& provider, std::string* err) {
  fi_info* hints = fi_allocinfo();
  if (hints == nullptr) {
    if (err != nullptr) *err = "fi_allocinfo failed";
    return nullptr;
  }
  hints->ep_attr->type = FI_EP_RDM;
  // FI_SOURCE so wildcard receives learn their sender; FI_DIRECTED_RECV so a receive from a
  // specific peer is matched by libfabric, not by us.
  hints->caps = FI_TAGGED | FI_SEND | FI_RECV | FI_SOURCE | FI_DIRECTED_RECV;
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

  fi_info* info = nullptr;
  int rc = fi_getinfo(FI_VERSION(1, 17), nullptr, nullptr, 0, hints, &info);
  fi_freeinfo(hints);
  if (rc != 0 || info == nullptr) {
    if (err != nullptr) {
      *err = "fi_getinfo(" + provider + ", tagged RDM) failed: " + fi_strerror(-rc);
    }
    return nullptr;
  }
  // Several infos may match (one per interface); the first is the provider's preferred one.
  fi_info* chosen = fi_dupinfo(info);
  fi_freeinfo(info);
  if (chosen == nullptr && err != nullptr) *err = "fi_dupinfo failed";
  return chosen;
}

}  // namespace ftmpi::transport
