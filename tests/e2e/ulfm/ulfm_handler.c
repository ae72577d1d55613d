/* A user error handler hears of a failure once, with its class, from calls made of other calls
 * too (run under mpirun --with-ft ulfm, 2 or more ranks).
 *   ulfm_handler
 * Rank 1 dies. Rank 0 then calls MPI_Sendrecv and MPI_Sendrecv_replace with it, with a handler
 * installed on a duplicate of MPI_COMM_WORLD: each call must invoke the handler exactly once,
 * with MPIX_ERR_PROC_FAILED, and return that class. MPI_Sendrecv is MPI_Irecv + MPI_Isend +
 * MPI_Waitall inside; the handler used to be called by the inner MPI_Waitall with
 * MPI_ERR_IN_STATUS (the ULFM tutorial's 03.undisturbed aborted on it) and not with the failure.
 * Then MPI_Isend, MPI_Issend and MPI_Irecv naming it start without an error and MPI_Wait reports
 * the failure (once each). Every code is the class itself (MPIX_ERR_PROC_FAILED, and
 * MPIX_ERR_REVOKED after a revoke), as in Open MPI. The other ranks exchange with each other: no handler call, no error. */
#include "ulfm_test.h"

static int calls, last_code;

static void record(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  calls++;
  last_code = *code;
}

/* The code is the class itself, as in Open MPI (programs compare rc == MPIX_ERR_PROC_FAILED),
 * and its string still names the failure. */
static void expect_one_call_with(int rc, int want, const char *what) {
  CHECK(calls == 1 && last_code == want && rc == want,
        "%s: handler called %d time(s), last with code %d; returned %d (want once, code %d)",
        what, calls, last_code, rc, want);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  CHECK(strstr(text, want == MPIX_ERR_REVOKED ? "revoked" : "rank 1") != NULL, "%s: string '%s'", what, text);
  calls = 0;
  last_code = -1;
}

static void expect_one_call(int rc, const char *what) { expect_one_call_with(rc, MPIX_ERR_PROC_FAILED, what); }

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Errhandler h;
  MPI_Comm_create_errhandler(record, &h);
  MPI_Comm_set_errhandler(comm, h);
  MPI_Errhandler_free(&h);
  MPI_Barrier(comm);
  if (wrank == 1) die();
  double out = wrank, in = -1;
  if (wrank == 0) {
    /* Both before the failure is known here (the exchange itself meets it) and after. */
    int rc = MPI_Sendrecv(&out, 1, MPI_DOUBLE, 1, 3, &in, 1, MPI_DOUBLE, 1, 3, comm, MPI_STATUS_IGNORE);
    expect_one_call(rc, "MPI_Sendrecv with the dead rank");
    rc = MPI_Sendrecv_replace(&out, 1, MPI_DOUBLE, 1, 4, 1, 4, comm, MPI_STATUS_IGNORE);
    expect_one_call(rc, "MPI_Sendrecv_replace with the dead rank");
    rc = MPI_Sendrecv(&out, 1, MPI_DOUBLE, 1, 5, &in, 1, MPI_DOUBLE, 1, 5, comm, MPI_STATUS_IGNORE);
    expect_one_call(rc, "MPI_Sendrecv once the failure is known");
    /* Nonblocking calls naming the dead rank start (no handler call) and complete with the
     * failure, as in MPICH (ft/isenddead, ft/irecvdead); they used to fail at the start. */
    MPI_Request r[3];
    rc = MPI_Isend(&out, 1, MPI_DOUBLE, 1, 7, comm, &r[0]);
    int rc2 = MPI_Issend(&out, 1, MPI_DOUBLE, 1, 7, comm, &r[1]);
    int rc3 = MPI_Irecv(&in, 1, MPI_DOUBLE, 1, 7, comm, &r[2]);
    CHECK(rc == MPI_SUCCESS && rc2 == MPI_SUCCESS && rc3 == MPI_SUCCESS && calls == 0,
          "nonblocking starts with the dead rank: classes %d %d %d, %d handler call(s)",
          class_of(rc), class_of(rc2), class_of(rc3), calls);
    for (int i = 0; i < 3; i++) {
      rc = MPI_Wait(&r[i], MPI_STATUS_IGNORE);
      expect_one_call(rc, "MPI_Wait on a nonblocking call with the dead rank");
      CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed by MPI_Wait", i);
    }
    /* A revoked communicator's code is MPIX_ERR_REVOKED itself too. Revoked only once the
     * others are done with it (each says so on MPI_COMM_WORLD, between live ranks). */
    for (int k = 2; k < wsize; k++) {
      int done = 0;
      rc = MPI_Recv(&done, 1, MPI_INT, k, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS && done == 1, "rank %d's done message: class %d", k, class_of(rc));
    }
    MPIX_Comm_revoke(comm);
    expect_one_call_with(MPI_Send(&out, 1, MPI_DOUBLE, 2, 8, comm), MPIX_ERR_REVOKED,
                         "MPI_Send on the revoked communicator");
  } else if (wsize > 3) {
    /* Ranks 2.. pair up among themselves (an odd one out talks to itself). */
    int peer = wrank % 2 == 0 ? wrank + 1 : wrank - 1;
    if (peer >= wsize) peer = wrank;
    int rc = MPI_Sendrecv(&out, 1, MPI_DOUBLE, peer, 6, &in, 1, MPI_DOUBLE, peer, 6, comm,
                          MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && in == peer && calls == 0, "live exchange with %d: class %d, got %g, "
          "%d handler call(s)", peer, class_of(rc), in, calls);
  }
  if (wrank >= 2) {
    int done = 1;
    MPI_Send(&done, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  if (failures == 0) printf("rank %d: ulfm_handler OK\n", wrank);
  return failures == 0 ? 0 : 1;
}
