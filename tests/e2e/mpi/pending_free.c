/* Nonblocking point-to-point operations still pending at MPI_Comm_free (MPI-3.1 6.4.3: the free
 * only marks the communicator for deallocation; pending operations complete normally). Ranks
 * pair up (0-1, 2-3, ...; an odd last rank only joins the collectives).
 *   pending_free recv N    an Irecv on a dup, the dup freed, the partner sends on its own dup
 *       after a delay: MPI_Wait gets the data and the status. N rounds (more rounds than there
 *       are context ids: the ids of a communicator held by a request must come back after).
 *   pending_free reuse     both free their dup (one with an Irecv pending), then a new dup: a
 *       message on it with the same tag must not match the old receive, which is then
 *       cancelled.
 *   pending_free large     a 4 MiB Isend and Irecv (rendezvous) on freed dups, then MPI_Wait.
 *   pending_free reqfree   MPI_Request_free of a pending Irecv on a freed dup; the message
 *       arrives later (no crash, no use of freed memory under ASan).
 *   pending_free kill      (SHRINK or ULFM) the last rank dies while every other rank has an
 *       Irecv from it pending on a freed dup: MPI_Wait returns an error class through the dup's
 *       error handler, nobody hangs. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

enum { kTag = 5, kInts = 4, kLarge = 4 << 20 };

static int partner(void) {
  int p = rank ^ 1;
  return p < size ? p : MPI_PROC_NULL;
}

/* Polls r for up to `ms` milliseconds; 1 if it completed (status in *st). */
static int test_for(MPI_Request *r, int ms, MPI_Status *st) {
  int flag = 0;
  for (int i = 0; i < ms && !flag; i++) {
    MPI_Test(r, &flag, st);
    if (!flag) usleep(1000);
  }
  return flag;
}

static void run_recv(int rounds) {
  const int p = partner();
  for (int round = 0; round < rounds; round++) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int in[kInts] = {0}, out[kInts];
    for (int i = 0; i < kInts; i++) out[i] = rank * 100 + round + i;
    MPI_Request r = MPI_REQUEST_NULL;
    /* Even ranks receive while their dup is freed; odd ones send after the free. */
    if (p != MPI_PROC_NULL && rank % 2 == 0) MPI_Irecv(in, kInts, MPI_INT, p, kTag, dup, &r);
    if (rank % 2 == 0) MPI_Comm_free(&dup);
    if (round == 0) MPI_Barrier(MPI_COMM_WORLD);
    if (p != MPI_PROC_NULL && rank % 2 == 1) {
      if (round == 0) usleep(200000);
      MPI_Send(out, kInts, MPI_INT, p, kTag, dup);
    }
    if (rank % 2 == 1) MPI_Comm_free(&dup);
    if (r == MPI_REQUEST_NULL) continue;
    MPI_Status st;
    int rc = MPI_Wait(&r, &st), count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(rc == MPI_SUCCESS && st.MPI_SOURCE == p && st.MPI_TAG == kTag && count == kInts,
          "round %d: rc %d source %d tag %d count %d", round, rc, st.MPI_SOURCE, st.MPI_TAG, count);
    for (int i = 0; i < kInts; i++) {
      CHECK(in[i] == p * 100 + round + i, "round %d: in[%d] = %d", round, i, in[i]);
    }
    if (failures) break;
  }
}

static void run_reuse(void) {
  const int p = partner();
  MPI_Comm old;
  MPI_Comm_dup(MPI_COMM_WORLD, &old);
  int stale = -1, fresh = -1, v = 222;
  MPI_Request r = MPI_REQUEST_NULL;
  if (p != MPI_PROC_NULL && rank % 2 == 0) MPI_Irecv(&stale, 1, MPI_INT, p, kTag, old, &r);
  MPI_Comm_free(&old);
  /* Every retire notice of the frees is in before the new dup (ordered streams). */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm fresh_comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &fresh_comm);
  if (p != MPI_PROC_NULL && rank % 2 == 1) MPI_Send(&v, 1, MPI_INT, p, kTag, fresh_comm);
  if (r != MPI_REQUEST_NULL) {
    MPI_Request n;
    MPI_Irecv(&fresh, 1, MPI_INT, p, kTag, fresh_comm, &n);
    MPI_Status st;
    CHECK(test_for(&n, 5000, &st), "the receive on the new communicator did not complete in 5 s");
    if (n != MPI_REQUEST_NULL) {
      MPI_Cancel(&n);
      MPI_Wait(&n, MPI_STATUS_IGNORE);
    }
    CHECK(fresh == 222, "new communicator's receive got %d", fresh);
    int flag = 1;
    MPI_Test(&r, &flag, &st);
    CHECK(!flag, "the receive pending on the freed communicator matched a message of the new "
          "one (got %d)", stale);
    if (!flag) {
      MPI_Cancel(&r);
      MPI_Wait(&r, &st);
      MPI_Test_cancelled(&st, &flag);
      CHECK(flag, "the old receive was not cancelled");
    }
  }
  MPI_Comm_free(&fresh_comm);
}

static void run_large(void) {
  const int p = partner();
  char *buf = malloc(kLarge);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank % 2 == 0) {
    for (int i = 0; i < kLarge; i++) buf[i] = (char)(i * 7 + rank);
    if (p != MPI_PROC_NULL) MPI_Isend(buf, kLarge, MPI_CHAR, p, kTag, dup, &r);
  } else {
    memset(buf, 0, kLarge);
    MPI_Irecv(buf, kLarge, MPI_CHAR, p, kTag, dup, &r);
  }
  MPI_Comm_free(&dup);
  usleep(100000 * (rank % 2)); /* the receiver comes late: the send is pending at the free */
  MPI_Status st;
  int rc = MPI_Wait(&r, &st);
  CHECK(rc == MPI_SUCCESS, "large: Wait rc %d", rc);
  if (rank % 2 == 1) {
    int bad = 0;
    for (int i = 0; i < kLarge && bad < 5; i++) {
      if (buf[i] != (char)(i * 7 + p)) bad++;
    }
    CHECK(bad == 0 && st.MPI_SOURCE == p, "large: data or source (%d) wrong", st.MPI_SOURCE);
  }
  free(buf);
}

static void run_reqfree(void) {
  const int p = partner();
  static int in = -1;
  int v = 77, done = 1;
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (p != MPI_PROC_NULL && rank % 2 == 0) {
    MPI_Request r;
    MPI_Irecv(&in, 1, MPI_INT, p, kTag, dup, &r);
    MPI_Comm_free(&dup);
    MPI_Request_free(&r);
    /* Sent after the message on the dup, on the same stream: once it is here, so is that. */
    MPI_Recv(&done, 1, MPI_INT, p, kTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in == 77, "the freed receive went on, but the buffer holds %d", in);
  } else {
    if (p != MPI_PROC_NULL) {
      usleep(100000);
      MPI_Send(&v, 1, MPI_INT, p, kTag, dup);
      MPI_Send(&done, 1, MPI_INT, p, kTag + 1, MPI_COMM_WORLD);
    }
    MPI_Comm_free(&dup);
  }
  /* The communicators made after still work. */
  MPI_Comm again;
  MPI_Comm_dup(MPI_COMM_WORLD, &again);
  int sum = 0, one = 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, again);
  CHECK(sum == size, "allreduce after: %d", sum);
  MPI_Comm_free(&again);
}

static int handler_calls;
static void count_errors(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  (void)code;
  handler_calls++;
}

static void run_kill(void) {
  const int victim = size - 1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(count_errors, &eh);
  MPI_Comm_set_errhandler(dup, eh);
  MPI_Errhandler_free(&eh);
  int in = -1;
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank != victim) MPI_Irecv(&in, 1, MPI_INT, victim, kTag, dup, &r);
  MPI_Comm_free(&dup);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == victim) raise(SIGKILL);
  MPI_Status st;
  int rc = MPI_Wait(&r, &st), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OTHER || cls == MPIX_ERR_PROC_FAILED,
        "Wait of the receive from the dead rank: class %d", cls);
  CHECK(handler_calls == 1, "the freed dup's error handler ran %d times", handler_calls);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "recv";
  if (strcmp(mode, "recv") == 0) {
    run_recv(argc > 2 ? atoi(argv[2]) : 1);
  } else if (strcmp(mode, "reuse") == 0) {
    run_reuse();
  } else if (strcmp(mode, "large") == 0) {
    run_large();
  } else if (strcmp(mode, "reqfree") == 0) {
    run_reqfree();
  } else if (strcmp(mode, "kill") == 0) {
    run_kill();
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  if (failures == 0) printf("rank %d: pending_free %s OK\n", rank, mode);
  fflush(stdout);
  MPI_Finalize();
  return failures ? 1 : 0;
}
