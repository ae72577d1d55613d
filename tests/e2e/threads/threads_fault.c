/* MPI_THREAD_MULTIPLE under failure: a rank dies while every survivor has threads blocked in
 * MPI, and every one of those calls returns an error (no hang, no crash).
 *   threads_fault VICTIM     (run with --comm-mode shrink or blank; at least 3 ranks)
 * Each survivor runs four threads, all on communicators with MPI_ERRORS_RETURN:
 *   0: MPI_Recv from the victim on MPI_COMM_WORLD (the victim never sends)
 *   1: MPI_Recv from MPI_ANY_SOURCE on its own dup (nobody sends)
 *   2: MPI_Allreduce on its own dup (the victim never joins)
 *   3: MPI_Recv from a live rank on its own dup (nobody sends: NOP mode purges it)
 * The victim SIGKILLs itself once the survivors report their threads started. Afterwards the
 * main thread repairs MPI_COMM_WORLD with MPI_Comm_dup and checks an Allreduce over the
 * survivors. Prints "threads_fault: OK" on the lowest surviving rank. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NT 4
static int rank, size, victim;
static MPI_Comm comms[NT];
static int results[NT];

static void* blocked(void* arg) {
  int t = (int)(long)arg, buf = 0;
  int live = (rank + 1) % size == victim ? (rank + 2) % size : (rank + 1) % size;
  switch (t) {
    case 0:
      results[t] = MPI_Recv(&buf, 1, MPI_INT, victim, 5, comms[t], MPI_STATUS_IGNORE);
      break;
    case 1:
      results[t] = MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 5, comms[t], MPI_STATUS_IGNORE);
      break;
    case 2: {
      int in = 1, out = 0;
      results[t] = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comms[t]);
      break;
    }
    default:
      results[t] = MPI_Recv(&buf, 1, MPI_INT, live, 5, comms[t], MPI_STATUS_IGNORE);
      break;
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  victim = argc > 1 ? atoi(argv[1]) : 1;
  if (provided != MPI_THREAD_MULTIPLE || size < 3 || victim < 0 || victim >= size) {
    if (rank == 0) fprintf(stderr, "usage: threads_fault VICTIM (>= 3 ranks, THREAD_MULTIPLE)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  comms[0] = MPI_COMM_WORLD;
  for (int t = 1; t < NT; ++t) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_RETURN);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == victim) {
    /* Wait until every survivor says its threads are started, then die. */
    for (int s = 0; s < size - 1; ++s) {
      int dummy;
      MPI_Recv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 9, comms[1], MPI_STATUS_IGNORE);
    }
    usleep(200000); /* let the survivors' threads block */
    raise(SIGKILL);
  }
  pthread_t th[NT];
  for (long t = 0; t < NT; ++t) pthread_create(&th[t], NULL, blocked, (void*)t);
  int started = 1;
  MPI_Send(&started, 1, MPI_INT, victim, 9, comms[1]);
  for (int t = 0; t < NT; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < NT; ++t) {
    if (results[t] == MPI_SUCCESS) {
      fprintf(stderr, "threads_fault: rank %d thread %d: call succeeded after the failure\n", rank, t);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Comm repaired;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &repaired) != MPI_SUCCESS) {
    fprintf(stderr, "threads_fault: rank %d: repair failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int one = 1, alive = 0;
  MPI_Allreduce(&one, &alive, 1, MPI_INT, MPI_SUM, repaired);
  if (alive != size - 1) {
    fprintf(stderr, "threads_fault: rank %d: %d alive after repair, expected %d\n", rank, alive,
            size - 1);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == (victim == 0 ? 1 : 0)) printf("threads_fault: OK (%d threads on each of %d survivors got an error)\n", NT, alive);
  for (int t = 1; t < NT; ++t) MPI_Comm_free(&comms[t]);
  MPI_Comm_free(&repaired);
  MPI_Finalize();
  return 0;
}
