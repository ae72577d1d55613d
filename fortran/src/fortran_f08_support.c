/* What `use mpi_f08` needs beyond the `use mpi` wrappers (gen_f08.py): calls that read the
 * Fortran array descriptor (ISO_Fortran_binding.h) or return a C pointer. The f08 sentinels are
 * defined by module mpi_f08_types (BIND(C) variables); fortran_support.h recognises them. */
#include "fortran_support.h"

#include <ISO_Fortran_binding.h>

/* TYPE(MPI_Status) is BIND(C) with five c_int components, the C struct's layout. */
_Static_assert(sizeof(MPI_Status) == 5 * sizeof(int), "TYPE(MPI_Status)");

#pragma GCC visibility push(default)

/* MPI_Get_address(location): the descriptor's base address is the first element's, also for a
 * non-contiguous section (which an assumed-size dummy would have replaced by a temporary). */
void ftmpi_f08_get_address(const CFI_cdesc_t *location, MPI_Aint *address, MPI_Fint *ierr) {
  *ierr = MPI_Get_address(ftmpi_f_buffer(location->base_addr), address);
}

void ftmpi_f08_buffer_detach(void **buffer_addr, MPI_Fint *size, MPI_Fint *ierr) {
  *ierr = MPI_Buffer_detach(buffer_addr, size);
}

#pragma GCC visibility pop
