/* MPI_Probe / MPI_Iprobe: dynamic-size messages (probe, Get_count, allocate, receive), wildcard
 * probes report source/tag, Iprobe finds nothing before the send, MPI_PROC_NULL. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, flag;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag == 0, "nothing to find yet");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) {
    int n = 10 * rank + 1;
    int *v = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) v[i] = rank * 1000 + i;
    MPI_Send(v, n, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    free(v);
  } else {
    for (int k = 1; k < size; k++) {
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      int n;
      MPI_Get_count(&st, MPI_INT, &n);
      int src = st.MPI_SOURCE;
      CHECK(st.MPI_TAG == 100 + src && n == 10 * src + 1, "probe src %d tag %d count %d", src, st.MPI_TAG, n);
      int *v = malloc(sizeof(int) * n);
      MPI_Recv(v, n, MPI_INT, src, st.MPI_TAG, MPI_COMM_WORLD, &st);
      for (int i = 0; i < n; i++) CHECK(v[i] == src * 1000 + i, "value %d", i);
      free(v);
    }
  }
  MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag == 1 && st.MPI_SOURCE == MPI_PROC_NULL, "proc_null probe");
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("probe: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
