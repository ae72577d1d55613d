// What every constructor sets up the same way on the communicator it makes: the context pair,
// what it inherits from its parent, and its process-to-rank index. One place, so a field added
// to Comm that a new communicator must inherit is added once (construct.cpp, intercomm.cpp and
// comm_create_group.cpp each repeated it before).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "comm.h"

namespace ftmpi {

// A new communicator on the context pair (context, context + 1) that inherits the parent's
// error handler and fault-tolerance modes (comm, msg, coll). Members, rank, state and name are
// the caller's to fill. inter: an intercommunicator (the parent may be either kind).
std::unique_ptr<Comm> child_comm(const Comm& parent, std::uint32_t context, bool inter = false);

// Comm::rank_of_proc for `procs` (rank r is procs[r]): one entry per process index, -1 for a
// process not listed; at least `nprocs` entries, so any process index of the job may be looked
// up, and more if a listed process is beyond it.
std::vector<int> rank_index(const std::vector<std::uint32_t>& procs, std::size_t nprocs);

}  // namespace ftmpi
