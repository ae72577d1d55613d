/* Messages of 0 B to 256 MiB arrive intact (eager and zero-copy paths), both directions,
 * pre-posted and unexpected. Run with 2 ranks. Optional argv[1]: largest size in MiB. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void fill(unsigned char *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) b[i] = (unsigned char)((i * 2654435761u + seed) >> 13);
}
static long check(const unsigned char *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    if (b[i] != (unsigned char)((i * 2654435761u + seed) >> 13)) return (long)i;
  return -1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, failures = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t max_mib = argc > 1 ? (size_t)atol(argv[1]) : 256;
  size_t sizes[] = {0, 1, 7, 8, 4095, 4096, 4097, 8176, 8177, 16383, 16384, 65536, 65537,
                    1 << 20, (1 << 20) + 3, 16u << 20, max_mib << 20};
  int nsizes = sizeof sizes / sizeof sizes[0];
  unsigned char *buf = malloc((max_mib << 20) + 16);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "p2p_sizes needs 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  for (int i = 0; i < nsizes; i++) {
    size_t n = sizes[i];
    if (n > (max_mib << 20)) continue;
    for (int unexpected = 0; unexpected < 2; unexpected++) {
      unsigned seed = (unsigned)(i * 31 + unexpected);
      if (rank == 0) {
        fill(buf, n, seed);
        if (unexpected) MPI_Recv(NULL, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)n, MPI_BYTE, 1, i, MPI_COMM_WORLD);
        /* and back */
        MPI_Status st;
        MPI_Recv(buf, (int)n, MPI_BYTE, 1, i, MPI_COMM_WORLD, &st);
        int c;
        MPI_Get_count(&st, MPI_BYTE, &c);
        long bad = check(buf, n, seed + 1);
        if (bad >= 0 || (size_t)c != n) {
          fprintf(stderr, "FAIL size %zu back: count %d, first bad byte %ld\n", n, c, bad);
          failures++;
        }
      } else {
        MPI_Request r;
        MPI_Status st;
        if (!unexpected) MPI_Irecv(buf, (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD, &r);
        if (unexpected) {
          MPI_Send(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD);
          /* give the message time to arrive before the receive is posted */
          double t = MPI_Wtime();
          while (MPI_Wtime() - t < 0.002) {}
          MPI_Irecv(buf, (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD, &r);
        }
        MPI_Wait(&r, &st);
        int c;
        MPI_Get_count(&st, MPI_BYTE, &c);
        long bad = check(buf, n, seed);
        if (bad >= 0 || (size_t)c != n) {
          fprintf(stderr, "FAIL size %zu: count %d, first bad byte %ld\n", n, c, bad);
          failures++;
        }
        fill(buf, n, seed + 1);
        MPI_Send(buf, (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD);
      }
    }
  }
  free(buf);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("p2p_sizes: OK up to %zu MiB\n", max_mib);
  return failures ? 1 : 0;
}
