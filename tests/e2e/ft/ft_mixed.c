/* A repair that meets collectives (SPEC 4.4 + 4.5):  ft_mixed VICTIM
 * The victim SIGKILLs itself. Even survivors are in a receive from it: they get the error and
 * repair MPI_COMM_WORLD at once (MPI_Comm_dup). Odd survivors are in MPI_Barrier, then try an
 * MPI_Allreduce (refused: the communicator is DETECTED), and only then repair. In ATOMIC mode
 * each of those collectives ends with an agreement on its outcome, which meets the even ranks'
 * repair agreement; all must end with an error from both collectives and one repaired world.
 * Then every survivor checks an allreduce on the repaired world. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int init_state;
  MPI_Init(&argc, &argv);
  FTMPI_Init_state(&init_state);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int victim = argc > 1 ? atoi(argv[1]) : size - 1;
  int bad = 0;
  if (init_state != FTMPI_INIT_RESTARTED) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) raise(SIGKILL);
    int x = 0;
    if (rank % 2 == 0) {
      if (MPI_Recv(&x, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS) {
        printf("rank %d: receive from the dead rank succeeded\n", rank);
        bad++;
      }
    } else {
      if (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS) {
        printf("rank %d: barrier over a dead rank succeeded\n", rank);
        bad++;
      }
      int y = 1;
      if (MPI_Allreduce(&rank, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS) {
        printf("rank %d: allreduce on a DETECTED communicator succeeded\n", rank);
        bad++;
      }
    }
  }
  MPI_Comm repaired;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &repaired) != MPI_SUCCESS) {
    printf("rank %d: repair failed\n", rank);
    return 1;
  }
  int n, r, mode, msg_mode;
  MPI_Comm_size(repaired, &n);
  MPI_Comm_rank(repaired, &r);
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &mode, &msg_mode);
  int valid = 0;
  FTMPI_Comm_valid_size(repaired, &valid);
  int one = 1, sum = 0;
  if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, repaired) != MPI_SUCCESS || sum != valid) {
    printf("rank %d: allreduce on the repaired world gave %d, expected %d\n", rank, sum, valid);
    bad++;
  }
  int expect = mode == FTMPI_COMM_MODE_SHRINK ? size - 1 : size;
  int expect_valid = mode == FTMPI_COMM_MODE_REBUILD ? size : size - 1;
  if (n != expect || valid != expect_valid) {
    printf("rank %d: repaired size %d (valid %d), expected %d (%d)\n", rank, n, valid, expect,
           expect_valid);
    bad++;
  }
  int allbad = 0, first = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, repaired);
  MPI_Allreduce(&r, &first, 1, MPI_INT, MPI_MIN, repaired); /* BLANK: rank 0 may be a gap */
  if (r == first) printf(allbad == 0 ? "ft_mixed OK\n" : "ft_mixed FAILED: %d problem(s)\n", allbad);
  MPI_Comm_free(&repaired);
  MPI_Finalize();
  return 0;
}
