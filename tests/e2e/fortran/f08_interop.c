/* The C side of f08_errors: a Fortran handle (comm%MPI_VAL) converted with MPI_Comm_f2c and
 * used in C; the C world converted back with MPI_Comm_c2f for the Fortran side to compare. */
#include <mpi.h>

int f08_c_comm_size(MPI_Fint fcomm) {
  int n = -1;
  if (MPI_Comm_size(MPI_Comm_f2c(fcomm), &n) != MPI_SUCCESS) return -1;
  return n;
}

MPI_Fint f08_c_world(void) { return MPI_Comm_c2f(MPI_COMM_WORLD); }

/* A TYPE(MPI_Status) handed to C: MPI_Status_f082c, its count read in C, the tag changed and
 * converted back with MPI_Status_c2f08; through a `use mpi` status (f082f/f2f08) and back;
 * an IGNORE status refused with MPI_ERR_ARG. Returns the element count, or -1. */
int f08_c_status(MPI_F08_status *f08) {
  MPI_Status c;
  MPI_Fint f[MPI_F_STATUS_SIZE];
  int n = -1, cls = -1;
  if (MPI_Status_f082c(f08, &c) != MPI_SUCCESS || MPI_Get_count(&c, MPI_INT, &n) != MPI_SUCCESS) return -1;
  c.MPI_TAG += 100;
  if (MPI_Status_c2f08(&c, f08) != MPI_SUCCESS) return -1;
  if (MPI_Status_f082f(f08, f) != MPI_SUCCESS || f[MPI_F_TAG] != c.MPI_TAG) return -1;
  f[MPI_F_SOURCE] += 1000;
  if (MPI_Status_f2f08(f, f08) != MPI_SUCCESS || f08->MPI_SOURCE != c.MPI_SOURCE + 1000) return -1;
  MPI_Errhandler caller;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &caller);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Error_class(MPI_Status_f082c(NULL, &c), &cls);
  if (cls != MPI_ERR_ARG) return -1;
  MPI_Error_class(MPI_Status_c2f08(&c, NULL), &cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, caller);
  MPI_Errhandler_free(&caller);
  return cls == MPI_ERR_ARG ? n : -1;
}
