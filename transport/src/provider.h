// Which path a job's messages take, and the fi_info we ask libfabric for.
#pragma once

#include <rdma/fabric.h>

#include <string>

#include "knobs.h"
#include "libfabric_api.h"

namespace ftmpi::transport {

// Canonical provider string for a user's choice: "" falls back to env_value, then "shm" (our
// own shared memory, no libfabric). "tcp" means "tcp;ofi_rxm"; any other name is a libfabric
// provider, passed on as given (fi_getinfo then says whether it exists).
std::string resolve_provider(const std::string& requested, const std::string& env_value);

// Sets libfabric's own environment variables that we choose defaults for, leaving any the user
// set alone. Must run before libfabric first initializes its providers. FI_PROVIDER restricts
// libfabric to the providers `provider` names, so no other provider starts up (verbs would
// scan /proc/kallsyms, ~90 ms). one_host: every peer is on this host, so tcp may stay on
// loopback (FI_TCP_IFACE=lo); a job on several hosts binds to its network's address instead.
void export_provider_defaults(const std::string& provider, bool one_host);

// fi_getinfo for a tagged RDM endpoint on that provider; nullptr (and *err) on failure.
// source_addr: an IPv4 address to bind to (FI_SOURCE), so the address we publish is that
// network's; empty: the provider's choice. The caller owns the result (api.freeinfo).
fi_info* query_fabric_info(const LibfabricApi& api, const std::string& provider,
                           const std::string& source_addr, std::string* err);

}  // namespace ftmpi::transport
