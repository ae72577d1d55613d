// Datatype constructors: each builds a new, uncommitted record from its arguments (already
// validated by the API layer) following the MPI-1 typemap rules for bounds: MPI_LB/MPI_UB markers
// are sticky, a struct's extent is padded to its strictest element alignment, and an empty
// typemap takes no part in its parent's bounds.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "datatype.h"

namespace ftmpi {

// `blocklen` consecutive copies of `type` (spaced by its extent) at byte displacement `disp`.
struct TypeBlock {
  const Datatype* type = nullptr;
  std::size_t blocklen = 0;
  MPI_Aint disp = 0;
};

std::unique_ptr<Datatype> build_contiguous(std::size_t count, const Datatype& old);
// Stride in bytes (MPI_Type_vector passes stride * old.extent).
std::unique_ptr<Datatype> build_hvector(std::size_t count, std::size_t blocklen, MPI_Aint stride,
                                        const Datatype& old, int combiner);
// Indexed, hindexed and struct: blocks in typemap order. `is_struct` pads the extent.
std::unique_ptr<Datatype> build_blocks(const TypeBlock* blocks, std::size_t n, bool is_struct,
                                       int combiner);
std::unique_ptr<Datatype> build_resized(const Datatype& old, MPI_Aint lb, MPI_Aint extent);
std::unique_ptr<Datatype> build_dup(const Datatype& old);
// What MPI_Type_get_envelope/get_contents report for t: the user's constructor and its
// arguments (the API layer calls this after building; it overrides the builders' own
// combiner and counts, which describe the internal composition).
void set_contents(Datatype* t, int combiner, std::vector<int> ints, std::vector<MPI_Aint> aints,
                  const std::vector<const Datatype*>& types);
// MPI_Type_create_darray (datatype_darray.cpp): check_darray first.
Err check_darray(int size, int rank, int ndims, const int* gsizes, const int* distribs,
                 const int* dargs, const int* psizes, int order, MPI_Aint old_extent);
std::unique_ptr<Datatype> build_darray(int size, int rank, int ndims, const int* gsizes,
                                       const int* distribs, const int* dargs, const int* psizes,
                                       int order, const Datatype& old);
// MPI_Type_create_subarray (datatype_subarray.cpp): arguments checked by check_subarray.
Err check_subarray(int ndims, const int* sizes, const int* subsizes, const int* starts, int order,
                   MPI_Aint old_extent);
std::unique_ptr<Datatype> build_subarray(int ndims, const int* sizes, const int* subsizes,
                                         const int* starts, int order, const Datatype& old);

}  // namespace ftmpi
