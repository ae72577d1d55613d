/* Persistent requests: Send_init/Recv_init started many times with Startall and completed with
 * Waitall (the handles stay valid), inactive requests give empty statuses and count as inactive
 * for Waitany, Ssend_init and Bsend_init work, Request_free on an inactive request. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = 0, in = -1;
  MPI_Request reqs[2];
  MPI_Recv_init(&in, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &reqs[0]);
  MPI_Send_init(&out, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &reqs[1]);
  MPI_Status st[2];
  /* Inactive: Wait returns at once with an empty status; Waitany says MPI_UNDEFINED. */
  MPI_Wait(&reqs[0], &st[0]);
  CHECK(reqs[0] != MPI_REQUEST_NULL && st[0].MPI_SOURCE == MPI_ANY_SOURCE, "wait on an inactive request");
  int index;
  MPI_Waitany(2, reqs, &index, &st[0]);
  CHECK(index == MPI_UNDEFINED, "waitany over inactive requests %d", index);
  for (int it = 0; it < 50; it++) {
    out = rank * 100 + it;
    MPI_Startall(2, reqs);
    MPI_Waitall(2, reqs, st);
    CHECK(in == left * 100 + it && st[0].MPI_SOURCE == left, "iteration %d got %d", it, in);
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL, "handles stay valid");
  }
  /* Synchronous and buffered persistent sends. */
  MPI_Request s2, r2;
  int v = rank, w = -1;
  MPI_Ssend_init(&v, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &s2);
  MPI_Recv_init(&w, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r2);
  MPI_Start(&r2);
  MPI_Start(&s2);
  MPI_Wait(&s2, MPI_STATUS_IGNORE);
  MPI_Wait(&r2, MPI_STATUS_IGNORE);
  CHECK(w == left, "ssend_init value %d", w);
  int cap = 1024;
  void *buf = malloc(cap);
  MPI_Buffer_attach(buf, cap);
  MPI_Request b2;
  MPI_Bsend_init(&v, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &b2);
  MPI_Start(&b2);
  MPI_Wait(&b2, MPI_STATUS_IGNORE);
  MPI_Recv(&w, 1, MPI_INT, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(w == left, "bsend_init value %d", w);
  void *back;
  int back_size;
  MPI_Buffer_detach(&back, &back_size);
  free(buf);
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);
  MPI_Request_free(&s2);
  MPI_Request_free(&r2);
  MPI_Request_free(&b2);
  CHECK(reqs[0] == MPI_REQUEST_NULL && b2 == MPI_REQUEST_NULL, "free nulls persistent handles");
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("persistent: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
