/* MPI_Cancel of an MPI_Isendrecv(_replace) request (MPI-4.0 3.8.4: cancellable as its parts
 * are). Ranks 0 and 1 take part, others only join the barriers.
 *   - neither half matched (16 B and 1 MiB, Isendrecv and Isendrecv_replace): MPI_Wait
 *     returns, MPI_Test_cancelled says 1, the peer never gets the message (MPI_Iprobe after
 *     a barrier finds nothing) and the receive buffer is untouched;
 *   - the send matched (the peer received it), the receive not: MPI_ERR_REQUEST through the
 *     communicator's handler (MPI_ERRORS_RETURN here), not cancelled;
 *   - the receive matched (the message was there), the send not: MPI_ERR_REQUEST, the
 *     received data intact, and the peer never gets the send.
 * A wait that does not end in 30 s is a failure (without cancel support it never would).
 *   isendrecv_cancel [ITERATIONS]   prints "isendrecv_cancel: OK, N iterations" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

enum { kSmall = 4, kLarge = 1 << 18 }; /* ints: 16 B, 1 MiB */

/* MPI_Wait with a deadline: a cancel that does nothing would leave these pending forever. */
static int wait_bounded(MPI_Request *r, MPI_Status *st) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    int flag = 0;
    int rc = MPI_Test(r, &flag, st);
    if (flag || rc != MPI_SUCCESS) return rc;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 30) {
      fprintf(stderr, "rank %d: FAIL: a cancelled MPI_Isendrecv is still pending after 30 s\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    usleep(1000);
  }
}

static int nothing_from(int src, int tag) {
  int flag = 1;
  MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  return !flag;
}

static void neither_matched(int n, int replace, int *sbuf, int *rbuf) {
  const int stag = 20, rtag = 21;
  if (rank == 0) {
    for (int i = 0; i < n; i++) sbuf[i] = i, rbuf[i] = -7;
    MPI_Request r;
    if (replace) {
      MPI_Isendrecv_replace(rbuf, n, MPI_INT, 1, stag, 1, rtag, MPI_COMM_WORLD, &r);
    } else {
      MPI_Isendrecv(sbuf, n, MPI_INT, 1, stag, rbuf, n, MPI_INT, 1, rtag, MPI_COMM_WORLD, &r);
    }
    int rc = MPI_Cancel(&r);
    CHECK(rc == MPI_SUCCESS, "MPI_Cancel rc %d", rc);
    MPI_Status st;
    rc = wait_bounded(&r, &st);
    int flag = -1;
    MPI_Test_cancelled(&st, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1 && r == MPI_REQUEST_NULL,
          "%s of %d ints, unmatched: rc %d, cancelled %d", replace ? "replace" : "isendrecv", n, rc, flag);
    CHECK(rbuf[0] == -7 && rbuf[n - 1] == -7, "receive buffer written by a cancelled receive");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) CHECK(nothing_from(0, stag), "the cancelled send of %d ints arrived", n);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void send_matched(void) {
  const int stag = 22, rtag = 23;
  int out = 42, in = -1;
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank == 0) MPI_Isendrecv(&out, 1, MPI_INT, 1, stag, &in, 1, MPI_INT, 1, rtag, MPI_COMM_WORLD, &r);
  if (rank == 1) {
    MPI_Recv(&in, 1, MPI_INT, 0, stag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in == 42, "received %d", in);
  }
  MPI_Barrier(MPI_COMM_WORLD);  /* rank 1 has received rank 0's send */
  if (rank == 0) {
    MPI_Cancel(&r);
    MPI_Status st;
    int rc = wait_bounded(&r, &st), cls = -1, flag = -1;
    MPI_Error_class(rc, &cls);
    MPI_Test_cancelled(&st, &flag);
    CHECK(cls == MPI_ERR_REQUEST && flag == 0, "send matched, receive cancelled: class %d, cancelled %d",
          cls, flag);
    CHECK(in == -1, "receive buffer written");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void recv_matched(void) {
  const int stag = 24, rtag = 25;
  int out = 5, in = -1;
  if (rank == 1) MPI_Send(&out, 1, MPI_INT, 0, rtag, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Probe(1, rtag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* here: the receive matches at once */
    MPI_Request r;
    MPI_Isendrecv(&out, 1, MPI_INT, 1, stag, &in, 1, MPI_INT, 1, rtag, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Status st;
    int rc = wait_bounded(&r, &st), cls = -1, flag = -1;
    MPI_Error_class(rc, &cls);
    MPI_Test_cancelled(&st, &flag);
    CHECK(cls == MPI_ERR_REQUEST && flag == 0, "receive matched, send cancelled: class %d, cancelled %d",
          cls, flag);
    CHECK(in == 5, "received %d", in);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) CHECK(nothing_from(0, stag), "the cancelled send arrived");
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, iterations = argc > 1 ? atoi(argv[1]) : 10;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    fprintf(stderr, "isendrecv_cancel: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int *sbuf = malloc(sizeof(int) * kLarge), *rbuf = malloc(sizeof(int) * kLarge);
  for (int it = 0; it < iterations; it++) {
    for (int replace = 0; replace < 2; replace++) {
      neither_matched(kSmall, replace, sbuf, rbuf);
      neither_matched(kLarge, replace, sbuf, rbuf);
    }
    send_matched();
    recv_matched();
  }
  free(sbuf);
  free(rbuf);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && total == 0) printf("isendrecv_cancel: OK, %d iterations\n", iterations);
  return total != 0;
}
