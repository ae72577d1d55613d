/* Hot spares (issue 17 item 5): ranks in VICTIMS die together once the file GO exists, the
 * survivors repair MPI_COMM_WORLD (REBUILD) with MPI_Comm_dup, and everybody, replacements
 * included, checks that an allreduce over the repaired world sees every rank once.
 *   spare_probe GO VICTIMS [outside]   VICTIMS: comma-separated world ranks, or "none"
 * Rank 0 waits for GO outside MPI (no progress), the others in MPI_Bcast; with "outside" the
 * victims wait outside MPI too, so they never answer anything after MPI_Init (a hot spare's
 * connection to them is still being opened when they die: tests/netns/spares_hosts.sh).
 * Run under mpirun --comm-mode rebuild --spares K; spares_case.sh decides from the daemon's
 * log whether a spare or a started process took each rank. Every process writes its pid to
 * $PIDDIR/rank.<pid> so that the test can check nothing is left. Rank 0 prints
 * "spare_probe OK size N repairs R" at the end. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_victim(const char *list, int rank) {
  if (strcmp(list, "none") == 0) return 0;
  for (const char *p = list; *p;) {
    if (atoi(p) == rank) return 1;
    p = strchr(p, ',');
    if (!p) break;
    p++;
  }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    fprintf(stderr, "usage: spare_probe GO VICTIMS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char path[512];
  snprintf(path, sizeof path, "%s/rank.%d", getenv("PIDDIR") ? getenv("PIDDIR") : "/tmp", (int)getpid());
  FILE *f = fopen(path, "w");
  if (f) { fprintf(f, "%d\n", (int)getpid()); fclose(f); }
  int state, rank, size, repairs = 0;
  FTMPI_Init_state(&state);
  MPI_Comm dup;
  if (state == FTMPI_INIT_RESTARTED) {
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* the survivors' repair, joined from the inside */
    MPI_Comm_free(&dup);
  } else {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int go = 0;
    const int outside = argc > 3 && strcmp(argv[3], "outside") == 0 && is_victim(argv[2], rank);
    if (rank == 0 || outside) {
      while (access(argv[1], F_OK) != 0) usleep(20000); /* the test says when */
      go = 1;
    }
    if (outside) raise(SIGKILL);
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (is_victim(argv[2], rank)) raise(SIGKILL);
  }
  int one = 1, sum = 0, rc = MPI_ERR_OTHER;
  for (int tries = 0; tries < 10; tries++) {
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rc == MPI_SUCCESS && sum == size) break;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS) MPI_Comm_free(&dup);
    repairs++;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rc != MPI_SUCCESS || sum != size) {
    fprintf(stderr, "spare_probe: rank %d: FAIL: allreduce rc %d sum %d size %d\n", rank, rc, sum, size);
    MPI_Finalize();
    return 1;
  }
  if (rank == 0) printf("spare_probe OK size %d repairs %d\n", size, repairs);
  MPI_Finalize();
  return 0;
}
