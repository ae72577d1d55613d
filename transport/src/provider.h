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
// scan /proc/kallsyms, ~90 ms).
void export_provider_defaults(const std::string& provider);

// fi_getinfo for a tagged RDM endpoint on that provider; nullptr (and *err) on failure.
// The caller owns the result (api.freeinfo).
fi_info* query_fabric_info(const LibfabricApi& api, const std::string& provider,
                           std::string* err);

}  // namespace ftmpi::transport
