/* Every ULFM call with failures before and during it (SPEC 4.8, issue 18 item 6).
 *   ulfm_calls SCENARIO      (run under mpirun --with-ft ulfm, or --comm-mode shrink for "ftmode")
 * p2p        a dead peer: blocked receive and send fail with MPIX_ERR_PROC_FAILED at once,
 *            live pairs keep talking, the failure shows in MPIX_Comm_get_failed
 * anysource  a pending MPI_Irecv(MPI_ANY_SOURCE) reports MPIX_ERR_PROC_FAILED_PENDING and stays
 *            pending; a blocking one fails; after MPIX_Comm_failure_ack it matches again
 * revoke     rank 0 revokes while everybody else is blocked in a receive from a live peer;
 *            then every operation fails with MPIX_ERR_REVOKED, shrink and agree still work
 * revoke_dies rank 0 revokes and dies at once: the notice still reaches everybody
 * shrink1 / shrink2   shrink after one / two failures: same communicator everywhere, order kept
 * shrink_during       the agreement coordinator (rank 0) dies inside the shrink
 * agree      AND of flags with no failure; with an unacknowledged failure (MPIX_ERR_PROC_FAILED
 *            everywhere, same flag); after acknowledgement (success); a failure during it
 *            (same outcome everywhere); iagree/ishrink through MPI_Test and MPI_Wait
 * coll       collectives with a participant dead before and during the call
 * ftmode     the MPIX calls on a communicator in an FT-MPI mode (--comm-mode shrink)
 * finalize   survivors call MPI_Finalize with an unrepaired, unacknowledged failure
 * exit       the victim calls _exit(0) without MPI_Finalize (Open MPI 5.0.9 never reports
 *            that): survivors blocked in a receive from it get MPIX_ERR_PROC_FAILED
 * args       bad arguments to every MPIX call */
#include "ulfm_test.h"

static void expect_class(int rc, int want, const char *what) {
  CHECK(class_of(rc) == want, "%s: class %d, want %d", what, class_of(rc), want);
}

static void p2p(int by_exit) {
  const int victim = wsize - 1;
  if (wrank == victim) {
    usleep(100000);
    if (by_exit) _exit(0);  /* a clean exit status, but no MPI_Finalize: still a failure */
    die();
  }
  int v = 0, rc = MPI_Recv(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect_class(rc, MPIX_ERR_PROC_FAILED, "receive from the dead rank");
  char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, text, &len);
  CHECK(strstr(text, "MPIX_ERR_PROC_FAILED") != NULL, "error string: %s", text);
  rc = MPI_Send(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD);
  expect_class(rc, MPIX_ERR_PROC_FAILED, "send to the dead rank");
  MPI_Request r;
  rc = MPI_Irecv(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, &r);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  expect_class(rc, MPIX_ERR_PROC_FAILED, "nonblocking receive from the dead rank");
  /* Live pairs are not affected (no implicit repair, no purge of their traffic). */
  const int live = wsize - 1, next = (wrank + 1) % live, prev = (wrank + live - 1) % live;
  int out = wrank, in = -1;
  rc = MPI_Sendrecv(&out, 1, MPI_INT, next, 2, &in, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS && in == prev, "live ring: rc class %d, got %d want %d", class_of(rc), in, prev);
  MPI_Group g;
  MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
  int ranks[4], n = group_world_ranks(g, ranks, 4);
  CHECK(n == 1 && ranks[0] == victim, "get_failed: %d ranks, first %d", n, ranks[0]);
  MPI_Group_free(&g);
  MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &g);
  MPI_Group_size(g, &n);
  CHECK(n == 0, "nothing acknowledged yet, got %d", n);
  MPI_Group_free(&g);
}

static void anysource(void) {
  const int victim = 1;
  int v = -1, rc, flag = 0;
  MPI_Request r = MPI_REQUEST_NULL;
  if (wrank != victim) MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);  /* everybody's wildcard receive is posted before the death */
  if (wrank == victim) die();
  rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  expect_class(rc, MPIX_ERR_PROC_FAILED_PENDING, "MPI_Wait on the pending wildcard receive");
  CHECK(r != MPI_REQUEST_NULL, "the wildcard receive must still be pending");
  rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  expect_class(rc, MPIX_ERR_PROC_FAILED_PENDING, "MPI_Test on it");
  CHECK(r != MPI_REQUEST_NULL, "still pending after MPI_Test");
  int w = 0;
  rc = MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect_class(rc, MPIX_ERR_PROC_FAILED, "blocking wildcard receive before the acknowledgement");
  int probe_flag;
  rc = MPI_Iprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &probe_flag, MPI_STATUS_IGNORE);
  expect_class(rc, MPIX_ERR_PROC_FAILED, "wildcard probe before the acknowledgement");
  int acked = -1;
  rc = MPIX_Comm_ack_failed(MPI_COMM_WORLD, 0, &acked);
  CHECK(rc == MPI_SUCCESS && acked == 0, "ack_failed(0) acknowledged %d", acked);
  rc = MPIX_Comm_failure_ack(MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "failure_ack");
  MPI_Group g;
  MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &g);
  int ranks[4], n = group_world_ranks(g, ranks, 4);
  CHECK(n == 1 && ranks[0] == victim, "get_acked: %d, first %d", n, ranks[0]);
  MPI_Group_free(&g);
  MPIX_Comm_ack_failed(MPI_COMM_WORLD, 5, &acked);
  CHECK(acked == 1, "ack_failed reports %d acknowledged", acked);
  /* Every survivor has made the checks above before anybody sends (otherwise a fast sender's
   * message could complete a slower survivor's first MPI_Wait, legitimately): agree, which
   * succeeds now that everybody acknowledged, is the barrier. */
  int all_acked = 1;
  rc = MPIX_Comm_agree(MPI_COMM_WORLD, &all_acked);
  CHECK(rc == MPI_SUCCESS && all_acked == 1, "agree after everybody acknowledged: class %d", class_of(rc));
  /* The pending receive now matches a live sender's message: the next live rank sends. */
  int live[64], nl = 0;
  for (int i = 0; i < wsize; i++) if (i != victim) live[nl++] = i;
  int me = 0;
  while (live[me] != wrank) me++;
  int to = live[(me + 1) % nl], val = 100 + wrank;
  MPI_Send(&val, 1, MPI_INT, to, 7, MPI_COMM_WORLD);
  MPI_Status st;
  rc = MPI_Wait(&r, &st);
  const int from = live[(me + nl - 1) % nl];
  CHECK(rc == MPI_SUCCESS && v == 100 + from && st.MPI_SOURCE == from,
        "wildcard receive after ack: class %d v %d source %d", class_of(rc), v, st.MPI_SOURCE);
}

static void revoke_blocked(int revoker_dies) {
  int v, rc;
  if (wrank == 0) {
    usleep(50000);  /* the others are (most likely) blocked by now; either way they must fail */
    rc = MPIX_Comm_revoke(MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "revoke");
    if (revoker_dies) die();
  } else {
    /* A receive from a live peer that will never send. */
    rc = MPI_Recv(&v, 1, MPI_INT, (wrank % (wsize - 1)) + 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect_class(rc, MPIX_ERR_REVOKED, "blocked receive from a live peer");
  }
  int flag = 0;
  MPIX_Comm_is_revoked(MPI_COMM_WORLD, &flag);
  CHECK(flag == 1, "is_revoked");
  const int alive = revoker_dies ? wsize - 1 : wsize;
  expect_class(MPI_Send(&v, 1, MPI_INT, (wrank + 1) % wsize, 3, MPI_COMM_WORLD), MPIX_ERR_REVOKED, "send");
  expect_class(MPI_Barrier(MPI_COMM_WORLD), MPIX_ERR_REVOKED, "barrier");
  MPI_Comm dup;
  expect_class(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPIX_ERR_REVOKED, "dup");
  int f = 1;
  rc = MPIX_Comm_agree(MPI_COMM_WORLD, &f);
  /* With the revoker dead, its failure may or may not have been acknowledged: either outcome,
   * as long as it is the same everywhere. */
  CHECK((rc == MPI_SUCCESS || (revoker_dies && class_of(rc) == MPIX_ERR_PROC_FAILED)) && f == 1,
        "agree on the revoked communicator: class %d flag %d", class_of(rc), f);
  if (revoker_dies) CHECK(same_everywhere(MPI_COMM_WORLD, class_of(rc)), "agree outcomes differ");
  MPI_Comm s;
  rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
  int n = -1;
  if (rc == MPI_SUCCESS) MPI_Comm_size(s, &n);
  CHECK(rc == MPI_SUCCESS && n == alive, "shrink of the revoked communicator: class %d size %d", class_of(rc), n);
  int sum = 0, one = 1;
  rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s);
  CHECK(rc == MPI_SUCCESS && sum == alive, "allreduce on the shrunk communicator: %d", sum);
  MPIX_Comm_is_revoked(s, &flag);
  CHECK(flag == 0, "the shrunk communicator is not revoked");
  MPI_Comm_free(&s);
}

static void shrink_after(int nvictims, int during) {
  /* Victims: the highest ranks, or rank 0 (the agreement's coordinator) inside the shrink. */
  const int is_victim = during ? wrank == 0 : wrank >= wsize - nvictims;
  MPI_Comm s;
  if (is_victim && !during) { usleep(20000); die(); }
  if (is_victim && during) {
    MPI_Request r;
    MPIX_Comm_ishrink(MPI_COMM_WORLD, &s, &r);  /* contributes (as coordinator), then dies */
    usleep(20000);
    die();
  }
  if (!during) {  /* wait until the failures are known here, as an application would */
    int v, k = 0;
    while (k < nvictims) {
      MPI_Recv(&v, 1, MPI_INT, wsize - 1 - k, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      k++;
    }
  } else {
    usleep(5000);
  }
  int rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
  CHECK(rc == MPI_SUCCESS, "shrink: class %d", class_of(rc));
  if (rc != MPI_SUCCESS) return;
  int n, me;
  MPI_Comm_size(s, &n);
  MPI_Comm_rank(s, &me);
  const int expect = wsize - nvictims;
  CHECK(n == expect, "shrunk size %d, want %d", n, expect);
  const int first_live = during ? 1 : 0;
  CHECK(me == wrank - first_live, "shrunk rank %d, world rank %d: order not kept", me, wrank);
  CHECK(same_everywhere(s, members_hash(s)), "survivors hold different communicators");
  int sum = 0;
  rc = MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, s);
  int want = 0;
  for (int i = 0; i < wsize; i++) if (during ? i != 0 : i < wsize - nvictims) want += i;
  CHECK(rc == MPI_SUCCESS && sum == want, "allreduce on the shrunk communicator: %d want %d", sum, want);
  MPI_Comm_free(&s);
}

static void agree_cases(void) {
  const int victim = wsize - 1;
  int f = ~(1 << wrank), rc = MPIX_Comm_agree(MPI_COMM_WORLD, &f);
  int want = ~0;
  for (int i = 0; i < wsize; i++) want &= ~(1 << i);
  CHECK(rc == MPI_SUCCESS && f == want, "failure-free agree: class %d flag %x want %x", class_of(rc), f, want);
  /* Non-blocking, completed by MPI_Test polling. */
  MPI_Request r;
  int g = (wrank == 0) ? 6 : 7, done = 0;
  MPIX_Comm_iagree(MPI_COMM_WORLD, &g, &r);
  while (!done) MPI_Test(&r, &done, MPI_STATUS_IGNORE);
  CHECK(g == 6 && r == MPI_REQUEST_NULL, "iagree: flag %d", g);
  if (wrank == victim) die();
  /* An unacknowledged failure: every survivor gets MPIX_ERR_PROC_FAILED and the same flag. */
  int v;
  MPI_Recv(&v, 1, MPI_INT, victim, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* learn of it */
  f = ~(1 << wrank);
  rc = MPIX_Comm_agree(MPI_COMM_WORLD, &f);
  want = ~0;
  for (int i = 0; i < wsize - 1; i++) want &= ~(1 << i);
  expect_class(rc, MPIX_ERR_PROC_FAILED, "agree with an unacknowledged failure");
  CHECK(f == want, "flag %x want %x (the dead rank's contribution ignored)", f, want);
  /* Acknowledged everywhere: success, through MPI_Wait. */
  MPIX_Comm_failure_ack(MPI_COMM_WORLD);
  f = 1;
  MPIX_Comm_iagree(MPI_COMM_WORLD, &f, &r);
  rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS && f == 1, "agree after acknowledgement: class %d flag %d", class_of(rc), f);
  /* A second victim dies while the others are in the agreement: the outcome is uniform. */
  const int victim2 = 1;
  if (wrank == victim2) { usleep(3000); die(); }
  f = 3;
  rc = MPIX_Comm_agree(MPI_COMM_WORLD, &f);
  CHECK(rc == MPI_SUCCESS || class_of(rc) == MPIX_ERR_PROC_FAILED, "agree during a failure: class %d", class_of(rc));
  CHECK(f == 3, "flag %d", f);
  CHECK(same_everywhere(MPI_COMM_WORLD, class_of(rc)), "agree during a failure: outcomes differ");
  MPI_Comm s;
  rc = MPIX_Comm_ishrink(MPI_COMM_WORLD, &s, &r);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  int n = -1;
  if (rc == MPI_SUCCESS) MPI_Comm_size(s, &n);
  CHECK(rc == MPI_SUCCESS && n == wsize - 2, "ishrink: class %d size %d", class_of(rc), n);
  if (rc == MPI_SUCCESS) MPI_Comm_free(&s);
}

static void coll(void) {
  const int victim = 2;
  int one = 1, sum = 0, rc, iter;
  /* During: the victim dies at iteration 20 of an allreduce loop; every survivor's loop ends
   * with MPIX_ERR_PROC_FAILED (or REVOKED, when another survivor revoked first). */
  for (iter = 0; iter < 1000; iter++) {
    if (wrank == victim && iter == 20) die();
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) break;
    CHECK(sum == wsize, "allreduce before the failure: %d", sum);
  }
  CHECK(iter >= 19 && iter <= 21 && class_of(rc) == MPIX_ERR_PROC_FAILED,
        "allreduce loop ended at %d with class %d", iter, class_of(rc));
  /* Before: the failure is known; every collective fails at once, the root's too. */
  expect_class(MPI_Barrier(MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "barrier after the failure");
  expect_class(MPI_Bcast(&one, 1, MPI_INT, victim, MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "bcast from the dead root");
  expect_class(MPI_Bcast(&one, 1, MPI_INT, 0, MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "bcast");
  MPIX_Comm_failure_ack(MPI_COMM_WORLD);
  expect_class(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED,
               "allreduce after acknowledgement (ack does not make collectives work)");
  MPI_Comm dup;
  expect_class(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPIX_ERR_PROC_FAILED, "dup (no implicit repair)");
}

static void ftmode(void) {
  const int victim = 1;
  if (wrank == victim) { usleep(20000); die(); }
  int v, rc = MPI_Recv(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect_class(rc, MPI_ERR_OTHER, "FT-MPI mode keeps MPI_ERR_OTHER");
  MPI_Group g;
  MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
  int n;
  MPI_Group_size(g, &n);
  CHECK(n == 1, "get_failed in an FT-MPI mode: %d", n);
  MPI_Group_free(&g);
  MPI_Comm s;
  rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
  if (rc == MPI_SUCCESS) MPI_Comm_size(s, &n);
  CHECK(rc == MPI_SUCCESS && n == wsize - 1, "shrink in an FT-MPI mode: class %d size %d", class_of(rc), n);
  int f = 5;
  MPIX_Comm_failure_ack(s);
  rc = MPIX_Comm_agree(s, &f);
  CHECK(rc == MPI_SUCCESS && f == 5, "agree on the shrunk communicator");
  MPIX_Comm_revoke(s);
  expect_class(MPI_Barrier(s), MPIX_ERR_REVOKED, "barrier on a revoked FT-MPI-mode communicator");
  MPI_Comm_free(&s);
  /* The world itself is still repaired the FT-MPI way. */
  MPI_Comm d;
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(rc == MPI_SUCCESS && n == wsize - 1, "FT-MPI repair after the MPIX calls");
}

static void args(void) {
  int flag, n;
  MPI_Comm c;
  MPI_Request r;
  MPI_Group g;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  expect_class(MPIX_Comm_revoke(MPI_COMM_NULL), MPI_ERR_COMM, "revoke(NULL)");
  expect_class(MPIX_Comm_is_revoked(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "is_revoked(NULL)");
  expect_class(MPIX_Comm_is_revoked(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "is_revoked flag NULL");
  expect_class(MPIX_Comm_shrink(MPI_COMM_NULL, &c), MPI_ERR_COMM, "shrink(NULL)");
  expect_class(MPIX_Comm_shrink(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "shrink newcomm NULL");
  expect_class(MPIX_Comm_ishrink(MPI_COMM_WORLD, &c, NULL), MPI_ERR_REQUEST, "ishrink request NULL");
  expect_class(MPIX_Comm_agree(12345, &flag), MPI_ERR_COMM, "agree(bad handle)");
  expect_class(MPIX_Comm_agree(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "agree flag NULL");
  expect_class(MPIX_Comm_iagree(MPI_COMM_WORLD, NULL, &r), MPI_ERR_ARG, "iagree flag NULL");
  expect_class(MPIX_Comm_failure_ack(MPI_COMM_NULL), MPI_ERR_COMM, "failure_ack(NULL)");
  expect_class(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "get_acked NULL");
  expect_class(MPIX_Comm_get_failed(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "get_failed NULL");
  expect_class(MPIX_Comm_ack_failed(MPI_COMM_WORLD, -1, &n), MPI_ERR_ARG, "ack_failed(-1)");
  expect_class(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 1, NULL), MPI_ERR_ARG, "ack_failed NULL");
  CHECK(MPIX_Comm_get_failed(MPI_COMM_WORLD, &g) == MPI_SUCCESS && g == MPI_GROUP_EMPTY, "no failure: empty group");
  char text[MPI_MAX_ERROR_STRING];
  int len, cls;
  const int classes[3] = {MPIX_ERR_PROC_FAILED, MPIX_ERR_PROC_FAILED_PENDING, MPIX_ERR_REVOKED};
  const char *names[3] = {"MPIX_ERR_PROC_FAILED", "MPIX_ERR_PROC_FAILED_PENDING", "MPIX_ERR_REVOKED"};
  for (int i = 0; i < 3; i++) {
    CHECK(MPI_Error_class(classes[i], &cls) == MPI_SUCCESS && cls == classes[i], "class of %s", names[i]);
    CHECK(MPI_Error_string(classes[i], text, &len) == MPI_SUCCESS && strstr(text, names[i]) == text,
          "string of %s: %s", names[i], text);
  }
#ifndef MPIX_FT
  CHECK(0, "MPIX_FT is not defined");
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  const char *what = argc > 1 ? argv[1] : "p2p";
  if (!strcmp(what, "p2p")) p2p(0);
  else if (!strcmp(what, "exit")) p2p(1);
  else if (!strcmp(what, "anysource")) anysource();
  else if (!strcmp(what, "revoke")) revoke_blocked(0);
  else if (!strcmp(what, "revoke_dies")) revoke_blocked(1);
  else if (!strcmp(what, "shrink1")) shrink_after(1, 0);
  else if (!strcmp(what, "shrink2")) shrink_after(2, 0);
  else if (!strcmp(what, "shrink_during")) shrink_after(1, 1);
  else if (!strcmp(what, "agree")) agree_cases();
  else if (!strcmp(what, "coll")) coll();
  else if (!strcmp(what, "ftmode")) ftmode();
  else if (!strcmp(what, "args")) args();
  else if (strcmp(what, "finalize") == 0) {
    if (wrank == 1) die();
    int v;
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    fprintf(stderr, "usage: ulfm_calls p2p|exit|anysource|revoke|revoke_dies|shrink1|shrink2|shrink_during|agree|coll|ftmode|finalize|args\n");
    return 2;
  }
  if (failures == 0) printf("rank %d: ulfm_calls %s OK\n", wrank, what);
  MPI_Finalize();
  return failures ? 1 : 0;
}
