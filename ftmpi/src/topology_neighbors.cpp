// Neighbour lists of the three topology kinds (topology.h) and the distributed graph's
// argument checks: what the neighbourhood collectives (neighbor_exchange.h) and
// MPI_Dist_graph_create(_adjacent) (api_dist_graph.cpp) build on.
#include "topology.h"

namespace {
int unweighted_marker, weights_empty_marker;  // only their addresses mean something (mpi.h)
}  // namespace

extern "C" {
int* const MPI_UNWEIGHTED = &unweighted_marker;
int* const MPI_WEIGHTS_EMPTY = &weights_empty_marker;
}

namespace ftmpi {

Neighbors neighbors_of(const Topology& t, int rank) {
  Neighbors n;
  if (t.kind == MPI_CART) {
    n.cartesian = true;
    for (int d = 0; d < t.ndims(); ++d) {
      int minus = MPI_PROC_NULL, plus = MPI_PROC_NULL;
      (void)cart_shift(t, rank, d, 1, &minus, &plus);  // d and rank are in range here
      n.sources.push_back(minus);
      n.sources.push_back(plus);
    }
    n.destinations = n.sources;
  } else if (t.kind == MPI_GRAPH) {
    int count = 0;
    if (graph_neighbors_count(t, rank, &count) == Err::ok) {
      n.sources.resize(static_cast<std::size_t>(count));
      (void)graph_neighbors(t, rank, count, n.sources.data());
    }
    n.destinations = n.sources;
  } else {
    n.sources = t.sources;
    n.destinations = t.destinations;
  }
  return n;
}

namespace {

// One side of a distributed graph's edges: `degree` ranks and their weights.
Err one_side(int comm_size, const char* what, int degree, const int* ranks, const int* weights,
             std::vector<int>* out_ranks, std::vector<int>* out_weights) {
  if (degree < 0) return fail(Err::arg, "%sdegree is %d, must not be negative", what, degree);
  if (degree == 0) return Err::ok;
  if (ranks == nullptr) {
    return fail(Err::arg, "%s array is NULL with %sdegree %d",
                what[0] == 'i' ? "sources" : "destinations", what, degree);
  }
  if (weights == MPI_WEIGHTS_EMPTY) {
    return fail(Err::arg, "%sweights is MPI_WEIGHTS_EMPTY but %sdegree is %d", what, what, degree);
  }
  if (weights == nullptr) return fail(Err::arg, "%s weights array is NULL", what);
  for (int i = 0; i < degree; ++i) {
    if (ranks[i] < 0 || ranks[i] >= comm_size) {
      return fail(Err::rank, "%s neighbour %d is rank %d, outside the communicator (0..%d)", what, i,
                  ranks[i], comm_size - 1);
    }
    if (weights != MPI_UNWEIGHTED && weights[i] < 0) {
      return fail(Err::arg, "%s weight %d is %d, must not be negative", what, i, weights[i]);
    }
  }
  out_ranks->assign(ranks, ranks + degree);
  if (weights != MPI_UNWEIGHTED) out_weights->assign(weights, weights + degree);
  return Err::ok;
}

}  // namespace

Err make_dist_graph(int comm_size, int indegree, const int* sources, const int* source_weights,
                    int outdegree, const int* destinations, const int* dest_weights,
                    Topology* out) {
  // MPI-3.1 7.5.4: MPI_UNWEIGHTED for one side means for both. A side without edges does not
  // count (it may pass MPI_WEIGHTS_EMPTY, NULL or MPI_UNWEIGHTED whatever the other does).
  const bool in_unweighted = source_weights == MPI_UNWEIGHTED;
  const bool out_unweighted = dest_weights == MPI_UNWEIGHTED;
  if (indegree > 0 && outdegree > 0 && in_unweighted != out_unweighted) {
    return fail(Err::topology, "MPI_UNWEIGHTED given for one side of the graph only");
  }
  Topology t;
  t.kind = MPI_DIST_GRAPH;
  t.dist_size = comm_size;
  if (Err e = one_side(comm_size, "in", indegree, sources, source_weights, &t.sources,
                       &t.source_weights);
      e != Err::ok) {
    return e;
  }
  if (Err e = one_side(comm_size, "out", outdegree, destinations, dest_weights, &t.destinations,
                       &t.dest_weights);
      e != Err::ok) {
    return e;
  }
  t.weighted = !(indegree > 0 ? in_unweighted : outdegree > 0 ? out_unweighted
                                                              : in_unweighted || out_unweighted);
  *out = std::move(t);
  return Err::ok;
}

}  // namespace ftmpi
