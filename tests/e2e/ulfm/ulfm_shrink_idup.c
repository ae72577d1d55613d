/* MPIX_Comm_shrink takes its context id by the offer rule of every constructor
 * (ftmpi/src/context_choice.h): a shrink concurrent with MPI_Comm_idup on another communicator
 * neither hangs nor gives the two new communicators the same id. Each round, half the ranks
 * start the idup of B and then shrink A, the other half shrink first; then the blocking and
 * nonblocking forms swap (MPIX_Comm_ishrink pending while MPI_Comm_dup runs). Checks: both
 * new communicators work (allreduce sums) and are distinct (a receive posted on the shrunk one
 * never takes the message sent, with the same source and tag, on the duplicate).
 *   ulfm_shrink_idup ROUNDS [kill]   kill: the last rank dies first; A = MPI_COMM_WORLD then
 *   has a failed member (the shrink drops it), B = the others. Without kill A and B are
 *   duplicates of MPI_COMM_WORLD. */
#include "ulfm_test.h"

static void check_distinct(MPI_Comm shrunk, MPI_Comm dup, int round) {
  int n, me, a = 1, b = 1, sa = 0, sb = 0;
  MPI_Comm_size(dup, &n);
  MPI_Comm_rank(dup, &me);
  CHECK(MPI_Allreduce(&a, &sa, 1, MPI_INT, MPI_SUM, shrunk) == MPI_SUCCESS, "allreduce shrunk");
  CHECK(MPI_Allreduce(&b, &sb, 1, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS, "allreduce dup");
  CHECK(sa == n && sb == n, "round %d: sums %d %d, expected %d", round, sa, sb, n);
  /* Same rank order in both (the shrink keeps the survivors' order, so does B). */
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  int from_shrunk = -1, from_dup = -1;
  const int on_shrunk = 1000 + round, on_dup = 2000 + round;
  MPI_Request r[4];
  MPI_Irecv(&from_shrunk, 1, MPI_INT, left, 7, shrunk, &r[0]);
  MPI_Irecv(&from_dup, 1, MPI_INT, left, 7, dup, &r[1]);
  MPI_Isend(&on_dup, 1, MPI_INT, right, 7, dup, &r[2]);  /* first: it would take r[0] */
  MPI_Isend(&on_shrunk, 1, MPI_INT, right, 7, shrunk, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  CHECK(from_shrunk == on_shrunk && from_dup == on_dup,
        "round %d: crossed messages (shrunk got %d, dup got %d)", round, from_shrunk, from_dup);
}

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 10;
  const int kill = argc > 2 && strcmp(argv[2], "kill") == 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm a = MPI_COMM_WORLD, b;
  MPI_Comm_split(MPI_COMM_WORLD, kill && wrank == wsize - 1 ? MPI_UNDEFINED : 0, wrank, &b);
  if (kill && wrank == wsize - 1) die();
  if (!kill) MPI_Comm_dup(MPI_COMM_WORLD, &a);
  for (int round = 0; round < rounds; round++) {
    MPI_Comm shrunk = MPI_COMM_NULL, dup = MPI_COMM_NULL;
    MPI_Request req;
    int rc1, rc2;
    const int idup_first = (wrank + round) % 2 == 0;
    if (round % 2 == 0) {  /* idup of B pending while A shrinks */
      if (idup_first) {
        rc1 = MPI_Comm_idup(b, &dup, &req);
        rc2 = MPIX_Comm_shrink(a, &shrunk);
      } else {
        rc2 = MPIX_Comm_shrink(a, &shrunk);
        rc1 = MPI_Comm_idup(b, &dup, &req);
      }
      CHECK(rc1 == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "idup");
    } else {  /* ishrink of A pending while B is duplicated */
      if (idup_first) {
        rc2 = MPIX_Comm_ishrink(a, &shrunk, &req);
        rc1 = MPI_Comm_dup(b, &dup);
      } else {
        rc1 = MPI_Comm_dup(b, &dup);
        rc2 = MPIX_Comm_ishrink(a, &shrunk, &req);
      }
      CHECK(rc2 == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "ishrink");
    }
    CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "round %d: dup %d shrink %d", round,
          class_of(rc1), class_of(rc2));
    if (failures == 0) check_distinct(shrunk, dup, round);
    MPI_Comm_free(&shrunk);
    MPI_Comm_free(&dup);
  }
  if (!kill) MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  if (failures == 0) printf("rank %d: ulfm_shrink_idup OK, %d rounds\n", wrank, rounds);
  MPI_Finalize();
  return failures != 0;
}
