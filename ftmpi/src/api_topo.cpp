// C API: Cartesian and graph topologies (MPI-1.3 chapter 6). The arithmetic and the argument
// checks live in topology.cpp; here we find the communicator, build new ones with a split (so
// they repair a communicator in error like every constructor, SPEC 4.5) and attach the
// Topology. Ranks are never reordered: `reorder` is accepted and ignored, which MPI allows.
#include <memory>
#include <string>
#include <vector>

#include "library.h"
#include "monitor.h"
#include "topology.h"
#include "topology_api.h"

using namespace ftmpi;

namespace ftmpi::topo_api {

Err find(MPI_Comm comm, Comm** c, const char* fn) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  return lib().comms.lookup(comm, c);
}

// Constructors and maps: topologies describe intracommunicators only.
Err find_intra(MPI_Comm comm, Comm** c, const char* fn) {
  if (Err e = find(comm, c, fn); e != Err::ok) return e;
  if ((*c)->inter) {
    return fail(Err::comm, "%s: %s is an intercommunicator; topologies need an intracommunicator",
                fn, (*c)->name.c_str());
  }
  return Err::ok;
}

const char* kind_name(int kind) {
  return kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph" : "distributed graph";
}

// The communicator and its topology, which must be of `kind` (MPI_UNDEFINED: any kind).
Err find_topology(MPI_Comm comm, int kind, const char* fn, Comm** c, const Topology** t) {
  if (Err e = find(comm, c, fn); e != Err::ok) return e;
  const Topology* topo = (*c)->topology.get();
  if (topo == nullptr) {
    return fail(Err::topology, "%s: %s has no topology (need a %s one)", fn, (*c)->name.c_str(),
                kind == MPI_UNDEFINED ? "process" : kind_name(kind));
  }
  if (kind != MPI_UNDEFINED && topo->kind != kind) {
    return fail(Err::topology, "%s: %s has a %s topology, not a %s one", fn, (*c)->name.c_str(),
                kind_name(topo->kind), kind_name(kind));
  }
  // A SHRINK repair renumbers the communicator: its grid or graph no longer describes it.
  if (topo->nnodes() != (*c)->size()) {
    return fail(Err::topology,
                "%s: %s now has %d processes but its %s topology has %d (a repair changed it; "
                "create the topology again)",
                fn, (*c)->name.c_str(), (*c)->size(), kind_name(topo->kind), topo->nnodes());
  }
  *t = topo;
  return Err::ok;
}

Err check_ptr(const void* p, const char* what) {
  return p == nullptr ? fail(Err::arg, "%s pointer is NULL", what) : Err::ok;
}

namespace {

bool alive_in(const Comm& c, std::uint32_t proc) {
  if (proc >= c.rank_of_proc.size()) return false;
  const int r = c.rank_of_proc[proc];
  return r >= 0 && !c.is_failed(r);
}

}  // namespace

// Splits `parent` by (color, key) and gives the resulting communicator `topo`. `needed` are
// the parent's processes the new topology is built from. If one of them is gone (it failed,
// and the split's agreement repaired the parent; or it is a BLANK gap) the grid cannot be
// built: every caller sees the same agreed state, so every caller returns the same error and
// can call again on the repaired communicator.
Err split_with_topology(Comm* parent, int color, int key, const std::vector<std::uint32_t>& needed,
                        Topology topo, const char* what, MPI_Comm* out) {
  if (Err e = lib().construct.split(parent, color, key, out); e != Err::ok) return e;
  for (std::uint32_t p : needed) {
    if (alive_in(*parent, p)) continue;
    Comm* child = nullptr;
    if (*out != MPI_COMM_NULL && lib().comms.lookup(*out, &child) == Err::ok) {
      (void)lib().construct.free(child);
    }
    *out = MPI_COMM_NULL;
    return fail_report(Err::other, "%s: a process of the new topology has failed (%s repaired); call "
                "again", what, parent->name.c_str());
  }
  if (*out == MPI_COMM_NULL) return Err::ok;
  Comm* child = nullptr;
  if (Err e = lib().comms.lookup(*out, &child); e != Err::ok) return e;
  if (child->size() != topo.nnodes()) {  // cannot happen when every needed process is alive
    return fail(Err::intern, "%s: new communicator has %d processes, the topology %d", what,
                child->size(), topo.nnodes());
  }
  child->topology = std::make_shared<const Topology>(std::move(topo));
  child->name = std::string(what) + " of " + parent->name;
  monitor().comm_changed(*child);
  return Err::ok;
}

}  // namespace ftmpi::topo_api

using namespace ftmpi::topo_api;

namespace {

// Cart_create and Graph_create: the first nnodes ranks of `parent`, in order.
Err create_topology(Comm* parent, Topology topo, const char* what, MPI_Comm* out) {
  const int n = topo.nnodes();
  if (n == 0) return Err::ok;  // an empty graph: MPI_COMM_NULL everywhere, nothing to agree
  const std::vector<std::uint32_t> needed(parent->procs.begin(), parent->procs.begin() + n);
  const int color = parent->rank < n ? 0 : MPI_UNDEFINED;
  return split_with_topology(parent, color, parent->rank, needed, std::move(topo), what, out);
}

}  // namespace

extern "C" {

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  return raise_world(dims_create(nnodes, ndims, dims));
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* comm_cart) {
  (void)reorder;
  Comm* c = nullptr;
  if (Err e = find_intra(comm_old, &c, "MPI_Cart_create"); e != Err::ok) return raise(c, e);
  if (Err e = check_ptr(comm_cart, "comm_cart"); e != Err::ok) return raise(c, e);
  *comm_cart = MPI_COMM_NULL;
  Topology t;
  if (Err e = make_cart(c->size(), ndims, dims, periods, &t); e != Err::ok) return raise(c, e);
  return raise(c, create_topology(c, std::move(t), "cart", comm_cart));
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm* comm_graph) {
  (void)reorder;
  Comm* c = nullptr;
  if (Err e = find_intra(comm_old, &c, "MPI_Graph_create"); e != Err::ok) return raise(c, e);
  if (Err e = check_ptr(comm_graph, "comm_graph"); e != Err::ok) return raise(c, e);
  *comm_graph = MPI_COMM_NULL;
  Topology t;
  if (Err e = make_graph(c->size(), nnodes, index, edges, &t); e != Err::ok) return raise(c, e);
  return raise(c, create_topology(c, std::move(t), "graph", comm_graph));
}

int MPI_Topo_test(MPI_Comm comm, int* status) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPI_Topo_test"); e != Err::ok) return raise(c, e);
  if (Err e = check_ptr(status, "status"); e != Err::ok) return raise(c, e);
  *status = c->topology ? c->topology->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

// ---- Cartesian -------------------------------------------------------------------------------

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_CART, "MPI_Cartdim_get", &c, &t);
  if (e == Err::ok) e = check_ptr(ndims, "ndims");
  if (e != Err::ok) return raise(c, e);
  *ndims = t->ndims();
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_CART, "MPI_Cart_get", &c, &t);
  if (e == Err::ok && maxdims < t->ndims()) {
    e = fail(Err::arg, "maxdims %d is less than the grid's %d dimensions", maxdims, t->ndims());
  }
  if (e == Err::ok && t->ndims() > 0) {
    e = check_ptr(dims, "dims");
    if (e == Err::ok) e = check_ptr(periods, "periods");
    if (e == Err::ok) e = check_ptr(coords, "coords");
  }
  if (e != Err::ok) return raise(c, e);
  for (int i = 0; i < t->ndims(); ++i) {
    dims[i] = t->dims[static_cast<std::size_t>(i)];
    periods[i] = t->periods[static_cast<std::size_t>(i)];
  }
  return raise(c, cart_coords(*t, c->rank, coords));
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_CART, "MPI_Cart_rank", &c, &t);
  if (e == Err::ok && t->ndims() > 0) e = check_ptr(coords, "coords");
  if (e == Err::ok) e = check_ptr(rank, "rank");
  if (e == Err::ok) e = cart_rank(*t, coords, rank);
  return e == Err::ok ? MPI_SUCCESS : raise(c, e);
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_CART, "MPI_Cart_coords", &c, &t);
  if (e == Err::ok && maxdims < t->ndims()) {
    e = fail(Err::arg, "maxdims %d is less than the grid's %d dimensions", maxdims, t->ndims());
  }
  if (e == Err::ok && t->ndims() > 0) e = check_ptr(coords, "coords");
  if (e == Err::ok) e = cart_coords(*t, rank, coords);
  return e == Err::ok ? MPI_SUCCESS : raise(c, e);
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_CART, "MPI_Cart_shift", &c, &t);
  if (e == Err::ok) e = check_ptr(rank_source, "rank_source");
  if (e == Err::ok) e = check_ptr(rank_dest, "rank_dest");
  if (e == Err::ok) e = cart_shift(*t, c->rank, direction, disp, rank_source, rank_dest);
  return e == Err::ok ? MPI_SUCCESS : raise(c, e);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_CART, "MPI_Cart_sub", &c, &t);
  if (e == Err::ok && t->ndims() > 0) e = check_ptr(remain_dims, "remain_dims");
  if (e == Err::ok) e = check_ptr(newcomm, "newcomm");
  if (e != Err::ok) return raise(c, e);
  *newcomm = MPI_COMM_NULL;
  int color = 0, key = 0;
  Topology sub = cart_sub(*t, remain_dims, c->rank, &color, &key);
  const std::vector<std::uint32_t> members = c->procs;  // a repair in the split replaces procs
  return raise(c, split_with_topology(c, color, key, members, std::move(sub), "cart sub",
                                      newcomm));
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  Comm* c = nullptr;
  Topology t;
  Err e = find_intra(comm, &c, "MPI_Cart_map");
  if (e == Err::ok) e = check_ptr(newrank, "newrank");
  if (e == Err::ok) e = make_cart(c->size(), ndims, dims, periods, &t);
  if (e != Err::ok) return raise(c, e);
  *newrank = c->rank < t.nnodes() ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

// ---- Graph -----------------------------------------------------------------------------------

int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_GRAPH, "MPI_Graphdims_get", &c, &t);
  if (e == Err::ok) e = check_ptr(nnodes, "nnodes");
  if (e == Err::ok) e = check_ptr(nedges, "nedges");
  if (e != Err::ok) return raise(c, e);
  *nnodes = t->nnodes();
  *nedges = static_cast<int>(t->edges.size());
  return MPI_SUCCESS;
}

// Writes at most maxindex / maxedges entries, as MPI allows.
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_GRAPH, "MPI_Graph_get", &c, &t);
  if (e == Err::ok && (maxindex < 0 || maxedges < 0)) {
    e = fail(Err::arg, "maxindex %d and maxedges %d must not be negative", maxindex, maxedges);
  }
  if (e == Err::ok && maxindex > 0) e = check_ptr(index, "index");
  if (e == Err::ok && maxedges > 0) e = check_ptr(edges, "edges");
  if (e != Err::ok) return raise(c, e);
  for (std::size_t i = 0; i < t->index.size() && i < static_cast<std::size_t>(maxindex); ++i) {
    index[i] = t->index[i];
  }
  for (std::size_t i = 0; i < t->edges.size() && i < static_cast<std::size_t>(maxedges); ++i) {
    edges[i] = t->edges[i];
  }
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_GRAPH, "MPI_Graph_neighbors_count", &c, &t);
  if (e == Err::ok) e = check_ptr(nneighbors, "nneighbors");
  if (e == Err::ok) e = graph_neighbors_count(*t, rank, nneighbors);
  return e == Err::ok ? MPI_SUCCESS : raise(c, e);
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  Comm* c = nullptr;
  const Topology* t = nullptr;
  Err e = find_topology(comm, MPI_GRAPH, "MPI_Graph_neighbors", &c, &t);
  if (e == Err::ok && maxneighbors < 0) {
    e = fail(Err::arg, "maxneighbors %d must not be negative", maxneighbors);
  }
  if (e == Err::ok && maxneighbors > 0) e = check_ptr(neighbors, "neighbors");
  if (e == Err::ok) e = graph_neighbors(*t, rank, maxneighbors, neighbors);
  return e == Err::ok ? MPI_SUCCESS : raise(c, e);
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                  int* newrank) {
  Comm* c = nullptr;
  Topology t;
  Err e = find_intra(comm, &c, "MPI_Graph_map");
  if (e == Err::ok) e = check_ptr(newrank, "newrank");
  if (e == Err::ok) e = make_graph(c->size(), nnodes, index, edges, &t);
  if (e != Err::ok) return raise(c, e);
  *newrank = c->rank < t.nnodes() ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

}  // extern "C"
