/* Buffered sends: Bsend returns before any receive is posted, the attached size is enforced
 * (MPI_ERR_BUFFER when a send does not fit), detach waits for pending sends and returns the
 * buffer, Ibsend completes at once. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double v[100];
  /* A buffer too small for one message: MPI_ERR_BUFFER, deterministically. */
  char tiny[64];
  void *back;
  int back_size;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Buffer_attach(tiny, sizeof tiny);
  int rc = MPI_Bsend(v, 100, MPI_DOUBLE, right, 99, MPI_COMM_WORLD), cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_BUFFER, "a send larger than the attached buffer fails (class %d)", cls);
  MPI_Buffer_detach(&back, &back_size);
  CHECK(back == tiny && back_size == (int)sizeof tiny, "detach of the tiny buffer");

  int cap = 11 * (int)(100 * sizeof(double) + MPI_BSEND_OVERHEAD);
  void *buf = malloc(cap);
  MPI_Buffer_attach(buf, cap);
  for (int k = 0; k < 10; k++) {
    for (int i = 0; i < 100; i++) v[i] = rank * 1000 + k * 100 + i;
    CHECK(MPI_Bsend(v, 100, MPI_DOUBLE, right, k, MPI_COMM_WORLD) == MPI_SUCCESS, "bsend %d", k);
  }
  for (int k = 9; k >= 0; k--) { /* receive in reverse order: the sends did not wait for us */
    double in[100];
    MPI_Recv(in, 100, MPI_DOUBLE, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[7] == left * 1000 + k * 100 + 7, "value of message %d", k);
  }
  MPI_Request r;
  CHECK(MPI_Ibsend(v, 100, MPI_DOUBLE, right, 50, MPI_COMM_WORLD, &r) == MPI_SUCCESS, "ibsend");
  int flag = 0;
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  CHECK(flag, "Ibsend is complete once copied");
  double in[100];
  MPI_Recv(in, 100, MPI_DOUBLE, left, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  // The address it is handed need not be aligned for a pointer (MPICH's pt2pt/scancel passes
  // an int's): the library copies the pointer there (a plain store is undefined behaviour,
  // which the sanitized build reports).
  unsigned char slot[2 * sizeof(void *)];
  MPI_Buffer_detach(slot + 4, &back_size);
  memcpy(&back, slot + 4, sizeof back);
  CHECK(back == buf && back_size == cap, "detach returns the buffer");
  free(buf);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("bsend: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
