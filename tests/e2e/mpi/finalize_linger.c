/* MPI_Finalize does not wait for a peer that finalized before it and lives on (2 ranks):
 * rank 0 calls MPI_Finalize at once and then computes for LINGER s before it exits; rank 1
 * sends it COUNT 4 KiB messages nobody receives (an erroneous program, but a common slip)
 * after rank 0 has finalized, so they fill rank 0's ring and the rest wait in rank 1's own
 * staging pages for a receiver that will never read them. Rank 1's MPI_Finalize must return
 * within LINGER/2 s: it used to wait until rank 0's process exited (found by its pid), now
 * rank 0's closed endpoint says so at once (transport/src/shm_ring.h, RegionHeader::closed).
 *   finalize_linger COUNT LINGER_S    prints "finalize_linger: OK" from rank 1 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  static char buf[4096];
  int rank = 0, size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: finalize_linger COUNT LINGER_S (2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const int count = atoi(argv[1]), linger = atoi(argv[2]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    usleep(300000);  /* rank 0 has finalized by now (if it is late, its finalize drops these) */
    for (int i = 0; i < count; i++) MPI_Send(buf, sizeof buf, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
  }
  const double t0 = now();
  MPI_Finalize();
  const double took = now() - t0;
  if (rank == 0) {
    sleep((unsigned)linger);
    return 0;
  }
  printf("rank 1: MPI_Finalize took %.3f s (rank 0 lives on %d s after its own)\n", took, linger);
  if (took >= linger / 2.0) {
    printf("rank 1: FAIL: MPI_Finalize waited for rank 0's exit\n");
    return 1;
  }
  printf("finalize_linger: OK\n");
  return 0;
}
