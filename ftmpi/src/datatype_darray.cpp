// MPI_Type_create_darray's typemap (MPI-3.1 4.1.4). The local part of a distributed array is
// the Cartesian product of one index set per dimension (this process's blocks of that
// dimension); its elements are listed in the array's memory order. Built like a subarray:
// the fastest dimension is an hindexed of runs of old elements, each slower dimension an
// hindexed of the previous type at its indices' row offsets, resized to the whole array
// (lb 0, extent prod(gsizes) * old extent). The process grid is row-major whatever `order` says.
#include <algorithm>
#include <vector>

#include "datatype_build.h"

namespace ftmpi {
namespace {

struct Run {
  int start;
  int length;
};

// The indices of dimension `d` (gsize elements over psize processes) that process coordinate
// `coord` holds, as runs of consecutive indices in increasing order.
std::vector<Run> local_runs(int gsize, int distrib, int darg, int psize, int coord) {
  std::vector<Run> runs;
  if (distrib == MPI_DISTRIBUTE_NONE) {
    runs.push_back({0, gsize});
    return runs;
  }
  int block;
  if (distrib == MPI_DISTRIBUTE_BLOCK) {
    block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
  } else {
    block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  }
  // Block k of the dimension (indices k*block ..) belongs to process k % psize; a BLOCK
  // distribution has at most one block per process, so it is the cyclic case's first round.
  const long stride = static_cast<long>(block) * psize;
  for (long first = static_cast<long>(coord) * block; first < gsize; first += stride) {
    const long last = std::min<long>(first + block, gsize);
    runs.push_back({static_cast<int>(first), static_cast<int>(last - first)});
  }
  return runs;
}

}  // namespace

Err check_darray(int size, int rank, int ndims, const int* gsizes, const int* distribs,
                 const int* dargs, const int* psizes, int order, MPI_Aint old_extent) {
  if (size <= 0) return fail(Err::arg, "size %d is not positive", size);
  if (rank < 0 || rank >= size) return fail(Err::arg, "rank %d outside 0..%d", rank, size - 1);
  if (ndims <= 0) return fail(Err::arg, "ndims %d is not positive", ndims);
  if (gsizes == nullptr || distribs == nullptr || dargs == nullptr || psizes == nullptr) {
    return fail(Err::arg, "array_of_gsizes, _distribs, _dargs or _psizes is NULL");
  }
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    return fail(Err::arg, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  }
  long procs = 1;
  MPI_Aint total = old_extent;
  for (int i = 0; i < ndims; ++i) {
    if (gsizes[i] <= 0) return fail(Err::arg, "array_of_gsizes[%d] = %d is not positive", i, gsizes[i]);
    if (psizes[i] <= 0) return fail(Err::arg, "array_of_psizes[%d] = %d is not positive", i, psizes[i]);
    const int d = distribs[i], a = dargs[i];
    if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC && d != MPI_DISTRIBUTE_NONE) {
      return fail(Err::arg, "array_of_distribs[%d] = %d is not a distribution", i, d);
    }
    if (a != MPI_DISTRIBUTE_DFLT_DARG && a <= 0) {
      return fail(Err::arg, "array_of_dargs[%d] = %d is neither positive nor "
                  "MPI_DISTRIBUTE_DFLT_DARG", i, a);
    }
    if (d == MPI_DISTRIBUTE_NONE && psizes[i] != 1) {
      return fail(Err::arg, "dimension %d is MPI_DISTRIBUTE_NONE over %d processes (must be 1)",
                  i, psizes[i]);
    }
    if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG &&
        static_cast<long>(a) * psizes[i] < gsizes[i]) {
      return fail(Err::arg, "dimension %d: blocks of %d over %d processes do not cover %d "
                  "elements", i, a, psizes[i], gsizes[i]);
    }
    procs *= psizes[i];
    if (procs > size) break;
    if (__builtin_mul_overflow(total, static_cast<MPI_Aint>(gsizes[i]), &total)) {
      return fail(Err::arg, "the array's size in bytes overflows MPI_Aint");
    }
  }
  if (procs != size) {
    return fail(Err::arg, "the process grid (product of array_of_psizes) is not size %d", size);
  }
  return Err::ok;
}

std::unique_ptr<Datatype> build_darray(int size, int rank, int ndims, const int* gsizes,
                                       const int* distribs, const int* dargs, const int* psizes,
                                       int order, const Datatype& old) {
  (void)size;
  // Row-major process coordinates of `rank`.
  std::vector<int> coord(static_cast<std::size_t>(ndims));
  for (int i = ndims - 1, r = rank; i >= 0; --i) {
    coord[static_cast<std::size_t>(i)] = r % psizes[i];
    r /= psizes[i];
  }
  auto dim = [&](int k) { return order == MPI_ORDER_C ? ndims - 1 - k : k; };  // fastest first
  std::unique_ptr<Datatype> t;
  const Datatype* inner = &old;
  MPI_Aint stride = old.extent;  // bytes of one index step in the current dimension
  for (int k = 0; k < ndims; ++k) {
    const int d = dim(k);
    std::vector<Run> runs = local_runs(gsizes[d], distribs[d], dargs[d], psizes[d],
                                       coord[static_cast<std::size_t>(d)]);
    std::vector<TypeBlock> blocks;
    for (const Run& r : runs) {
      if (k == 0) {  // runs of old elements
        blocks.push_back({inner, static_cast<std::size_t>(r.length), r.start * stride});
      } else {  // each index a copy of the faster dimensions' type at its row offset
        for (int i = 0; i < r.length; ++i) blocks.push_back({inner, 1, (r.start + i) * stride});
      }
    }
    // The new record copies what it needs from `inner` (layouts are shared), so the
    // previous level's record may go when t is replaced.
    t = build_blocks(blocks.data(), blocks.size(), false, MPI_COMBINER_HINDEXED);
    inner = t.get();
    stride *= gsizes[d];
  }
  auto out = build_resized(*t, 0, stride);
  out->name = "derived datatype (darray)";
  return out;
}

}  // namespace ftmpi
