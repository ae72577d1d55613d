/* Generalized requests (MPI-3.1 12.2): the callbacks are called exactly as the standard says.
 * query_fn: by the Wait/Test that completes the request (every form: Wait, Test, Waitall,
 * Waitany, Waitsome, Testall, Testany, Testsome), before free_fn, with a status even for
 * MPI_STATUS_IGNORE, and by each MPI_Request_get_status of a complete request; its code is
 * the call's error (MPI_ERR_IN_STATUS in the array forms). free_fn: once; after
 * MPI_Request_free, by MPI_Request_free or MPI_Grequest_complete, whichever is last, and no
 * query_fn. cancel_fn: by MPI_Cancel with complete = 0 or 1. A thread completes a request
 * another thread waits for. Bad input: completing twice or a non-generalized request is
 * MPI_ERR_REQUEST, a NULL request pointer MPI_ERR_ARG. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

typedef struct {
  char log[32];       /* 'q' query, 'f' free, 'c'/'C' cancel before/after completion */
  int query_rc;       /* what query_fn returns */
  int cancelled;      /* query_fn reports the request cancelled */
} State;

static void note(State *s, char c) {
  size_t n = strlen(s->log);
  if (n + 1 < sizeof s->log) s->log[n] = c;
}
static int query_fn(void *extra, MPI_Status *st) {
  State *s = extra;
  note(s, 'q');
  CHECK(st != MPI_STATUS_IGNORE, "query_fn got no status");
  st->MPI_SOURCE = 5;
  st->MPI_TAG = 77;
  MPI_Status_set_elements(st, MPI_INT, 3);
  MPI_Status_set_cancelled(st, s->cancelled);
  return s->query_rc;
}
static int free_fn(void *extra) { note(extra, 'f'); return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { note(extra, complete ? 'C' : 'c'); return MPI_SUCCESS; }

static int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static MPI_Request start(State *s) {
  MPI_Request r;
  memset(s, 0, sizeof *s);
  CHECK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &r) == MPI_SUCCESS, "start");
  return r;
}

static void *completer(void *arg) {
  usleep(50000);
  MPI_Grequest_complete(*(MPI_Request *)arg);
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  State s[4];
  MPI_Request r[4], keep;
  MPI_Status st, sts[4];
  int flag, idx, count, out, indices[4];

  /* Wait: query then free; the status is query_fn's. */
  r[0] = start(&s[0]);
  MPI_Test(&r[0], &flag, &st);
  CHECK(!flag && s[0].log[0] == '\0', "Test before completion: flag %d log '%s'", flag, s[0].log);
  MPI_Grequest_complete(r[0]);
  CHECK(MPI_Wait(&r[0], &st) == MPI_SUCCESS && r[0] == MPI_REQUEST_NULL, "Wait");
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(strcmp(s[0].log, "qf") == 0 && st.MPI_SOURCE == 5 && st.MPI_TAG == 77 && count == 3,
        "Wait: log '%s' source %d tag %d count %d", s[0].log, st.MPI_SOURCE, st.MPI_TAG, count);
  /* Test, status ignored: query_fn still gets one. */
  r[0] = start(&s[0]);
  MPI_Grequest_complete(r[0]);
  CHECK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag && strcmp(s[0].log, "qf") == 0,
        "Test: log '%s'", s[0].log);
  /* Request_get_status: query each time, never free; then Wait. */
  r[0] = start(&s[0]);
  MPI_Request_get_status(r[0], &flag, &st);
  CHECK(!flag && s[0].log[0] == '\0', "get_status before completion");
  MPI_Grequest_complete(r[0]);
  MPI_Request_get_status(r[0], &flag, &st);
  MPI_Request_get_status(r[0], &flag, &st);
  CHECK(flag && strcmp(s[0].log, "qq") == 0 && st.MPI_TAG == 77, "get_status: log '%s'", s[0].log);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  CHECK(strcmp(s[0].log, "qqqf") == 0, "Wait after get_status: log '%s'", s[0].log);

  /* The array forms, with a point-to-point request beside them. */
  int sendv = 1, recvv = 0;
  for (int form = 0; form < 6; ++form) {
    for (int i = 0; i < 3; ++i) r[i] = start(&s[i]);
    MPI_Irecv(&recvv, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &r[3]);
    MPI_Send(&sendv, 1, MPI_INT, rank, 9, MPI_COMM_WORLD);
    s[1].query_rc = MPI_ERR_OTHER;  /* the second one reports an error */
    for (int i = 0; i < 3; ++i) MPI_Grequest_complete(r[i]);
    int rc = MPI_SUCCESS, done = 0;
    switch (form) {
      case 0: rc = MPI_Waitall(4, r, sts); done = 4; break;
      case 1: do rc = MPI_Testall(4, r, &flag, sts); while (rc == MPI_SUCCESS && !flag); done = 4; break;
      case 2: case 3:
        while (done < 4) {
          int rci = form == 2 ? MPI_Waitany(4, r, &idx, &st) : MPI_Testany(4, r, &idx, &flag, &st);
          if (form == 3 && !flag) continue;
          if (idx == 1) CHECK(error_class(rci) == MPI_ERR_OTHER, "any form: error of index 1: %d", rci);
          ++done;
        }
        break;
      case 4: case 5:
        while (done < 4) {
          rc = form == 4 ? MPI_Waitsome(4, r, &out, indices, sts) : MPI_Testsome(4, r, &out, indices, sts);
          for (int k = 0; k < out; ++k) {
            if (indices[k] == 1) CHECK(error_class(sts[k].MPI_ERROR) == MPI_ERR_OTHER, "some: MPI_ERROR");
          }
          if (rc == MPI_ERR_IN_STATUS) rc = MPI_SUCCESS;
          done += out;
        }
        break;
    }
    CHECK(done == 4, "form %d completed %d", form, done);
    if (form < 2) {
      CHECK(error_class(rc) == MPI_ERR_IN_STATUS && error_class(sts[1].MPI_ERROR) == MPI_ERR_OTHER &&
            sts[0].MPI_ERROR == MPI_SUCCESS && sts[0].MPI_TAG == 77, "form %d: rc %d", form, rc);
    }
    for (int i = 0; i < 3; ++i) CHECK(strcmp(s[i].log, "qf") == 0, "form %d request %d: log '%s'", form, i, s[i].log);
    CHECK(recvv == 1, "the receive beside them");
    recvv = 0;
  }

  /* Cancel before and after completion; query_fn reports it. */
  r[0] = start(&s[0]);
  MPI_Cancel(&r[0]);
  s[0].cancelled = 1;
  MPI_Grequest_complete(r[0]);
  MPI_Cancel(&r[0]);
  MPI_Wait(&r[0], &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(strcmp(s[0].log, "cCqf") == 0 && flag, "cancel: log '%s' cancelled %d", s[0].log, flag);

  /* Request_free before completion: free_fn at MPI_Grequest_complete; after: at once. */
  r[0] = start(&s[0]);
  keep = r[0];
  CHECK(MPI_Request_free(&r[0]) == MPI_SUCCESS && r[0] == MPI_REQUEST_NULL && s[0].log[0] == '\0', "free pending");
  CHECK(MPI_Grequest_complete(keep) == MPI_SUCCESS && strcmp(s[0].log, "f") == 0, "complete after free: '%s'", s[0].log);
  r[0] = start(&s[0]);
  MPI_Grequest_complete(r[0]);
  CHECK(MPI_Request_free(&r[0]) == MPI_SUCCESS && strcmp(s[0].log, "f") == 0, "free complete: '%s'", s[0].log);

  /* Another thread completes what this one waits for. */
  if (provided == MPI_THREAD_MULTIPLE) {
    pthread_t th;
    r[0] = start(&s[0]);
    pthread_create(&th, NULL, completer, &r[0]);
    keep = r[0];
    CHECK(MPI_Wait(&keep, &st) == MPI_SUCCESS && strcmp(s[0].log, "qf") == 0, "threaded: '%s'", s[0].log);
    pthread_join(th, NULL);
  }

  /* Bad input. */
  r[0] = start(&s[0]);
  MPI_Grequest_complete(r[0]);
  CHECK(error_class(MPI_Grequest_complete(r[0])) == MPI_ERR_REQUEST, "completed twice");
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  CHECK(error_class(MPI_Grequest_complete(keep)) == MPI_ERR_REQUEST, "a freed one");
  MPI_Irecv(&recvv, 1, MPI_INT, rank, 10, MPI_COMM_WORLD, &r[1]);
  CHECK(error_class(MPI_Grequest_complete(r[1])) == MPI_ERR_REQUEST, "a receive");
  MPI_Send(&sendv, 1, MPI_INT, rank, 10, MPI_COMM_WORLD);
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  CHECK(error_class(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s[0], NULL)) == MPI_ERR_ARG, "NULL request");

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("grequest: OK\n");
  MPI_Finalize();
  return total != 0;
}
