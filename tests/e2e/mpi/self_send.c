/* A blocking MPI_Send to oneself before the matching receive, at sizes that go to other
 * processes by the receiver's single copy (16 KiB up) and so complete only once read: to
 * oneself nobody else would read them, so the library stages them (up to a bulk slot, 512 KiB)
 * and the send completes. MPI calls this pattern unsafe; MPICH and Open MPI hang on it from
 * their eager limits. Every rank does it, checking the bytes.
 *   self_send MAX_BYTES      prints "self_send: OK" from rank 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank = 0, failures = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long max = argc > 1 ? atol(argv[1]) : 0;
  if (max < 1 || max > (64L << 20)) {
    if (rank == 0) fprintf(stderr, "usage: self_send MAX_BYTES (1 to 64 MiB)\n");
    MPI_Finalize();
    return 2;
  }
  unsigned char *out = malloc((size_t)max), *in = malloc((size_t)max);
  for (long n = 1024; n <= max; n *= 4) {
    for (long i = 0; i < n; i++) out[i] = (unsigned char)(i * 5 + n + rank), in[i] = 0;
    MPI_Send(out, (int)n, MPI_BYTE, rank, 1, MPI_COMM_WORLD);
    MPI_Recv(in, (int)n, MPI_BYTE, rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (long i = 0; i < n; i++) {
      if (in[i] != out[i]) {
        fprintf(stderr, "self_send: rank %d: %ld bytes, byte %ld wrong\n", rank, n, i);
        failures++;
        break;
      }
    }
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("self_send: OK\n");
  free(out);
  free(in);
  MPI_Finalize();
  return all != 0;
}
