/* argv[1] picks how the job ends: "abort" (rank 1 calls MPI_Abort(comm, 7) while the others
 * block in a receive), "kill" (rank 1 SIGKILLs itself), "exit3" (rank 1 exits with status 3
 * without finalizing), "fatal" (rank 1 makes an argument error under MPI_ERRORS_ARE_FATAL).
 * Every rank writes its pid to $PIDDIR/rank.N so the test can check that none is left. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *dir = getenv("PIDDIR");
  if (dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/rank.%d", dir, rank);
    FILE *f = fopen(path, "w");
    if (f) {
      fprintf(f, "%d\n", (int)getpid());
      fclose(f);
    }
  }
  const char *how = argc > 1 ? argv[1] : "abort";
  if (rank == 1) {
    usleep(100000);
    if (!strcmp(how, "abort")) MPI_Abort(MPI_COMM_WORLD, 7);
    if (!strcmp(how, "kill")) raise(SIGKILL);
    if (!strcmp(how, "exit3")) exit(3);
    if (!strcmp(how, "fatal")) {
      int v;
      MPI_Send(&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    }
  } else {
    int v;
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
