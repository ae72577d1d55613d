// Which libfabric provider we run over, and the fi_info we ask it for.
#pragma once

#include <rdma/fabric.h>

#include <string>

#include "knobs.h"

namespace ftmpi::transport {

// Canonical provider string for a user's choice: "" falls back to env_value, then "shm";
// "tcp" means "tcp;ofi_rxm". Returns "" (and fills *err) for anything we do not support.
std::string resolve_provider(const std::string& requested, const std::string& env_value,
                             std::string* err);

// Sets libfabric's own environment variables that we choose defaults for (FI_SHM_RX_SIZE),
// leaving any the user set alone. Must run before libfabric first initializes its providers.
void export_provider_defaults(const Knobs& knobs);

// shm cannot remove the region of a process that was killed (SIGKILL): it stays in /dev/shm,
// resident (its size grows with FI_SHM_RX_SIZE), until the name is reused. Unlinks the regions
// of this user's processes that no longer exist; once per process, before the first shm open.
void sweep_stale_shm_regions();

// fi_getinfo for a tagged RDM endpoint on that provider; nullptr (and *err) on failure.
// The caller owns the result (fi_freeinfo).
fi_info* query_fabric_info(const std::string& provider, std::string* err);

}  // namespace ftmpi::transport
