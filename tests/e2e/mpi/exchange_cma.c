/* How a large shm send to a peer goes: staged in the sender's bulk pages (the send completes
 * at once) or read by the receiver with CMA (it completes when the receiver has read it),
 * ShmEndpoint::send_by_cma. Rank 0 sends 64 KiB to rank 1, which waits 1 s before it
 * receives; in "exchange" mode rank 0 first posts a 64 KiB receive from rank 1 (the send is
 * half of an exchange), in "oneway" mode it posts none, though the library's own standing
 * receives (256 KiB) are always posted. Rank 0 tests its send for 0.3 s and reports whether
 * it completed then, which must be EARLY (1: staged) or not (0: by CMA); the bytes both ways
 * are checked.
 *   exchange_cma exchange|oneway EARLY    prints "exchange_cma: OK" from rank 0 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kBytes = 64 << 10 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  static unsigned char out[kBytes], in[kBytes];
  int rank = 0, size = 0, failures = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int exchange = argc > 1 && strcmp(argv[1], "exchange") == 0;
  if (size != 2 || argc < 3 || (!exchange && strcmp(argv[1], "oneway") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: exchange_cma exchange|oneway EARLY (2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const int want_early = atoi(argv[2]);
  for (int i = 0; i < kBytes; i++) out[i] = (unsigned char)(i * 7 + rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Request recv = MPI_REQUEST_NULL, send;
    if (exchange) MPI_Irecv(in, kBytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &recv);
    MPI_Isend(out, kBytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &send);
    int early = 0;
    const double until = now() + 0.3;
    while (!early && now() < until) MPI_Test(&send, &early, MPI_STATUS_IGNORE);
    if (early != want_early) {
      printf("exchange_cma: the send %s complete within 0.3 s (expected %s)\n",
             early ? "was" : "was not", want_early ? "complete" : "pending");
      failures++;
    }
    if (!early) MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
  } else {
    usleep(1000 * 1000);  // long after rank 0's 0.3 s of tests
    MPI_Recv(in, kBytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (exchange) MPI_Send(out, kBytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
  }
  const int from = 1 - rank;
  if (rank == 1 || exchange) {
    for (int i = 0; i < kBytes; i++) {
      if (in[i] != (unsigned char)(i * 7 + from)) {
        printf("exchange_cma: rank %d byte %d is %d, expected %d\n", rank, i, in[i],
               (unsigned char)(i * 7 + from));
        failures++;
        break;
      }
    }
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && all == 0) printf("exchange_cma: OK (%s)\n", argv[1]);
  return all ? 1 : 0;
}
