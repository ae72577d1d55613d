/* A revoke must reach only the communicator it was meant for, never a fresh one that happens to
 * get the same context id once the revoked one is freed.
 *   ulfm_revoke_reuse late ITERATIONS
 *     World rank 0 revokes X (a dup of the world) after the others freed X and before they dup
 *     P (the world without rank 0): the notice reaches them when they no longer have X, and
 *     their new communicator is given X's context id (free at all of them). It must not be
 *     revoked: each rank uses it (an allreduce and a ring) and checks MPIX_Comm_is_revoked.
 *   ulfm_revoke_reuse cycle ITERATIONS [R@I ...]
 *     Each iteration: X = dup(cur); one rank (moving) revokes X; everybody sees it in a
 *     barrier; X is shrunk and freed; the shrunk communicator is used at once and must work.
 *     World rank R dies right after the dup of iteration I (then the shrunk one replaces cur).
 * Every rank that finds a problem exits 1; each prints an OK line otherwise. */
#include "ulfm_test.h"

#define MAX_ITERS 100

/* An allreduce and a ring exchange on a communicator nobody revoked; 0 if both worked. */
static int use_fresh(MPI_Comm comm, int iter, const char *what) {
  int flag = 1, me, n;
  MPIX_Comm_is_revoked(comm, &flag);
  CHECK(flag == 0, "iteration %d: the fresh %s is revoked before its first use", iter, what);
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  long mine = wrank + 1, sum = 0, want = 0;
  MPI_Group g;
  MPI_Comm_group(comm, &g);
  int ranks[256], k = group_world_ranks(g, ranks, 256);
  MPI_Group_free(&g);
  for (int i = 0; i < k; i++) want += ranks[i] + 1;
  int rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
  CHECK(rc == MPI_SUCCESS, "iteration %d: allreduce on the fresh %s: class %d", iter, what,
        class_of(rc));
  if (rc == MPI_SUCCESS) CHECK(sum == want, "iteration %d: sum %ld, want %ld", iter, sum, want);
  long passed = -1;
  rc = MPI_Sendrecv(&sum, 1, MPI_LONG, (me + 1) % n, iter, &passed, 1, MPI_LONG, (me + n - 1) % n,
                    iter, comm, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS, "iteration %d: ring on the fresh %s: class %d", iter, what, class_of(rc));
  if (rc == MPI_SUCCESS) CHECK(passed == sum, "iteration %d: ring passed %ld", iter, passed);
  return rc;
}

static int late(int iters) {
  MPI_Comm others;  /* the world without rank 0 */
  MPI_Comm_split(MPI_COMM_WORLD, wrank == 0 ? MPI_UNDEFINED : 1, wrank, &others);
  /* Every Y stays until the end, so the next X's id is free again at the others only: each
   * iteration's Y gets that X's id (not only the first one's). */
  MPI_Comm ys[MAX_ITERS];
  int ny = 0;
  for (int i = 0; i < iters && failures == 0; i++) {
    MPI_Comm x;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &x);
    CHECK(rc == MPI_SUCCESS, "iteration %d: dup of the world: class %d", i, class_of(rc));
    if (wrank != 0) MPI_Comm_free(&x);
    MPI_Barrier(MPI_COMM_WORLD);  /* the others have let X go... */
    if (wrank == 0) {
      MPIX_Comm_revoke(x);        /* ...when rank 0 revokes it */
      MPI_Comm_free(&x);
    }
    MPI_Barrier(MPI_COMM_WORLD);  /* the notices are on their way (or arrived) */
    if (wrank == 0) continue;
    rc = MPI_Comm_dup(others, &ys[ny]);
    CHECK(rc == MPI_SUCCESS, "iteration %d: dup of the others: class %d", i, class_of(rc));
    if (rc != MPI_SUCCESS) break;
    use_fresh(ys[ny++], i, "dup");
  }
  MPI_Barrier(MPI_COMM_WORLD);  /* every notice has had time to land: the Ys are still fine */
  for (int i = 0; i < ny; i++) {
    if (failures == 0) use_fresh(ys[i], i, "dup (at the end)");
    MPI_Comm_free(&ys[i]);
  }
  if (others != MPI_COMM_NULL) MPI_Comm_free(&others);
  return failures;
}

static int cycle(int iters, int die_at) {
  MPI_Comm cur = MPI_COMM_WORLD;
  for (int i = 0; i < iters && failures == 0; i++) {
    MPI_Comm x, s;
    int rc = MPI_Comm_dup(cur, &x);
    CHECK(rc == MPI_SUCCESS, "iteration %d: dup: class %d", i, class_of(rc));
    if (rc != MPI_SUCCESS) break;
    use_fresh(x, i, "dup");
    MPI_Barrier(cur);  /* everybody is through the first use before the revoke comes */
    if (i == die_at) die();
    revoke_by_turn(x, i);
    rc = MPIX_Comm_shrink(x, &s);
    CHECK(rc == MPI_SUCCESS, "iteration %d: shrink: class %d", i, class_of(rc));
    if (rc != MPI_SUCCESS) break;
    MPI_Comm_free(&x);
    use_fresh(s, i, "shrink");
    carry_on(&cur, &s);
  }
  if (cur != MPI_COMM_WORLD) MPI_Comm_free(&cur);
  return failures;
}

int main(int argc, char **argv) {
  const char *mode;
  int iters, die_at;
  if (!loop_init(argc, argv, &mode, &iters, &die_at)) return 2;
  if (iters < 1 || iters > MAX_ITERS || (strcmp(mode, "late") != 0 && strcmp(mode, "cycle") != 0) ||
      (strcmp(mode, "late") == 0 && wsize < 3)) {
    fprintf(stderr, "usage: ulfm_revoke_reuse late|cycle ITERATIONS [R@I ...] (late: 3+ ranks)\n");
    MPI_Finalize();
    return 2;
  }
  if (strcmp(mode, "late") == 0) late(iters);
  else cycle(iters, die_at);
  if (failures == 0) printf("rank %d: ulfm_revoke_reuse %s OK, %d iterations\n", wrank, mode, iters);
  MPI_Finalize();
  return failures ? 1 : 0;
}
