#include "provider.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ftmpi::transport {

std::string resolve_provider(const std::string& requested, const std::string& env_value,
                             std::string* err) {
  std::string name = requested.empty() ? env_value : requested;
  // Default: shm (one host). Its libfabric 1.17 matching bug (a receive with an ignore mask
  // against already-arrived messages) is worked around by matching in software (soft_match.h).
  if (name.empty()) return "shm";
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
  // shm's receive context (command queue, posted receives, messages it holds for us). With
  // software matching, unexpected messages move to our own list as we poll, so a modest size
  // only makes senders defer earlier while a receiver does not poll.
  setenv("FI_SHM_RX_SIZE", std::to_string(knobs.shm_rx_size).c_str(), /*overwrite=*/0);
  // rxm 1.17 mishandles a receive shorter than its message: with dynamic receive buffers the
  // tcp connection fails ("dynamically provided rbuf is too small"), and in the SAR protocol
  // (16 KiB..128 KiB) it crashes. Without both, truncation is reported and the connection
  // lives on; SAR's range goes through rxm's zero-copy rendezvous instead.
  setenv("FI_OFI_RXM_ENABLE_DYN_RBUF", "0", /*overwrite=*/0);
  setenv("FI_OFI_RXM_SAR_LIMIT", "16384", /*overwrite=*/0);
}

void sweep_stale_shm_regions() {
  static bool done = false;
  if (done) return;
  done = true;
  DIR* d = opendir("/dev/shm");
  if (d == nullptr) return;
  const unsigned long my_uid = getuid();
  while (dirent* e = readdir(d)) {
    // shm's region names: "<pid>:<uid>:<endpoint index>", nothing else.
    unsigned long pid = 0, uid = 0, idx = 0;
    int consumed = 0;
    if (std::sscanf(e->d_name, "%lu:%lu:%lu%n", &pid, &uid, &idx, &consumed) != 3 ||
        e->d_name[consumed] != '\0' || uid != my_uid || pid == 0) {
      continue;
    }
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or unsure)
    shm_unlink(e->d_name);
  }
  closedir(d);
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
