/* Point-to-point basics at any size >= 1: ring exchange, MPI_PROC_NULL, wildcards and status
 * fields, MPI_Get_count, COMM_SELF self-messages, non-overtaking order, Isend/Irecv/Waitall/Test. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, "\n");                                    \
      failures++;                                               \
    }                                                           \
  } while (0)

int main(int argc, char **argv) {
  int rank, size, flag;
  MPI_Initialized(&flag);
  if (flag) return 1;
  MPI_Init(&argc, &argv);
  MPI_Initialized(&flag);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(flag == 1, "MPI_Initialized after init");
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Ring with Sendrecv-style Isend/Irecv, status fields and count. */
  double out[5], in[5];
  for (int i = 0; i < 5; i++) out[i] = rank * 10.0 + i;
  MPI_Request reqs[2];
  MPI_Status sts[2];
  MPI_Irecv(in, 5, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(out, 5, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &reqs[1]);
  CHECK(MPI_Waitall(2, reqs, sts) == MPI_SUCCESS, "waitall");
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "requests nulled");
  for (int i = 0; i < 5; i++) CHECK(in[i] == left * 10.0 + i, "ring value %d", i);
  CHECK(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 7, "status src %d tag %d", sts[0].MPI_SOURCE, sts[0].MPI_TAG);
  int count = -1;
  MPI_Get_count(&sts[0], MPI_DOUBLE, &count);
  CHECK(count == 5, "count %d", count);
  MPI_Get_count(&sts[0], MPI_INT, &count);
  CHECK(count == 10, "count as int %d", count);

  /* Wildcards: everyone sends its rank to 0 with tag = rank; 0 receives with ANY/ANY. */
  if (rank == 0) {
    int seen = 0;
    for (int i = 1; i < size; i++) {
      int v;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      CHECK(v == st.MPI_SOURCE && v == st.MPI_TAG, "wildcard v=%d src=%d tag=%d", v, st.MPI_SOURCE, st.MPI_TAG);
      seen |= 1 << v;
    }
    CHECK(size > 30 || seen == ((1 << size) - 2), "every rank seen once (mask %x)", seen);
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
  }

  /* Wildcard receives above could take the messages below: keep the phases apart. */
  MPI_Barrier(MPI_COMM_WORLD);

  /* Non-overtaking: 200 messages same tag arrive in order, mixed with another tag. */
  if (size > 1) {
    if (rank == 1) {
      for (int i = 0; i < 200; i++) {
        MPI_Send(&i, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        if (i % 10 == 0) MPI_Send(&i, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
      }
    } else if (rank == 0) {
      for (int i = 0; i < 200; i++) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v == i, "order: got %d expected %d", v, i);
      }
      for (int i = 0; i < 200; i += 10) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v == i, "order tag 4: got %d expected %d", v, i);
      }
    }
  }

  /* Blocking sends behind nonblocking ones that outgrew the receiver's ring (160 KB of 4000 B
   * messages while the receiver waits; a 64 KiB ring defers the rest): MPI_Send may finish
   * without a request only when nothing is queued before it, so none overtakes. */
  if (size > 1) {
    enum { kBig = 40, kSmall = 20, kBytes = 4000 };
    int *msg = calloc(kBig, kBytes);
    if (rank == 1) {
      MPI_Request rs[kBig];
      for (int i = 0; i < kBig; i++) {
        msg[i * (kBytes / (int)sizeof(int))] = i;
        MPI_Isend(msg + i * (kBytes / (int)sizeof(int)), kBytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rs[i]);
      }
      for (int i = kBig; i < kBig + kSmall; i++) MPI_Send(&i, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
      MPI_Waitall(kBig, rs, MPI_STATUSES_IGNORE);
    } else if (rank == 0) {
      for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < 0.05;) {
      }
      for (int i = 0; i < kBig + kSmall; i++) {
        MPI_Recv(msg, kBytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(msg[0] == i, "send behind deferred isends: got %d expected %d", msg[0], i);
      }
    }
    free(msg);
  }

  /* MPI_PROC_NULL: completes at once with the standard status. */
  MPI_Status st;
  int dummy = 42;
  CHECK(MPI_Send(&dummy, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "send proc_null");
  CHECK(MPI_Recv(&dummy, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv proc_null");
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0, "proc_null status");
  CHECK(dummy == 42, "proc_null recv leaves buffer");

  /* MPI_COMM_SELF: message to myself, Test until done. */
  int me_size, me_rank;
  MPI_Comm_size(MPI_COMM_SELF, &me_size);
  MPI_Comm_rank(MPI_COMM_SELF, &me_rank);
  CHECK(me_size == 1 && me_rank == 0, "self size/rank");
  MPI_Request r;
  int got = -1, mine = rank + 100;
  MPI_Irecv(&got, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r);
  MPI_Send(&mine, 1, MPI_INT, 0, 9, MPI_COMM_SELF);
  int done = 0;
  for (long spins = 0; !done && spins < 100000000L; spins++) MPI_Test(&r, &done, &st);
  CHECK(done && got == rank + 100 && st.MPI_SOURCE == 0, "self message got=%d", got);

  /* Zero-byte messages and MPI_Wait on a null request. */
  if (size > 1) {
    if (rank == 0) MPI_Send(NULL, 0, MPI_BYTE, 1, 11, MPI_COMM_WORLD);
    if (rank == 1) {
      MPI_Recv(NULL, 0, MPI_BYTE, 0, 11, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_BYTE, &count);
      CHECK(count == 0, "zero-byte count %d", count);
    }
  }
  r = MPI_REQUEST_NULL;
  CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS, "wait null");

  double t0 = MPI_Wtime();
  CHECK(MPI_Wtick() > 0 && MPI_Wtick() < 1e-3, "wtick");
  CHECK(MPI_Wtime() >= t0, "wtime monotonic");
  char name[MPI_MAX_PROCESSOR_NAME];
  int len;
  MPI_Get_processor_name(name, &len);
  CHECK(len > 0 && (int)strlen(name) == len, "processor name");

  MPI_Finalize();
  MPI_Finalized(&flag);
  CHECK(flag == 1, "finalized");
  if (failures == 0 && rank == 0) printf("p2p_basic: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
