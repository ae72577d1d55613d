/* Persistent requests outlive the objects they were built from (MPI-1.3 3.9, 3.12.4, 5.4.3):
 * the datatype (a strided vector, so the data is packed and unpacked through the type) and
 * the communicator (a dup) are freed right after *_init; MPI_Start must still work, many
 * times, until MPI_Request_free. Then the dup's context id must come back: the program makes
 * more communicators than there are context ids. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

enum { kElems = 4, kStride = 3, kRounds = 20 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[kElems * kStride], in[kElems * kStride];
  for (int round = 0; round < 3; round++) {
    MPI_Comm comm;
    MPI_Datatype strided;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Type_vector(kElems, 1, kStride, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Request reqs[4];
    MPI_Recv_init(in, 1, strided, left, 7, comm, &reqs[0]);
    /* Each send mode once per round: standard, synchronous, ready (the receive is posted
     * first), buffered. */
    if (round == 0) MPI_Send_init(out, 1, strided, right, 7, comm, &reqs[1]);
    if (round == 1) MPI_Ssend_init(out, 1, strided, right, 7, comm, &reqs[1]);
    if (round == 2) MPI_Rsend_init(out, 1, strided, right, 7, comm, &reqs[1]);
    MPI_Recv_init(in, 0, MPI_INT, MPI_PROC_NULL, 7, comm, &reqs[2]);
    MPI_Send_init(out, 1, strided, MPI_PROC_NULL, 7, comm, &reqs[3]);
    MPI_Type_free(&strided);
    MPI_Comm_free(&comm);
    CHECK(strided == MPI_DATATYPE_NULL && comm == MPI_COMM_NULL, "frees reset the handles");
    for (int it = 0; it < kRounds; it++) {
      for (int i = 0; i < kElems * kStride; i++) {
        out[i] = i % kStride == 0 ? rank * 1000 + it * 10 + i / kStride : -1;
        in[i] = -2;
      }
      MPI_Start(&reqs[0]);
      MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted before any ready send */
      int rc = MPI_Startall(3, &reqs[1]);
      CHECK(rc == MPI_SUCCESS, "round %d iteration %d: Startall rc %d", round, it, rc);
      MPI_Status st[4];
      rc = MPI_Waitall(4, reqs, st);
      CHECK(rc == MPI_SUCCESS, "round %d iteration %d: Waitall rc %d", round, it, rc);
      for (int i = 0; i < kElems * kStride; i++) {
        int want = i % kStride == 0 ? left * 1000 + it * 10 + i / kStride : -2;
        CHECK(in[i] == want, "round %d iteration %d: in[%d] = %d, expected %d", round, it, i,
              in[i], want);
      }
      CHECK(st[0].MPI_SOURCE == left && st[2].MPI_SOURCE == MPI_PROC_NULL, "statuses");
      int count = -1;
      MPI_Get_count(&st[0], MPI_INT, &count);
      CHECK(count == kElems, "received %d ints", count);
    }
    for (int i = 0; i < 4; i++) MPI_Request_free(&reqs[i]);
  }
  /* A buffered persistent send and its receive on a freed communicator. */
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int cap = 1024, v = rank, w = -1;
  void *buf = malloc((size_t)cap);
  MPI_Buffer_attach(buf, cap);
  MPI_Request b[2];
  MPI_Recv_init(&w, 1, MPI_INT, left, 8, comm, &b[0]);
  MPI_Bsend_init(&v, 1, MPI_INT, right, 8, comm, &b[1]);
  MPI_Comm_free(&comm);
  MPI_Startall(2, b);
  MPI_Waitall(2, b, MPI_STATUSES_IGNORE);
  CHECK(w == left, "buffered persistent send on a freed communicator: got %d", w);
  MPI_Request_free(&b[0]);
  MPI_Request_free(&b[1]);
  /* The freed communicator's context id stays reserved while a request holds it, and comes
   * back after: 3000 dups (more than the 2048 ids) with one persistent request each. */
  for (int i = 0; i < 3000 && failures == 0; i++) {
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    CHECK(rc == MPI_SUCCESS, "dup %d: rc %d", i, rc);
    if (rc != MPI_SUCCESS) break;
    MPI_Send_init(&v, 1, MPI_INT, right, 9, comm, &b[0]);
    MPI_Comm_free(&comm);
    MPI_Request_free(&b[0]);
  }
  void *back;
  int back_size;
  MPI_Buffer_detach(&back, &back_size);
  free(buf);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && all == 0) printf("persistent_free: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
