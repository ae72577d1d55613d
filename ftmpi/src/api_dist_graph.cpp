// C API: distributed graph topologies (MPI-3.1 7.5.4). Each process holds only its own edges
// (topology.h). MPI_Dist_graph_create_adjacent needs no communication beyond the split that
// makes the communicator; MPI_Dist_graph_create, where any process may name any edge, first
// sends every edge to both of its ends (two all-to-all exchanges on comm_old's collective
// context, with the outcome of a collective: coll_call.h). `reorder` and `info` are accepted and
// ignored (ranks are kept, as MPICH does).
#include <algorithm>

#include "coll_call.h"
#include "topology_api.h"

using namespace ftmpi;
using namespace ftmpi::collapi;
using namespace ftmpi::topo_api;

namespace {

// The new communicator: every process of comm_old, in its order, with this process's edges.
Err create(Comm* parent, Topology t, MPI_Comm* out) {
  const std::vector<std::uint32_t> needed = parent->procs;  // a repair in the split replaces procs
  return split_with_topology(parent, 0, parent->rank, needed, std::move(t), "dist graph", out);
}

// One edge as it travels to one of its ends: the other end, the weight, and which list it
// joins there.
struct Edge {
  int peer;
  int weight;
  int incoming;  // 1: a source of the receiver; 0: a destination
};

// MPI_Dist_graph_create's exchange: edges[r] are the edges for rank r. On success *mine holds
// this process's edges, by the rank that named them, then in that rank's argument order.
coll::Status route(Comm* c, const Call& call, const std::vector<std::vector<Edge>>& edges,
                   std::vector<Edge>* mine) {
  const auto n = static_cast<std::size_t>(c->size());
  std::vector<std::size_t> send_bytes(n), send_at(n), recv_bytes(n), recv_at(n);
  std::vector<Edge> flat;
  for (std::size_t r = 0; r < n; ++r) {
    send_at[r] = flat.size() * sizeof(Edge);
    send_bytes[r] = edges[r].size() * sizeof(Edge);
    flat.insert(flat.end(), edges[r].begin(), edges[r].end());
  }
  CommP2P counts_p2p(&lib().engine, c);
  coll::Status s = coll::alltoall(call.view(), counts_p2p, send_bytes.data(), sizeof(std::size_t),
                                  recv_bytes.data());
  if (s != coll::Status::ok) return s;
  std::size_t total = 0;
  for (std::size_t r = 0; r < n; ++r) {
    recv_at[r] = total;
    total += recv_bytes[r];
  }
  mine->resize(total / sizeof(Edge));
  CommP2P edges_p2p(&lib().engine, c);
  return coll::alltoallv(call.view(), edges_p2p, flat.data(), send_bytes.data(), send_at.data(),
                         mine->data(), recv_bytes.data(), recv_at.data());
}

}  // namespace

extern "C" {

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  (void)info;
  (void)reorder;
  Comm* c = nullptr;
  if (Err e = find_intra(comm_old, &c, "MPI_Dist_graph_create_adjacent"); e != Err::ok) {
    return raise(c, e);
  }
  if (Err e = check_ptr(comm_dist_graph, "comm_dist_graph"); e != Err::ok) return raise(c, e);
  *comm_dist_graph = MPI_COMM_NULL;
  Topology t;
  if (Err e = make_dist_graph(c->size(), indegree, sources, sourceweights, outdegree,
                              destinations, destweights, &t);
      e != Err::ok) {
    return raise(c, e);
  }
  return raise(c, create(c, std::move(t), comm_dist_graph));
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm* comm_dist_graph) {
  (void)info;
  (void)reorder;
  const char* fn = "MPI_Dist_graph_create";
  Call call;
  if (Err e = find_intra(comm_old, &call.comm, fn); e != Err::ok) return raise(call.comm, e);
  Comm* c = call.comm;
  if (Err e = check_ptr(comm_dist_graph, "comm_dist_graph"); e != Err::ok) return raise(c, e);
  *comm_dist_graph = MPI_COMM_NULL;
  if (Err e = enter(&call); e != Err::ok) return raise(c, e);
  // The arguments, checked where only this process sees them: refused through the outcome
  // vote, so that no process goes on into the exchange alone.
  if (n < 0) return refuse(c, fail(Err::arg, "%s: n is %d, must not be negative", fn, n));
  if (n > 0 && (sources == nullptr || degrees == nullptr)) {
    return refuse(c, fail(Err::arg, "%s: sources or degrees is NULL", fn));
  }
  std::vector<std::vector<Edge>> edges(static_cast<std::size_t>(c->size()));
  bool unweighted = weights == MPI_UNWEIGHTED;
  int k = 0;  // index into destinations and weights
  for (int i = 0; i < n; ++i) {
    const int s = sources[i];
    if (s < 0 || s >= c->size()) {
      return refuse(c, fail(Err::rank, "%s: sources[%d] is %d, outside 0..%d", fn, i, s, c->size() - 1));
    }
    if (degrees[i] < 0) {
      return refuse(c, fail(Err::arg, "%s: degrees[%d] is %d, must not be negative", fn, i, degrees[i]));
    }
    if (degrees[i] > 0 && (destinations == nullptr || weights == nullptr ||
                           weights == MPI_WEIGHTS_EMPTY)) {
      return refuse(c, fail(Err::arg, "%s: destinations or weights is NULL or empty with edges "
                            "to give", fn));
    }
    for (int j = 0; j < degrees[i]; ++j, ++k) {
      const int d = destinations[k];
      const int w = unweighted ? 1 : weights[k];
      if (d < 0 || d >= c->size()) {
        return refuse(c, fail(Err::rank, "%s: destinations[%d] is %d, outside 0..%d", fn, k, d,
                              c->size() - 1));
      }
      if (w < 0) return refuse(c, fail(Err::arg, "%s: weights[%d] is %d, negative", fn, k, w));
      edges[static_cast<std::size_t>(s)].push_back(Edge{d, w, 0});
      edges[static_cast<std::size_t>(d)].push_back(Edge{s, w, 1});
    }
  }
  std::vector<Edge> mine;
  const coll::Status s = route(c, call, edges, &mine);
  if (int rc = finish(c, s, fn); rc != MPI_SUCCESS) return rc;
  Topology t;
  t.kind = MPI_DIST_GRAPH;
  t.dist_size = c->size();
  t.weighted = !unweighted;
  for (const Edge& e : mine) {
    (e.incoming ? t.sources : t.destinations).push_back(e.peer);
    if (t.weighted) (e.incoming ? t.source_weights : t.dest_weights).push_back(e.weight);
  }
  return raise(c, create(c, std::move(t), comm_dist_graph));
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors_count", &c, &t);
  if (e == Err::ok) e = check_ptr(indegree, "indegree");
  if (e == Err::ok) e = check_ptr(outdegree, "outdegree");
  if (e == Err::ok) e = check_ptr(weighted, "weighted");
  if (e != Err::ok) return raise(c, e);
  *indegree = static_cast<int>(t->sources.size());
  *outdegree = static_cast<int>(t->destinations.size());
  *weighted = t->weighted ? 1 : 0;
  return MPI_SUCCESS;
}

// Writes the first maxindegree sources and maxoutdegree destinations (MPI-3.1 7.5.5 lets the
// caller ask for fewer), their weights unless the array is MPI_UNWEIGHTED or the graph has none.
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors", &c, &t);
  if (e == Err::ok && (maxindegree < 0 || maxoutdegree < 0)) {
    e = fail(Err::arg, "maxindegree %d and maxoutdegree %d must not be negative", maxindegree,
             maxoutdegree);
  }
  const std::size_t nin = std::min(static_cast<std::size_t>(maxindegree < 0 ? 0 : maxindegree),
                                   t != nullptr ? t->sources.size() : 0);
  const std::size_t nout = std::min(static_cast<std::size_t>(maxoutdegree < 0 ? 0 : maxoutdegree),
                                    t != nullptr ? t->destinations.size() : 0);
  const bool in_weights = e == Err::ok && t->weighted && sourceweights != MPI_UNWEIGHTED &&
                          sourceweights != MPI_WEIGHTS_EMPTY;
  const bool out_weights = e == Err::ok && t->weighted && destweights != MPI_UNWEIGHTED &&
                           destweights != MPI_WEIGHTS_EMPTY;
  if (e == Err::ok && nin > 0) e = check_ptr(sources, "sources");
  if (e == Err::ok && nin > 0 && in_weights) e = check_ptr(sourceweights, "sourceweights");
  if (e == Err::ok && nout > 0) e = check_ptr(destinations, "destinations");
  if (e == Err::ok && nout > 0 && out_weights) e = check_ptr(destweights, "destweights");
  if (e != Err::ok) return raise(c, e);
  for (std::size_t i = 0; i < nin; ++i) {
    sources[i] = t->sources[i];
    if (in_weights) sourceweights[i] = t->source_weights[i];
  }
  for (std::size_t i = 0; i < nout; ++i) {
    destinations[i] = t->destinations[i];
    if (out_weights) destweights[i] = t->dest_weights[i];
  }
  return MPI_SUCCESS;
}

}  // extern "C"
