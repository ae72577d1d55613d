/* Nonblocking collectives in several threads of a process at once (MPI_THREAD_MULTIPLE).
 *   threads_nbc [THREADS [ITERS]]   (THREADS 1..8, default 4; ITERS default 200)
 * Thread t of every rank owns comm[t] (a dup of MPI_COMM_WORLD) and per iteration runs an
 * 8 B MPI_Iallreduce finished by MPI_Wait, an MPI_Ibarrier finished by an MPI_Test loop, and
 * an MPI_Ibcast from a rotating root finished by MPI_Waitall with an MPI_Ibarrier.
 * What it checks: MPI_Wait on a collective that is the process's only pending one runs it to
 * its end on the waiting thread and gives the library lock up while idle (Nbc::wait); other
 * threads meanwhile start, test and wait for their own. A fiber resumed by two threads at
 * once, a start that does not withdraw the waiter's blocking, or a lost wake-up shows as a
 * crash, a wrong sum or a hang (the watchdog). Odd ranks' threads start t ms late, so the
 * members of one collective reach it at different moments. The last line is "threads_nbc: OK". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 8

static int rank, size, nthreads = 4, iters = 200;
static MPI_Comm comm[MAX_THREADS];
#define CHECK_PROGRAM "threads_nbc"
#include "thread_check.h"

static void *worker(void *arg) {
  const int t = (int)(long)arg;
  MPI_Comm c = comm[t];
  if (rank % 2 == 1) usleep(1000 * (unsigned)t);
  for (int i = 0; i < iters; i++) {
    long in = rank + i + t, out = -1;
    MPI_Request q[2];
    OK(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, c, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    const long want = (long)size * (size - 1) / 2 + (long)size * (i + t);
    CHECK(out == want, "thread %d iteration %d: allreduce gave %ld, want %ld", t, i, out, want);

    int flag = 0;
    OK(MPI_Ibarrier(c, &q[0]));
    while (!flag) OK(MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE));

    const int root = (i + t) % size;
    long value = rank == root ? 1000L * i + t : -1;
    OK(MPI_Ibcast(&value, 1, MPI_LONG, root, c, &q[0]));
    OK(MPI_Ibarrier(c, &q[1]));
    OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    CHECK(value == 1000L * i + t, "thread %d iteration %d: bcast gave %ld", t, i, value);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1) nthreads = atoi(argv[1]);
  if (argc > 2) iters = atoi(argv[2]);
  if (provided != MPI_THREAD_MULTIPLE || nthreads < 1 || nthreads > MAX_THREADS || iters < 1) {
    if (rank == 0) fprintf(stderr, "usage: threads_nbc [THREADS 1..8 [ITERS >= 1]] (provided %d)\n",
                           provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int t = 0; t < nthreads; t++) OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm[t]));
  pthread_t th[MAX_THREADS];
  for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(long)t);
  for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < nthreads; t++) OK(MPI_Comm_free(&comm[t]));
  int bad = 0;
  MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (bad == 0) printf("threads_nbc: OK (%d threads x %d iterations, %d ranks)\n", nthreads,
                         iters, size);
    else printf("threads_nbc: %d failures\n", bad);
  }
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
