// MPI_Type_create_subarray's typemap, composed from the other builders the way MPICH does it:
// the fastest-varying dimension is a contiguous run of subsizes elements, every slower one an
// hvector of the previous type strided by that dimension's full row, all placed at the
// starts' offset and resized to the full array (lb 0, extent prod(sizes) * old extent).
#include "datatype_build.h"

namespace ftmpi {

Err check_subarray(int ndims, const int* sizes, const int* subsizes, const int* starts, int order,
                   MPI_Aint old_extent) {
  if (ndims <= 0) return fail(Err::arg, "ndims %d is not positive", ndims);
  if (sizes == nullptr || subsizes == nullptr || starts == nullptr) {
    return fail(Err::arg, "array_of_sizes, array_of_subsizes or array_of_starts is NULL");
  }
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    return fail(Err::arg, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  }
  MPI_Aint total = old_extent;
  for (int i = 0; i < ndims; ++i) {
    if (sizes[i] <= 0) return fail(Err::arg, "array_of_sizes[%d] = %d is not positive", i, sizes[i]);
    if (subsizes[i] <= 0 || subsizes[i] > sizes[i]) {
      return fail(Err::arg, "array_of_subsizes[%d] = %d outside 1..%d", i, subsizes[i], sizes[i]);
    }
    if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
      return fail(Err::arg, "array_of_starts[%d] = %d outside 0..%d", i, starts[i],
                  sizes[i] - subsizes[i]);
    }
    if (__builtin_mul_overflow(total, static_cast<MPI_Aint>(sizes[i]), &total)) {
      return fail(Err::arg, "the array's size in bytes overflows MPI_Aint");
    }
  }
  return Err::ok;
}

std::unique_ptr<Datatype> build_subarray(int ndims, const int* sizes, const int* subsizes,
                                         const int* starts, int order, const Datatype& old) {
  auto dim = [&](int k) { return order == MPI_ORDER_C ? ndims - 1 - k : k; };  // fastest first
  int d = dim(0);
  std::unique_ptr<Datatype> t = build_contiguous(static_cast<std::size_t>(subsizes[d]), old);
  MPI_Aint stride = sizes[d] * old.extent;  // bytes of one full row of the dimensions so far
  MPI_Aint disp = starts[d] * old.extent;
  for (int k = 1; k < ndims; ++k) {
    d = dim(k);
    t = build_hvector(static_cast<std::size_t>(subsizes[d]), 1, stride, *t, MPI_COMBINER_HVECTOR);
    disp += starts[d] * stride;
    stride *= sizes[d];
  }
  TypeBlock placed{t.get(), 1, disp};
  auto at = build_blocks(&placed, 1, false, MPI_COMBINER_HINDEXED);
  auto out = build_resized(*at, 0, stride);
  out->name = "derived datatype (subarray)";
  out->combiner = MPI_COMBINER_SUBARRAY;
  out->env_ints = 3 * ndims + 2;
  out->env_aints = 0;
  out->env_types = 1;
  return out;
}

}  // namespace ftmpi
