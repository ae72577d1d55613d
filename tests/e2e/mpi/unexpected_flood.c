/* A receiver busy elsewhere while a sender floods it with messages it has not asked for yet
 * must not slow down with their number (tcp;ofi_rxm: each message above the inline size has a
 * payload waiting in the provider's unexpected list; the stream's receive buffers used to be
 * tagged too, so every repost of one walked that whole list: quadratic, ft.suspect.tcp's
 * victim needed more than 13 s to leave a barrier 1 run in ~30, and the test hung).
 *   unexpected_flood COUNT BYTES
 * Rank 0 sends COUNT messages of BYTES (tag 1), then one of tag 2. Rank 1 first receives the
 * tag-2 one (all COUNT arrive unexpected meanwhile), then the COUNT in order, checking each
 * payload, and prints how long each part took (20000 x 4 KiB on tcp: 5.8 s with the quadratic
 * scan, 0.67 s without; the test's TIMEOUT is the hang guard, no timing is asserted).
 * BYTES must be a size the transport buffers without its receive (tcp;ofi_rxm: up to 4 KiB;
 * shm: inline ones, up to 4080 B; a larger shm send waits for its receive, as MPI allows). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 20000;
  const int bytes = argc > 2 ? atoi(argv[2]) : 4096;
  if (size != 2 || count < 1 || bytes < (int)sizeof(int)) {
    if (rank == 0) fprintf(stderr, "usage: unexpected_flood COUNT BYTES (2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  char *buf = malloc((size_t)bytes);
  int bad = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (rank == 0) {
    for (int i = 0; i < count; i++) {
      memset(buf, (char)i, (size_t)bytes);
      memcpy(buf, &i, sizeof i);
      MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    }
    MPI_Send(&count, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
  } else {
    int n = 0;
    MPI_Recv(&n, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double t1 = MPI_Wtime();
    for (int i = 0; i < count; i++) {
      int got = -1;
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      memcpy(&got, buf, sizeof got);
      if (got != i || buf[bytes - 1] != (char)i) {
        if (bad++ == 0) fprintf(stderr, "unexpected_flood: message %d carries %d\n", i, got);
      }
    }
    const double t2 = MPI_Wtime();
    printf("unexpected_flood: %d x %d B: %.3f s until the last one arrived, %.3f s to receive "
           "them\n", count, bytes, t1 - t0, t2 - t1);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("unexpected_flood: OK\n");
  free(buf);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
