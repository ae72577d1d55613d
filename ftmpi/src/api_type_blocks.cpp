// For the Fortran bindings only (fortran/src/fortran_f08_section.c, MPI_SUBARRAYS_SUPPORTED):
// the bytes `count` elements of a datatype touch, as runs in typemap order. `use mpi_f08` lays
// such a (count, datatype) over the virtual contiguous buffer of a strided array section
// (MPI-3.1 17.1.12) and needs, for a derived datatype, where each data byte lies; only the
// library's layout knows that for every constructor (markers, resized, subarray, darray...).
// Not an MPI call: lower-case name, declared in fortran/src/fortran_support.h, so neither the
// Fortran generator nor the locked-API generator sees it; it takes the library lock itself.
#include "datatype_layout.h"
#include "datatype_signature.h"
#include "library.h"
#include "library_lock.h"

using namespace ftmpi;

namespace {

using Visit = int(MPI_Aint offset, MPI_Aint len, void* arg);

// Every run of `l` at origin `base`, in typemap order; stops at the first non-zero answer.
int visit_layout(const Layout& l, MPI_Aint base, Visit* visit, void* arg) {
  for (const Block& b : l.blocks) {
    for (std::size_t k = 0; k < b.repeat; ++k) {
      const MPI_Aint at = base + b.offset + static_cast<MPI_Aint>(k) * b.stride;
      const int rc = b.child ? visit_layout(*b.child, at, visit, arg)
                             : (b.len == 0 ? 0 : visit(at, static_cast<MPI_Aint>(b.len), arg));
      if (rc != 0) return rc;
    }
  }
  return 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int ftmpi_type_blocks(
    MPI_Datatype type, int count, Visit* visit, void* arg, MPI_Datatype* uniform_kind) {
  LibraryLock::Entry entry;
  const Datatype* t = nullptr;
  if (Err e = lib().types.lookup(type, &t); e != Err::ok) return to_code(e);
  if (count < 0 || visit == nullptr || uniform_kind == nullptr) return MPI_ERR_ARG;
  *uniform_kind = t->signature ? t->signature->uniform_kind : MPI_DATATYPE_NULL;
  if (!t->layout) return MPI_SUCCESS;  // no data bytes
  for (int i = 0; i < count; ++i) {
    const int rc = visit_layout(*t->layout, static_cast<MPI_Aint>(i) * t->extent, visit, arg);
    if (rc != 0) return rc;
  }
  return MPI_SUCCESS;
}
