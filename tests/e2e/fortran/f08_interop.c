/* The C side of f08_errors: a Fortran handle (comm%MPI_VAL) converted with MPI_Comm_f2c and
 * used in C; the C world converted back with MPI_Comm_c2f for the Fortran side to compare. */
#include <mpi.h>

int f08_c_comm_size(MPI_Fint fcomm) {
  int n = -1;
  if (MPI_Comm_size(MPI_Comm_f2c(fcomm), &n) != MPI_SUCCESS) return -1;
  return n;
}

MPI_Fint f08_c_world(void) { return MPI_Comm_c2f(MPI_COMM_WORLD); }
