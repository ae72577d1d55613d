/* The completion calls that return positions in the request array: Fortran counts them from 1
 * (MPI-3.1 3.7.5), C from 0. MPI_UNDEFINED (no active request) passes unchanged. */
#include "fortran_support.h"

static void to_fortran_indices(MPI_Fint *indices, int n) {
  for (int i = 0; i < n; i++) indices[i] += 1;
}

#pragma GCC visibility push(default)

void mpi_waitany_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
                  MPI_Fint *ierr) {
  *ierr = MPI_Waitany(*count, (MPI_Request *)requests, index, ftmpi_f_status(status));
  if (*ierr == MPI_SUCCESS && *index != MPI_UNDEFINED) *index += 1;
}
FTMPI_F_PMPI(mpi_waitany_);

void mpi_testany_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                  MPI_Fint *status, MPI_Fint *ierr) {
  *ierr = MPI_Testany(*count, (MPI_Request *)requests, index, flag, ftmpi_f_status(status));
  if (*ierr == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) *index += 1;
}
FTMPI_F_PMPI(mpi_testany_);

/* MPI_ERR_IN_STATUS still reports which requests completed: convert their indices too. */
void mpi_waitsome_(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                   MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr) {
  *ierr = MPI_Waitsome(*incount, (MPI_Request *)requests, outcount, indices,
                       ftmpi_f_statuses(statuses));
  if ((*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
    to_fortran_indices(indices, *outcount);
  }
}
FTMPI_F_PMPI(mpi_waitsome_);

void mpi_testsome_(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                   MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr) {
  *ierr = MPI_Testsome(*incount, (MPI_Request *)requests, outcount, indices,
                       ftmpi_f_statuses(statuses));
  if ((*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
    to_fortran_indices(indices, *outcount);
  }
}
FTMPI_F_PMPI(mpi_testsome_);

#pragma GCC visibility pop
