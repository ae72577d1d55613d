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

/* MPI_Buffer_attach of a strided section (MPI_SUBARRAYS_SUPPORTED): the attached memory is
 * MPI's own until it is detached (the program may not touch it), so a contiguous block of the
 * size given stands in for the section, after checking that the section holds that many bytes.
 * MPI_Buffer_detach then hands back the section's address, as for a contiguous buffer. */
static void *section_stand_in, *section_first;

void ftmpi_f08_buffer_attach_section(const CFI_cdesc_t *buffer, const MPI_Fint *size, MPI_Fint *ierr) {
  size_t bytes = buffer->elem_len;
  for (int j = 0; j < buffer->rank; j++) bytes *= (size_t)buffer->dim[j].extent;
  void *block = *size >= 0 && (size_t)*size <= bytes ? malloc((size_t)*size + 1) : NULL;
  *ierr = *size < 0 || (size_t)*size > bytes ? MPI_ERR_BUFFER : block == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
  if (*ierr == MPI_SUCCESS) *ierr = MPI_Buffer_attach(block, *size);  /* raises its own errors */
  else MPI_Comm_call_errhandler(MPI_COMM_WORLD, *ierr);
  if (*ierr != MPI_SUCCESS) {
    free(block);
    return;
  }
  section_stand_in = block;
  section_first = buffer->base_addr;
}

void ftmpi_f08_buffer_detach(void **buffer_addr, MPI_Fint *size, MPI_Fint *ierr) {
  *ierr = MPI_Buffer_detach(buffer_addr, size);
  if (*ierr == MPI_SUCCESS && section_stand_in != NULL && *buffer_addr == section_stand_in) {
    free(section_stand_in);
    *buffer_addr = section_first;
    section_stand_in = section_first = NULL;
  }
}

#pragma GCC visibility pop
