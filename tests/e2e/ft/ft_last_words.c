/* What a rank prints just before it dies reaches mpirun's stdout (FTMPI_LINE_BUFFERED_STDOUT,
 * on by default: a rank's stdout is a pipe to its daemon, which stdio would buffer fully, so the
 * lines would die with the process).
 *   ft_last_words LINES
 * The last rank prints LINES lines with printf (no fflush) and SIGKILLs itself; rank 0 waits in
 * MPI_Recv from it until the failure returns, then prints "ft_last_words OK". Run in SHRINK
 * mode; the test's pattern is the victim's last line. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ft_last_words LINES\n");
    return 2;
  }
  const int lines = atoi(argv[1]);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int victim = size - 1;
  if (rank == victim) {
    for (int k = 1; k <= lines; k++) printf("victim rank %d line %d of %d\n", rank, k, lines);
    raise(SIGKILL);
  }
  if (rank == 0) {
    int x;
    const int rc = MPI_Recv(&x, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) {
      fprintf(stderr, "rank 0: MPI_Recv from the dead rank succeeded\n");
      return 1;
    }
    printf("ft_last_words OK\n");
  }
  MPI_Finalize();
  return 0;
}
