/* Small ATOMIC collectives under failure (SPEC 4.4, issue 17 item 4):  ft_atomic_small VICTIM
 * Every rank loops over 8 B collectives: MPI_Allreduce, MPI_Barrier, MPI_Allgather (one long),
 * MPI_Bcast and MPI_Reduce from a rotating root, MPI_Allreduce in place, MPI_Alltoall (one
 * long per peer; it goes through the agreement, and up to 8 ranks through the first member's
 * fan-in/fan-out, collectives/src/fan.h, as barrier and allreduce do). From iteration 200
 * on the victim SIGKILLs itself after a random 0-2 ms, which lands inside one of them (they
 * take microseconds each). All of them settle without an agreement when nothing fails
 * (coll_outcome.h; bcast and reduce through the algorithms ATOMIC mode switches them to): a
 * member that could not finish must then get the same outcome, and the same result, as those
 * that settled.
 * Each survivor notes the index of its first failing call and checks every result it got
 * before; then the world is repaired (SHRINK) and the survivors compare their notes. */
#include <mpi.h>
#include <ftmpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { WARM = 200, MAX_ITERS = WARM + 200000 };

static void *killer(void *arg) {
  (void)arg;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  usleep((unsigned)(ts.tv_nsec / 1000 % 2000));
  raise(SIGKILL);
  return NULL;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int victim = argc > 1 ? atoi(argv[1]) % size : size - 1;
  int coll_mode = 0;
  FTMPI_Comm_get_coll_mode(MPI_COMM_WORLD, &coll_mode);
  long *all = malloc(sizeof(long) * (size_t)size);
  long *to_each = malloc(sizeof(long) * (size_t)size);
  int bad = 0, first_error = -1, calls = 0;
  for (int it = 0; it < MAX_ITERS && first_error < 0; it++) {
    if (rank == victim && it == WARM) {
      pthread_t t;
      pthread_create(&t, NULL, killer, NULL);
    }
    const long mine = (long)(rank + 1) * (it + 1);
    const long sum = (long)size * (size + 1) / 2 * (it + 1);
    const int root = it % size;
    long out = -1, b = rank == root ? 7L * it + root : -1, inplace = mine;
    int rc = MPI_Allreduce(&mine, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    calls++;
    if (rc == MPI_SUCCESS) {
      bad += out != sum;
      rc = MPI_Barrier(MPI_COMM_WORLD);
      calls++;
    }
    if (rc == MPI_SUCCESS) {
      const long block = rank * 1000003L + it;
      rc = MPI_Allgather(&block, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD);
      calls++;
      for (int r = 0; rc == MPI_SUCCESS && r < size; r++) bad += all[r] != r * 1000003L + it;
    }
    if (rc == MPI_SUCCESS) {
      rc = MPI_Bcast(&b, 1, MPI_LONG, root, MPI_COMM_WORLD);
      calls++;
      bad += rc == MPI_SUCCESS && b != 7L * it + root;
    }
    if (rc == MPI_SUCCESS) {
      out = -1;
      rc = MPI_Reduce(&mine, &out, 1, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
      calls++;
      bad += rc == MPI_SUCCESS && rank == root && out != sum;
    }
    if (rc == MPI_SUCCESS) {
      rc = MPI_Allreduce(MPI_IN_PLACE, &inplace, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
      calls++;
      bad += rc == MPI_SUCCESS && inplace != (long)size * (it + 1);
    }
    if (rc == MPI_SUCCESS) {
      for (int r = 0; r < size; r++) to_each[r] = rank * 1000003L + r * 1009L + it;
      rc = MPI_Alltoall(to_each, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD);
      calls++;
      for (int r = 0; rc == MPI_SUCCESS && r < size; r++)
        bad += all[r] != r * 1000003L + rank * 1009L + it;
    }
    if (rc != MPI_SUCCESS) first_error = calls;
  }
  MPI_Comm repaired;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &repaired) != MPI_SUCCESS) {
    printf("ft_atomic_small FAILED: rank %d could not repair\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int n, r;
  MPI_Comm_size(repaired, &n);
  MPI_Comm_rank(repaired, &r);
  int *notes = malloc(sizeof(int) * (size_t)n);
  MPI_Allgather(&first_error, 1, MPI_INT, notes, 1, MPI_INT, repaired);
  int same = 1;
  for (int i = 0; i < n; i++) same = same && notes[i] == notes[0];
  int allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, repaired);
  if (r == 0) {
    printf("ft_atomic_small: %d ranks, victim %d, %s, first failing call per survivor:", size,
           victim, coll_mode == FTMPI_COLL_MODE_ATOMIC ? "ATOMIC" : "RELAXED");
    for (int i = 0; i < n; i++) printf(" %d", notes[i]);
    printf(" (call %d is %s)\n", notes[0],
           notes[0] <= 0 ? "none"
                         : (const char *[]){"alltoall", "allreduce", "barrier", "allgather", "bcast",
                                            "reduce", "in-place allreduce"}[notes[0] % 7]);
    if (allbad == 0 && notes[0] > 0 && same && n == size - 1)
      printf("ft_atomic_small OK (same outcome everywhere)\n");
    else
      printf("ft_atomic_small FAILED: %d wrong value(s), outcomes %s, %d survivors\n", allbad,
             same ? "same" : "differ", n);
  }
  free(notes);
  free(all);
  free(to_each);
  MPI_Comm_free(&repaired);
  MPI_Finalize();
  return 0;
}
