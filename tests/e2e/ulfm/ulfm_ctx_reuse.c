/* Context ids of revoked communicators come back, and nothing a revoked communicator left
 * behind ever reaches a later communicator that gets its id.
 *   ulfm_ctx_reuse churn ITERATIONS [R@I]
 *     Each iteration: X = dup(cur); every rank sends its successor a small and (every 8th
 *     iteration) a large message on X that nobody receives, and posts a receive that nothing
 *     matches; one rank revokes X; a barrier on X fails everywhere; X is shrunk and freed; the
 *     shrunk communicator S must hold no message (MPI_Iprobe from anybody finds nothing) and
 *     work (an allreduce). Each iteration leaves one revoked communicator behind, so without
 *     its ids coming back a process runs out of them after ~1900 iterations. World rank R
 *     dies right after the dup of iteration I (then S replaces cur, as in a ULFM program).
 *   ulfm_ctx_reuse late ITERATIONS
 *     Each iteration: rank 0 sends rank 1 a message on X (a dup of the world) that has arrived
 *     when rank 1 revokes and frees X without receiving it; the others free X once the revoke
 *     reaches them. Then (after an alltoall: X's id is given back everywhere) Y = dup(world),
 *     which gets X's id: rank 0 sends rank 1 a second message on Y, and rank 1's receive from
 *     anybody with any tag must get that one (tag and value), and nothing else may wait on Y.
 * Every rank that finds a problem exits 1; each prints an OK line otherwise. */
#include "ulfm_test.h"

#define LARGE (256 * 1024)

static char big_out[LARGE];

/* Nothing waits on comm (from anybody, any tag): 0 if so. */
static int nothing_waits(MPI_Comm comm, int iter, const char *what) {
  int flag = 0;
  MPI_Status st;
  int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
  CHECK(rc == MPI_SUCCESS, "iteration %d: iprobe on %s: class %d", iter, what, class_of(rc));
  CHECK(!flag, "iteration %d: a message (source %d, tag %d) waits on the fresh %s", iter,
        st.MPI_SOURCE, st.MPI_TAG, what);
  return flag;
}

static int churn(int iters, int die_at) {
  MPI_Comm cur = MPI_COMM_WORLD;
  for (int i = 0; i < iters && failures == 0; i++) {
    MPI_Comm x, s;
    int me, n;
    int rc = MPI_Comm_dup(cur, &x);
    CHECK(rc == MPI_SUCCESS, "iteration %d: dup: class %d", i, class_of(rc));
    if (rc != MPI_SUCCESS) break;
    if (i == die_at) die();
    if (i > 0) { /* X may have the last X's id: what that one left behind must be gone */
      int flag = 0;
      for (int t = 0; t < 3 && !flag; t++) {
        const int tag = t == 0 ? 1000 + (i - 1) % 1000 : t == 1 ? 3000 + (i - 1) % 1000 : 5000;
        MPI_Iprobe(MPI_ANY_SOURCE, tag, x, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "iteration %d: a message of the last iteration (tag %d) waits on the new"
              " dup", i, tag);
      }
    }
    MPI_Comm_rank(x, &me);
    MPI_Comm_size(x, &n);
    /* Traffic the revoke cuts short: sends nobody receives (tags never asked for), a receive
     * nothing matches. */
    MPI_Request req[3];
    int small = i, nreq = 0;
    MPI_Isend(&small, 1, MPI_INT, (me + 1) % n, 1000 + i % 1000, x, &req[nreq++]);
    if (i % 8 == 0) MPI_Isend(big_out, LARGE, MPI_CHAR, (me + 1) % n, 3000 + i % 1000, x,
                              &req[nreq++]);
    int never = 0;
    MPI_Irecv(&never, 1, MPI_INT, (me + n - 1) % n, 5000, x, &req[nreq++]);
    revoke_by_turn(x, i);
    for (int k = 0; k < nreq; k++) {
      /* A small send may have completed before the revoke; the rest end with its error. */
      if (MPI_Wait(&req[k], MPI_STATUS_IGNORE) != MPI_SUCCESS && req[k] != MPI_REQUEST_NULL) {
        MPI_Request_free(&req[k]);
      }
    }
    rc = MPIX_Comm_shrink(x, &s);
    CHECK(rc == MPI_SUCCESS, "iteration %d: shrink: class %d", i, class_of(rc));
    if (rc != MPI_SUCCESS) break;
    MPI_Comm_free(&x);
    rc = MPI_Barrier(s);
    CHECK(rc == MPI_SUCCESS, "iteration %d: barrier on the shrunk one: class %d", i, class_of(rc));
    nothing_waits(s, i, "shrunk communicator");
    int one = 1, count = 0, ns;
    MPI_Comm_size(s, &ns);
    rc = MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, s);
    CHECK(rc == MPI_SUCCESS && count == ns, "iteration %d: allreduce on the shrunk one: class %d,"
          " %d of %d", i, class_of(rc), count, ns);
    carry_on(&cur, &s);
    if (wrank == 0 && (i + 1) % 500 == 0) printf("rank 0: %d iterations\n", i + 1);
  }
  if (cur != MPI_COMM_WORLD) MPI_Comm_free(&cur);
  return failures;
}

static int late(int iters) {
  for (int i = 0; i < iters && failures == 0; i++) {
    MPI_Comm x, y;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &x);
    CHECK(rc == MPI_SUCCESS, "iteration %d: dup: class %d", i, class_of(rc));
    if (rc != MPI_SUCCESS) break;
    int old = -1 - i, got = 0;
    if (wrank == 0) MPI_Send(&old, 1, MPI_INT, 1, 7, x); /* small: complete once copied out */
    if (wrank == 1) { /* it has arrived once a probe sees it: then cut X short */
      int flag = 0;
      while (!flag) MPI_Iprobe(0, 7, x, &flag, MPI_STATUS_IGNORE);
      MPIX_Comm_revoke(x);
    } else {
      rc = MPI_Barrier(x); /* ends with the revoke */
      CHECK(class_of(rc) == MPIX_ERR_REVOKED, "iteration %d: barrier: class %d", i, class_of(rc));
    }
    MPI_Comm_free(&x);
    /* Every rank hears from every other after it freed X (an alltoall: direct messages), so
     * X's id is free everywhere when Y is built, and Y gets it. */
    int mine[64] = {0}, theirs[64];
    MPI_Alltoall(mine, 1, MPI_INT, theirs, 1, MPI_INT, MPI_COMM_WORLD);
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &y);
    CHECK(rc == MPI_SUCCESS, "iteration %d: dup: class %d", i, class_of(rc));
    if (rc != MPI_SUCCESS) break;
    int fresh = i;
    MPI_Status st;
    if (wrank == 0) MPI_Send(&fresh, 1, MPI_INT, 1, 8, y);
    if (wrank == 1) {
      rc = MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, y, &st);
      CHECK(rc == MPI_SUCCESS && st.MPI_TAG == 8 && got == fresh, "iteration %d: receive on the "
            "fresh communicator: class %d, tag %d, value %d (the revoked one's was tag 7, %d)",
            i, class_of(rc), st.MPI_TAG, got, old);
    }
    MPI_Barrier(y);
    nothing_waits(y, i, "dup");
    MPI_Comm_free(&y);
    if (wrank == 0 && (i + 1) % 500 == 0) printf("rank 0: %d iterations\n", i + 1);
  }
  return failures;
}

int main(int argc, char **argv) {
  const char *mode;
  int iters, die_at;
  if (!loop_init(argc, argv, &mode, &iters, &die_at)) return 2;
  if (iters < 1 || (strcmp(mode, "churn") != 0 && strcmp(mode, "late") != 0) || wsize < 2 ||
      wsize > 64) {
    fprintf(stderr, "usage: ulfm_ctx_reuse churn|late ITERATIONS [R@I] (2-64 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  if (strcmp(mode, "churn") == 0) churn(iters, die_at);
  else late(iters);
  if (failures == 0) printf("rank %d: ulfm_ctx_reuse %s OK, %d iterations\n", wrank, mode, iters);
  MPI_Finalize();
  return failures ? 1 : 0;
}
