#include "topology.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "dims_balance.h"

namespace ftmpi {
namespace {

long long product(const int* v, int n) {
  long long p = 1;
  for (int i = 0; i < n; ++i) {
    p *= v[i];
    if (p > std::numeric_limits<int>::max()) return p;  // already too large for any comm
  }
  return p;
}

}  // namespace

int Topology::nnodes() const {
  if (kind == MPI_GRAPH) return static_cast<int>(index.size());
  if (kind == MPI_DIST_GRAPH) return dist_size;
  return static_cast<int>(product(dims.data(), ndims()));
}

Err dims_create(int nnodes, int ndims, int* dims) {
  if (ndims < 0) return fail(Err::dims, "ndims is %d, must be >= 0", ndims);
  if (ndims > 0 && dims == nullptr) return fail(Err::arg, "dims array is NULL");
  if (nnodes < 1) return fail(Err::arg, "nnodes is %d, must be positive", nnodes);
  long long preset = 1;
  int free_slots = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return fail(Err::dims, "dims[%d] is %d, must not be negative", i, dims[i]);
    if (dims[i] == 0) {
      ++free_slots;
    } else {
      preset *= dims[i];
      if (preset > nnodes) break;  // cannot divide nnodes; reported below
    }
  }
  if (preset > nnodes || nnodes % preset != 0) {
    return fail(Err::dims, "nnodes %d is not a multiple of the product of the non-zero dims (%lld)",
                nnodes, preset);
  }
  const int rest = static_cast<int>(nnodes / preset);
  if (free_slots == 0) {
    if (rest != 1) {
      return fail(Err::dims, "every dims entry is set and their product %lld is not nnodes %d",
                  preset, nnodes);
    }
    return Err::ok;
  }
  std::vector<int> factors = balanced_dims(rest, free_slots);
  std::size_t next = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = factors[next++];
  }
  return Err::ok;
}

Err make_cart(int comm_size, int ndims, const int* dims, const int* periods, Topology* out) {
  if (ndims < 0) return fail(Err::dims, "ndims is %d, must be >= 0", ndims);
  if (ndims > 0 && dims == nullptr) return fail(Err::arg, "dims array is NULL");
  if (ndims > 0 && periods == nullptr) return fail(Err::arg, "periods array is NULL");
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return fail(Err::dims, "dims[%d] is %d, must be positive", i, dims[i]);
  }
  long long n = product(dims, ndims);
  if (n > comm_size) {
    return fail(Err::dims, "the grid has %lld processes, more than the communicator's %d", n,
                comm_size);
  }
  Topology t;
  t.kind = MPI_CART;
  t.dims.assign(dims, dims + ndims);
  t.periods.resize(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i) t.periods[static_cast<std::size_t>(i)] = periods[i] ? 1 : 0;
  *out = std::move(t);
  return Err::ok;
}

Err make_graph(int comm_size, int nnodes, const int* index, const int* edges, Topology* out) {
  if (nnodes < 0) return fail(Err::arg, "nnodes is %d, must be >= 0", nnodes);
  if (nnodes > comm_size) {
    return fail(Err::arg, "the graph has %d nodes, more than the communicator's %d processes",
                nnodes, comm_size);
  }
  if (nnodes > 0 && index == nullptr) return fail(Err::arg, "index array is NULL");
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev) {
      return fail(Err::arg, "index[%d] is %d, less than the %d before it: index must be the "
                  "cumulative (non-decreasing) edge count", i, index[i], prev);
    }
    prev = index[i];
  }
  const int nedges = prev;
  if (nedges > 0 && edges == nullptr) return fail(Err::arg, "edges array is NULL");
  for (int e = 0; e < nedges; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) {
      return fail(Err::arg, "edges[%d] is %d, not a node of the graph (0..%d)", e, edges[e],
                  nnodes - 1);
    }
  }
  Topology t;
  t.kind = MPI_GRAPH;
  t.index.assign(index, index + nnodes);
  t.edges.assign(edges, edges + nedges);
  *out = std::move(t);
  return Err::ok;
}

Err cart_coords(const Topology& t, int rank, int* coords) {
  const int n = t.nnodes();
  if (rank < 0 || rank >= n) {
    return fail(Err::rank, "rank %d is outside the grid of %d processes", rank, n);
  }
  // Row-major: the last dimension varies fastest.
  for (int i = t.ndims() - 1; i >= 0; --i) {
    const int d = t.dims[static_cast<std::size_t>(i)];
    coords[i] = rank % d;
    rank /= d;
  }
  return Err::ok;
}

Err cart_rank(const Topology& t, const int* coords, int* rank) {
  int r = 0;
  for (int i = 0; i < t.ndims(); ++i) {
    const int d = t.dims[static_cast<std::size_t>(i)];
    int c = coords[i];
    if (c < 0 || c >= d) {
      if (!t.periods[static_cast<std::size_t>(i)]) {
        return fail(Err::arg, "coords[%d] is %d, outside the non-periodic dimension 0..%d", i, c,
                    d - 1);
      }
      c %= d;
      if (c < 0) c += d;
    }
    r = r * d + c;
  }
  *rank = r;
  return Err::ok;
}

Err cart_shift(const Topology& t, int rank, int direction, int disp, int* source, int* dest) {
  if (direction < 0 || direction >= t.ndims()) {
    return fail(Err::dims, "direction %d is not a dimension of the %d-dimensional grid",
                direction, t.ndims());
  }
  std::vector<int> coords(static_cast<std::size_t>(t.ndims()));
  if (Err e = cart_coords(t, rank, coords.data()); e != Err::ok) return e;
  const auto dir = static_cast<std::size_t>(direction);
  const int d = t.dims[dir];
  const int here = coords[dir];
  // One step of `delta` along the direction: a rank, or MPI_PROC_NULL off a non-periodic edge.
  auto neighbor = [&](long long delta) {
    long long c = here + delta;
    if (c < 0 || c >= d) {
      if (!t.periods[dir]) return MPI_PROC_NULL;
      c %= d;
      if (c < 0) c += d;
    }
    coords[dir] = static_cast<int>(c);
    int r = MPI_PROC_NULL;
    (void)cart_rank(t, coords.data(), &r);  // in range by construction
    return r;
  };
  *dest = neighbor(disp);
  *source = neighbor(-static_cast<long long>(disp));
  return Err::ok;
}

Topology cart_sub(const Topology& t, const int* remain, int rank, int* color, int* sub_rank) {
  std::vector<int> coords(static_cast<std::size_t>(t.ndims()));
  (void)cart_coords(t, rank, coords.data());
  Topology sub;
  sub.kind = MPI_CART;
  int kept = 0, dropped = 0;
  for (int i = 0; i < t.ndims(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (remain[i]) {
      sub.dims.push_back(t.dims[u]);
      sub.periods.push_back(t.periods[u]);
      kept = kept * t.dims[u] + coords[u];
    } else {
      dropped = dropped * t.dims[u] + coords[u];
    }
  }
  *color = dropped;
  *sub_rank = kept;
  return sub;
}

Err graph_neighbors_count(const Topology& t, int rank, int* count) {
  const int n = t.nnodes();
  if (rank < 0 || rank >= n) {
    return fail(Err::rank, "rank %d is not a node of the graph (0..%d)", rank, n - 1);
  }
  const auto r = static_cast<std::size_t>(rank);
  *count = t.index[r] - (rank == 0 ? 0 : t.index[r - 1]);
  return Err::ok;
}

Err graph_neighbors(const Topology& t, int rank, int maxneighbors, int* neighbors) {
  int count = 0;
  if (Err e = graph_neighbors_count(t, rank, &count); e != Err::ok) return e;
  const int first = rank == 0 ? 0 : t.index[static_cast<std::size_t>(rank) - 1];
  const int n = std::min(count, maxneighbors);
  for (int i = 0; i < n; ++i) neighbors[i] = t.edges[static_cast<std::size_t>(first + i)];
  return Err::ok;
}

}  // namespace ftmpi
