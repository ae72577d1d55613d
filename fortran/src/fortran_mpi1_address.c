/* The MPI-1 calls whose Fortran addresses and displacements are default INTEGERs, where C has
 * MPI_Aint (MPI-1.3 3.12; MPI-2 added the INTEGER(KIND=MPI_ADDRESS_KIND) forms, which the
 * generator binds directly). An address or extent that does not fit an INTEGER is refused with
 * MPI_ERR_ARG, as MPICH does, instead of being silently truncated. */
#include "fortran_support.h"

#include <limits.h>

static int fits(MPI_Aint a) { return a >= INT_MIN && a <= INT_MAX; }

/* INTEGER displacements widened for C; NULL when out of memory. */
static MPI_Aint *widen(const MPI_Fint *d, MPI_Fint count) {
  size_t n = count > 0 ? (size_t)count : 0;
  MPI_Aint *a = malloc((n + 1) * sizeof(MPI_Aint));
  if (a != NULL) {
    for (size_t i = 0; i < n; i++) a[i] = d[i];
  }
  return a;
}

/* Narrows a C address result into an INTEGER, or reports that it does not fit. */
static void narrow(int rc, MPI_Aint value, MPI_Fint *out, MPI_Fint *ierr) {
  if (rc == MPI_SUCCESS && !fits(value)) rc = MPI_ERR_ARG;
  if (rc == MPI_SUCCESS) *out = (MPI_Fint)value;
  *ierr = rc;
}

#pragma GCC visibility push(default)

void mpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierr) {
  MPI_Aint a = 0;
  int rc = MPI_Get_address(ftmpi_f_buffer(location), &a);
  narrow(rc, a, address, ierr);
}
FTMPI_F_PMPI(mpi_address_);

void mpi_type_hvector_(const MPI_Fint *count, const MPI_Fint *blocklength, const MPI_Fint *stride,
                       const MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr) {
  *ierr = MPI_Type_hvector(*count, *blocklength, (MPI_Aint)*stride, MPI_Type_f2c(*oldtype),
                           (MPI_Datatype *)newtype);
}
FTMPI_F_PMPI(mpi_type_hvector_);

void mpi_type_hindexed_(const MPI_Fint *count, const MPI_Fint *blocklengths,
                        const MPI_Fint *displacements, const MPI_Fint *oldtype, MPI_Fint *newtype,
                        MPI_Fint *ierr) {
  MPI_Aint *d = widen(displacements, *count);
  if (d == NULL) { *ierr = MPI_ERR_NO_MEM; return; }
  *ierr = MPI_Type_hindexed(*count, blocklengths, d, MPI_Type_f2c(*oldtype), (MPI_Datatype *)newtype);
  free(d);
}
FTMPI_F_PMPI(mpi_type_hindexed_);

void mpi_type_struct_(const MPI_Fint *count, const MPI_Fint *blocklengths,
                      const MPI_Fint *displacements, const MPI_Fint *types, MPI_Fint *newtype,
                      MPI_Fint *ierr) {
  MPI_Aint *d = widen(displacements, *count);
  if (d == NULL) { *ierr = MPI_ERR_NO_MEM; return; }
  *ierr = MPI_Type_struct(*count, blocklengths, d, (const MPI_Datatype *)types,
                          (MPI_Datatype *)newtype);
  free(d);
}
FTMPI_F_PMPI(mpi_type_struct_);

void mpi_type_extent_(const MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierr) {
  MPI_Aint a = 0;
  int rc = MPI_Type_extent(MPI_Type_f2c(*datatype), &a);
  narrow(rc, a, extent, ierr);
}
FTMPI_F_PMPI(mpi_type_extent_);

void mpi_type_lb_(const MPI_Fint *datatype, MPI_Fint *lb, MPI_Fint *ierr) {
  MPI_Aint a = 0;
  int rc = MPI_Type_lb(MPI_Type_f2c(*datatype), &a);
  narrow(rc, a, lb, ierr);
}
FTMPI_F_PMPI(mpi_type_lb_);

void mpi_type_ub_(const MPI_Fint *datatype, MPI_Fint *ub, MPI_Fint *ierr) {
  MPI_Aint a = 0;
  int rc = MPI_Type_ub(MPI_Type_f2c(*datatype), &a);
  narrow(rc, a, ub, ierr);
}
FTMPI_F_PMPI(mpi_type_ub_);

/* Fortran cannot use the returned address; the buffer is the one it attached. */
void mpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr) {
  (void)buffer_addr;
  void *detached = NULL;
  *ierr = MPI_Buffer_detach(&detached, size);
}
FTMPI_F_PMPI(mpi_buffer_detach_);

#pragma GCC visibility pop
