/* The C side of the Fortran conventions: MPI_*_f2c/c2f round trips, MPI_Status_f2c/c2f copy
 * the fields a Fortran status holds (MPI_F_SOURCE...), and an IGNORE status is refused with
 * MPI_ERR_ARG. */
#include <mpi.h>
#include <stdio.h>

#define CHECK(c) do { if (!(c)) { printf("handles: FAIL: %s (line %d)\n", #c, __LINE__); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
  CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE_PRECISION)) == MPI_DOUBLE_PRECISION);
  CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_MAXLOC)) == MPI_MAXLOC);
  CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV);
  CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN);
  MPI_Group g;
  MPI_Comm_group(MPI_COMM_WORLD, &g);
  CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g);
  MPI_Group_free(&g);
  MPI_Request r;
  int x = 0, rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Irecv(&x, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &r);
  CHECK(MPI_Request_f2c(MPI_Request_c2f(r)) == r);
  MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_SELF);
  MPI_Status s, back;
  MPI_Wait(&r, &s);
  MPI_Fint f[MPI_F_STATUS_SIZE];
  CHECK(MPI_Status_c2f(&s, f) == MPI_SUCCESS);
  CHECK(f[MPI_F_SOURCE] == 0 && f[MPI_F_TAG] == 3 && f[MPI_F_ERROR] == s.MPI_ERROR);
  CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS);
  int n = -1;
  MPI_Get_count(&back, MPI_INT, &n);
  CHECK(n == 1 && back.MPI_SOURCE == 0 && back.MPI_TAG == 3);
  int cls = -1;
  MPI_Error_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), &cls);
  CHECK(cls == MPI_ERR_ARG);
  MPI_Error_class(MPI_Status_c2f(MPI_STATUS_IGNORE, f), &cls);
  CHECK(cls == MPI_ERR_ARG);
  if (rank == 0) printf("handles: PASS\n");
  MPI_Finalize();
  return 0;
}
