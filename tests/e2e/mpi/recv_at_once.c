/* Receives whose message is already here (taken in from the transport, waiting unexpected):
 * MPI_Recv and a collective's receive complete them at once, with no request (Engine::irecv's
 * at_once). Each sender sends a series, then a token; once rank 0 has received the token, the
 * series is all unexpected at rank 0 (one sender's messages are taken in in order), and every
 * receive below meets a message that is already there:
 *   tag 3 (100 B) first, out of order; MPI_ANY_TAG then takes the oldest (tag 1, 8 B); an
 *   empty one (tag 2); a large one (tag 4, 6000 B: announced, not taken at once); one longer
 *   than the buffer (tag 5: MPI_ERR_TRUNCATE, as when posted); a synchronous send's message
 *   (tag 6: its sender's MPI_Wait needs our ack, so it hangs if the ack is not sent); three
 *   ints into a strided (non-contiguous) type (tag 7).
 * Then MPI_ANY_SOURCE over all senders' waiting messages, and 8 B MPI_Bcast / MPI_Reduce with
 * one side running ahead (the others' messages wait when the late side arrives).
 *   recv_at_once [iterations]   (default 10; any number of ranks >= 2) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

enum { kLarge = 6000, kToken = 99, kWildToken = 98 };

static unsigned char pattern(int sender, int iter, int i) { return (unsigned char)(sender * 31 + iter * 7 + i); }

static void send_series(int iter) {
  int one[2] = {rank, 1}, sixteen[4] = {rank, 5, 5, 5}, sync_v = rank * 100 + iter, three[3];
  unsigned char mid[100], *large = malloc(kLarge);
  for (int i = 0; i < 100; i++) mid[i] = pattern(rank, iter, i);
  for (int i = 0; i < kLarge; i++) large[i] = pattern(rank, iter, i);
  for (int i = 0; i < 3; i++) three[i] = rank * 1000 + iter * 10 + i;
  MPI_Request sync, big;  /* both finish only once rank 0 receives them: after the token */
  MPI_Send(one, 2, MPI_INT, 0, 1, MPI_COMM_WORLD);
  MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
  MPI_Send(mid, 100, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
  MPI_Isend(large, kLarge, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &big);
  MPI_Send(sixteen, 4, MPI_INT, 0, 5, MPI_COMM_WORLD);
  MPI_Issend(&sync_v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &sync);
  MPI_Send(three, 3, MPI_INT, 0, 7, MPI_COMM_WORLD);
  MPI_Send(&iter, 1, MPI_INT, 0, kToken, MPI_COMM_WORLD);
  CHECK(MPI_Wait(&big, MPI_STATUS_IGNORE) == MPI_SUCCESS, "large Isend wait");
  CHECK(MPI_Wait(&sync, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Issend wait");  /* our ack came */
  /* For the wildcard: one message each, then a token of its own. */
  MPI_Send(&rank, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
  MPI_Send(&iter, 1, MPI_INT, 0, kWildToken, MPI_COMM_WORLD);
  free(large);
}

static void expect_status(const MPI_Status *st, int source, int tag, MPI_Datatype type, int count,
                          const char *what) {
  int got = -1;
  MPI_Get_count(st, type, &got);
  CHECK(st->MPI_SOURCE == source && st->MPI_TAG == tag && got == count,
        "%s: status source %d tag %d count %d, expected %d %d %d", what, st->MPI_SOURCE,
        st->MPI_TAG, got, source, tag, count);
}

static void receive_series(int s, int iter) {
  MPI_Status st;
  int token = -1, one[2] = {-1, -1}, small[2], sync_v = -1, cls;
  unsigned char mid[100], *large = malloc(kLarge);
  MPI_Recv(&token, 1, MPI_INT, s, kToken, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(token == iter, "token %d", token);
  /* Out of order: tag 3 before the tags 1 and 2 queued ahead of it. */
  CHECK(MPI_Recv(mid, 100, MPI_BYTE, s, 3, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv tag 3");
  expect_status(&st, s, 3, MPI_BYTE, 100, "tag 3");
  for (int i = 0; i < 100; i++) {
    if (mid[i] != pattern(s, iter, i)) { CHECK(0, "tag 3 byte %d", i); break; }
  }
  CHECK(MPI_Recv(one, 2, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "any tag");
  expect_status(&st, s, 1, MPI_INT, 2, "any tag");
  CHECK(one[0] == s && one[1] == 1, "any tag data %d %d", one[0], one[1]);
  CHECK(MPI_Recv(NULL, 0, MPI_BYTE, s, 2, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv empty");
  expect_status(&st, s, 2, MPI_BYTE, 0, "empty");
  CHECK(MPI_Recv(large, kLarge, MPI_BYTE, s, 4, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv large");
  expect_status(&st, s, 4, MPI_BYTE, kLarge, "large");
  for (int i = 0; i < kLarge; i++) {
    if (large[i] != pattern(s, iter, i)) { CHECK(0, "large byte %d", i); break; }
  }
  int e = MPI_Recv(small, 2, MPI_INT, s, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "16 B into 8 B: error class %d, expected MPI_ERR_TRUNCATE", cls);
  CHECK(MPI_Recv(&sync_v, 1, MPI_INT, s, 6, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv ssend");
  expect_status(&st, s, 6, MPI_INT, 1, "ssend");
  CHECK(sync_v == s * 100 + iter, "ssend data %d", sync_v);
  /* Three ints every other int: the strided path unpacks. */
  MPI_Datatype strided;
  MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int spread[6] = {-1, -1, -1, -1, -1, -1};
  CHECK(MPI_Recv(spread, 1, strided, s, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv strided");
  expect_status(&st, s, 7, MPI_INT, 3, "strided");
  for (int i = 0; i < 3; i++) {
    CHECK(spread[2 * i] == s * 1000 + iter * 10 + i && spread[2 * i + 1] == -1, "strided %d", i);
  }
  MPI_Type_free(&strided);
  free(large);
}

static void wildcard(int iter) {
  int token, seen[64] = {0};
  for (int s = 1; s < size; s++) {
    MPI_Recv(&token, 1, MPI_INT, s, kWildToken, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(token == iter, "wildcard token %d", token);
  }
  for (int k = 1; k < size; k++) {
    MPI_Status st;
    int v = -1;
    CHECK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "wild");
    expect_status(&st, v, 8, MPI_INT, 1, "wildcard");
    if (v > 0 && v < size && v < 64) seen[v]++;
  }
  for (int s = 1; s < size && s < 64; s++) CHECK(seen[s] == 1, "wildcard: rank %d seen %d times", s, seen[s]);
}

/* 32 8 B broadcasts from a root that runs ahead, then 32 reductions whose root comes late. */
static void collectives(int iter) {
  enum { kCalls = 32 };
  if (rank != 0) usleep(20000);  /* the root's messages are all waiting when the others come */
  for (int i = 0; i < kCalls; i++) {
    double x = rank == 0 ? iter * 100.0 + i : -1;
    MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(x == iter * 100.0 + i, "bcast %d: %g", i, x);
  }
  if (rank == 0) usleep(20000);
  for (int i = 0; i < kCalls; i++) {
    double x = rank + i, sum = -1;
    MPI_Reduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) CHECK(sum == size * (size - 1) / 2.0 + (double)size * i, "reduce %d: %g", i, sum);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int iters = argc > 1 ? atoi(argv[1]) : 10;
  if (size < 2 || iters < 1) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n N>=2 recv_at_once [iterations>=1]\n");
    MPI_Finalize();
    return 2;
  }
  for (int iter = 0; iter < iters; iter++) {
    if (rank == 0) {
      for (int s = 1; s < size; s++) receive_series(s, iter);
      wildcard(iter);
    } else {
      send_series(iter);
    }
    collectives(iter);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("recv_at_once: OK, %d iterations\n", iters);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
