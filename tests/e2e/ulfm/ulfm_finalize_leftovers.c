/* MPI_Finalize does not wait for a survivor that has finalized and left: a collective cut short
 * by a failure can leave a send of ours that reached its receiver after the receiver's own
 * MPI_Finalize released what it had (engine drain_sends; the shape of MPICH's ft/bcast, which
 * hung in MPI_Finalize 2 runs in ~40, here 1 in ~20).
 *   ulfm_finalize_leftovers BYTES       (mpirun --with-ft ulfm -n 4; rank 1 dies first)
 * Rank 1 exits at once; the others run a small and a BYTES broadcast from rank 0 and a reduce to
 * rank 0 over MPI_COMM_WORLD (each may fail: rank 1 is in it), then MPI_Finalize. Every survivor
 * must get through MPI_Finalize; rank 0 says "ulfm_finalize_leftovers OK" before it. */
#include "ulfm_test.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ulfm_finalize_leftovers BYTES\n");
    return 2;
  }
  const int bytes = atoi(argv[1]);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (wrank == 1) die();
  char *buf = calloc((size_t)bytes, 1);
  CHECK(buf != NULL, "out of memory");
  if (wrank == 0) strcpy(buf, "leftovers");
  int rc = MPI_Bcast(buf, 10, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS || class_of(rc) == MPIX_ERR_PROC_FAILED, "small bcast: class %d", class_of(rc));
  rc = MPI_Bcast(buf, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS || class_of(rc) == MPIX_ERR_PROC_FAILED, "large bcast: class %d", class_of(rc));
  int one = 1, sum = 0;
  rc = MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS || class_of(rc) == MPIX_ERR_PROC_FAILED, "reduce: class %d", class_of(rc));
  free(buf);
  if (wrank == 0 && failures == 0) printf("rank 0: ulfm_finalize_leftovers OK\n");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
