/* Collective outcome under failure (SPEC 4.4):  ft_atomic VICTIM ITER [relaxed]
 * Every rank runs MPI_Allreduce and four 64 KiB MPI_Bcasts from rank 0 per iteration; the
 * victim SIGKILLs itself at a random moment from iteration ITER on (while relaying data, so
 * some survivors may finish that collective and others not). Each survivor notes the first
 * collective call that returned an error, repairs MPI_COMM_WORLD (SHRINK), and the
 * survivors compare their notes. ATOMIC (default): all notes must be equal and every result
 * before it right. With "relaxed" the collectives skip the agreement; notes may then differ,
 * and the program only reports what it saw. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *killer(void *arg) {
  (void)arg;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  usleep((unsigned)(ts.tv_nsec / 1000 % 3000));
  raise(SIGKILL);
  return NULL;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int victim = argc > 1 ? atoi(argv[1]) : size - 1;
  int kill_at = argc > 2 ? atoi(argv[2]) : 50;
  int relaxed = argc > 3 && strcmp(argv[3], "relaxed") == 0;
  if (relaxed) FTMPI_Comm_set_coll_mode(MPI_COMM_WORLD, FTMPI_COLL_MODE_RELAXED);
  int mode;
  FTMPI_Comm_get_coll_mode(MPI_COMM_WORLD, &mode);
  int bad = 0, first_error = -1, calls = 0;  /* first_error: index of the failing call */
  enum { N = 4096 };
  static long in[N], out[N];
  for (int it = 0; it < kill_at + 2000 && first_error < 0; it++) {
    for (int i = 0; i < N; i++) in[i] = rank + it + i;
    if (rank == victim && it == kill_at) {
      /* Die at a random moment inside the next collectives: a thread pulls the trigger while
       * this one is relaying data (received from some, not yet sent to others). */
      pthread_t t;
      pthread_create(&t, NULL, killer, NULL);
    }
    int rc = MPI_Allreduce(in, out, N, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    calls++;
    for (int k = 0; k < 4 && rc == MPI_SUCCESS; k++) {
      static long b[8192];
      b[0] = rank == 0 ? 1000 + it : -1;
      rc = MPI_Bcast(b, 8192, MPI_LONG, 0, MPI_COMM_WORLD);
      calls++;
      if (rc == MPI_SUCCESS && b[0] != 1000 + it) bad++;
    }
    if (rc != MPI_SUCCESS) {
      first_error = calls;
      break;
    }
    for (int i = 0; i < N; i += 997) {
      long expect = (long)size * (size - 1) / 2 + (long)size * (it + i);
      if (out[i] != expect) bad++;
    }
  }
  MPI_Comm repaired;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &repaired);
  if (rc != MPI_SUCCESS) bad++;
  int n;
  MPI_Comm_size(repaired, &n);
  int *notes = malloc(sizeof(int) * n);
  MPI_Allgather(&first_error, 1, MPI_INT, notes, 1, MPI_INT, repaired);
  int same = 1;
  for (int i = 0; i < n; i++) same = same && notes[i] == notes[0];
  int allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, repaired);
  int r;
  MPI_Comm_rank(repaired, &r);
  if (r == 0) {
    printf("ft_atomic: %s mode, index of the first failing collective per survivor:", mode == FTMPI_COLL_MODE_ATOMIC ? "ATOMIC" : "RELAXED");
    for (int i = 0; i < n; i++) printf(" %d", notes[i]);
    printf("\n");
    if (allbad == 0 && notes[0] >= 0 && (same || mode == FTMPI_COLL_MODE_RELAXED))
      printf("ft_atomic OK (%s)\n", same ? "same outcome everywhere" : "outcomes differ");
    else
      printf("ft_atomic FAILED: %d wrong value(s), outcomes %s\n", allbad, same ? "same" : "differ");
  }
  MPI_Comm_free(&repaired);
  MPI_Finalize();
  return 0;
}
