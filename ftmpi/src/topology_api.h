// What the topology calls share (api_topo.cpp defines these; api_dist_graph.cpp and
// api_neighbor.cpp use them): finding the communicator and its topology with the MPI error
// classes, and building a communicator that carries a topology.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "comm.h"
#include "error.h"
#include "topology.h"

namespace ftmpi::topo_api {

Err find(MPI_Comm comm, Comm** c, const char* fn);
// Constructors and maps: topologies describe intracommunicators only (MPI_ERR_COMM).
Err find_intra(MPI_Comm comm, Comm** c, const char* fn);
const char* kind_name(int kind);
// The communicator and its topology, which must be of `kind` (MPI_UNDEFINED: any kind), and
// still describe the communicator (a SHRINK repair renumbers it): else MPI_ERR_TOPOLOGY.
Err find_topology(MPI_Comm comm, int kind, const char* fn, Comm** c, const Topology** t);
Err check_ptr(const void* p, const char* what);
// Splits `parent` by (color, key) and gives the result `topo` (named `what` of the parent).
// If a process of `needed` (parent procs) is gone after the split's agreement, no communicator
// and MPI_ERR_OTHER, the same at every caller.
Err split_with_topology(Comm* parent, int color, int key, const std::vector<std::uint32_t>& needed,
                        Topology topo, const char* what, MPI_Comm* out);

}  // namespace ftmpi::topo_api
