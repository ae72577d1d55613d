// Process topologies (MPI-1.3 chapter 6, MPI-3.1 7.5.4): Cartesian grids, graphs and
// distributed graphs attached to a communicator. Pure logic, no communication: validation of the user's arguments with the MPI
// error classes, MPI_Dims_create's balanced factorization, rank <-> coordinate arithmetic
// (row-major, as MPI prescribes), shifts and neighbor lists. The C API (api_topo.cpp) builds
// the communicator with a split and attaches the Topology; MPI_Comm_dup shares it.
//
// Error classes used: MPI_ERR_DIMS for a bad ndims, dims entry, direction or a node count that
// the preset dims do not divide; MPI_ERR_ARG for NULL arrays, out-of-range coordinates and bad
// graph index/edges, a grid or graph larger than the communicator; MPI_ERR_RANK for a rank
// outside the topology.
#pragma once

#include <mpi.h>

#include <vector>

#include "error.h"

namespace ftmpi {

struct Topology {
  int kind = MPI_CART;  // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH

  // Cartesian: extent and periodicity per dimension (ndims may be 0: a single process).
  std::vector<int> dims;
  std::vector<int> periods;  // 0 or 1

  // Graph, as the user gave it: index[i] is the number of edges of nodes 0..i, edges holds
  // the neighbors of node 0, then of node 1, ...
  std::vector<int> index;
  std::vector<int> edges;

  // Distributed graph: this process's own edges only (each member holds a different Topology),
  // in neighbour order: the order MPI_Dist_graph_create_adjacent got them, or for
  // MPI_Dist_graph_create by the rank that named the edge, then in its argument order.
  // Duplicates are kept. Weights are empty when the graph is unweighted.
  std::vector<int> sources, source_weights, destinations, dest_weights;
  bool weighted = false;
  int dist_size = 0;  // the communicator's size when the graph was made

  int ndims() const { return static_cast<int>(dims.size()); }
  int nnodes() const;  // processes the topology covers: product of dims, graph node count,
                       // or a distributed graph's communicator size
};

// The neighbours a neighbourhood collective exchanges with (MPI-3.1 7.6): blocks are received
// from sources[i] and sent to destinations[j], in this order; MPI_PROC_NULL entries (off a
// non-periodic grid edge) move nothing. Cartesian: for each dimension the -1 then the +1
// neighbour, on both sides. Graph: MPI_Graph_neighbors, on both sides.
struct Neighbors {
  std::vector<int> sources, destinations;
  bool cartesian = false;
};
Neighbors neighbors_of(const Topology& t, int rank);

// MPI_Dist_graph_create_adjacent's arguments at one process of a communicator of comm_size:
// negative degrees, NULL arrays, ranks outside the communicator, MPI_UNWEIGHTED on one side
// only. `*_weights` may be MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY.
Err make_dist_graph(int comm_size, int indegree, const int* sources, const int* source_weights,
                    int outdegree, const int* destinations, const int* dest_weights,
                    Topology* out);

// MPI_Dims_create: fills the zero entries of dims[0..ndims) so that the product is nnodes,
// as balanced as possible and non-increasing; non-zero entries are kept.
Err dims_create(int nnodes, int ndims, int* dims);

// MPI_Cart_create / MPI_Cart_map arguments for a communicator of comm_size processes.
Err make_cart(int comm_size, int ndims, const int* dims, const int* periods, Topology* out);
// MPI_Graph_create / MPI_Graph_map arguments.
Err make_graph(int comm_size, int nnodes, const int* index, const int* edges, Topology* out);

// Cartesian arithmetic. coords has t.ndims() entries.
Err cart_coords(const Topology& t, int rank, int* coords);
// Coordinates in a periodic dimension wrap; outside a non-periodic one they are an error.
Err cart_rank(const Topology& t, const int* coords, int* rank);
// Source and destination of a shift by disp along direction; MPI_PROC_NULL off a
// non-periodic edge.
Err cart_shift(const Topology& t, int rank, int direction, int disp, int* source, int* dest);
// MPI_Cart_sub: the sub-grid keeping the dimensions with remain[i] != 0, which sub-grid `rank`
// falls in (color, numbered by the dropped coordinates) and its rank within it.
Topology cart_sub(const Topology& t, const int* remain, int rank, int* color, int* sub_rank);

// Graph queries.
Err graph_neighbors_count(const Topology& t, int rank, int* count);
// The neighbors of rank; at most maxneighbors are written.
Err graph_neighbors(const Topology& t, int rank, int maxneighbors, int* neighbors);

}  // namespace ftmpi
