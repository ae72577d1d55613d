/* SPEC 4.7: the first call that observes a new failure returns exactly MPI_ERR_OTHER (not merely
 * a code of that class), whatever the call. The last rank SIGKILLs itself 50 ms after a barrier;
 * the survivors repeat one kind of call until it fails and check the code it returned:
 *   ft_first_error allreduce|bcast|gather|wait|send
 * (bcast from the victim as root, gather to rank 0, MPI_Wait on a receive from the victim,
 * MPI_Send to the victim; blocking receives are checked by ft_repair.) Then they repair with
 * MPI_Comm_dup and rank 0 prints "ft_first_error <kind>: OK" if every survivor saw the exact code. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *what = argc > 1 ? argv[1] : "allreduce";
  const int victim = size - 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == victim) {
    usleep(50000);
    raise(SIGKILL);
  }
  int x = 1, y = 0, all[256], rc = MPI_SUCCESS;
  /* Bounded: a failure never observed ends the loop with MPI_SUCCESS, which fails the check. */
  for (int i = 0; i < 200000 && rc == MPI_SUCCESS; i++) {
    if (strcmp(what, "allreduce") == 0) {
      rc = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(what, "bcast") == 0) {
      rc = MPI_Bcast(&x, 1, MPI_INT, victim, MPI_COMM_WORLD);
    } else if (strcmp(what, "gather") == 0) {
      rc = MPI_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (strcmp(what, "wait") == 0) {
      MPI_Request r;
      MPI_Irecv(&y, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, &r);
      rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      usleep(100);
      rc = MPI_Send(&x, 1, MPI_INT, victim, 1, MPI_COMM_WORLD);
    }
  }
  int bad = rc != MPI_ERR_OTHER;
  if (bad) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    fprintf(stderr, "rank %d: FAIL: %s: first error %d (class %d), not exactly MPI_ERR_OTHER\n", rank, what,
            rc, cls);
  }
  MPI_Comm repaired;
  while (MPI_Comm_dup(MPI_COMM_WORLD, &repaired) != MPI_SUCCESS) {
  }
  int sum = 0;
  MPI_Allreduce(&bad, &sum, 1, MPI_INT, MPI_SUM, repaired);
  if (rank == 0 && sum == 0) printf("ft_first_error %s: OK\n", what);
  MPI_Comm_free(&repaired);
  MPI_Finalize();
  return sum != 0;
}
