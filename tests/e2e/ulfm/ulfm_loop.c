/* The classic ULFM recovery loop: an iterative computation whose step is an MPI_Allreduce and
 * a ring exchange; when a step fails, the survivor revokes the communicator (so that members
 * still blocked elsewhere leave too), shrinks it, agrees with the others on the iteration to
 * redo (the lowest any survivor had not finished) and carries on with fewer processes.
 *   ulfm_loop ITERATIONS R@I [R@I ...]     world rank R dies at the start of iteration I
 * Each iteration's result is checked against the members that computed it, every survivor must
 * end with the same results, and the final communicator holds exactly the survivors. */
#include "ulfm_test.h"

#define MAX_ITER 1000

static long value(int iter, int world_rank) { return (long)(iter + 1) * 1000 + world_rank; }

/* What the step must give on comm: the sum over its members of value(). */
static long expected(MPI_Comm comm, int iter) {
  MPI_Group g;
  MPI_Comm_group(comm, &g);
  int ranks[256], n = group_world_ranks(g, ranks, 256);
  MPI_Group_free(&g);
  long s = 0;
  for (int i = 0; i < n; i++) s += value(iter, ranks[i]);
  return s;
}

/* One step: everybody's value summed, then passed once around the ring (a p2p check). */
static int step(MPI_Comm comm, int iter, long *out) {
  long mine = value(iter, wrank), sum = 0;
  int rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
  if (rc != MPI_SUCCESS) return rc;
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  long passed = -1;
  rc = MPI_Sendrecv(&sum, 1, MPI_LONG, (me + 1) % n, iter, &passed, 1, MPI_LONG, (me + n - 1) % n,
                    iter, comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  CHECK(passed == sum, "iteration %d: the ring passed %ld, the sum is %ld", iter, passed, sum);
  *out = sum;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  int iters = argc > 1 ? atoi(argv[1]) : 50, nvictims = 0, die_at = -1;
  if (iters < 1 || iters > MAX_ITER) {
    fprintf(stderr, "usage: ulfm_loop ITERATIONS [R@I ...]\n");
    return 2;
  }
  for (int a = 2; a < argc; a++) {
    int r, i;
    if (sscanf(argv[a], "%d@%d", &r, &i) != 2) { fprintf(stderr, "bad victim '%s'\n", argv[a]); return 2; }
    nvictims++;
    if (r == wrank) die_at = i;
  }
  static long results[MAX_ITER];
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int iter = 0, recoveries = 0;
  while (iter < iters) {
    if (iter == die_at) die();
    long sum;
    int rc = step(comm, iter, &sum);
    if (rc == MPI_SUCCESS) {
      CHECK(sum == expected(comm, iter), "iteration %d: sum %ld, want %ld", iter, sum, expected(comm, iter));
      results[iter++] = sum;
      continue;
    }
    CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED || class_of(rc) == MPIX_ERR_REVOKED,
          "iteration %d failed with class %d", iter, class_of(rc));
    /* Recover: revoke, shrink, agree on where to restart; a failure in between starts over. */
    while (1) {
      MPIX_Comm_revoke(comm);
      MPI_Comm shrunk;
      rc = MPIX_Comm_shrink(comm, &shrunk);
      CHECK(rc == MPI_SUCCESS, "shrink failed: class %d", class_of(rc));
      if (rc != MPI_SUCCESS) { MPI_Finalize(); return 1; }
      MPI_Comm_free(&comm);
      comm = shrunk;
      recoveries++;
      int lowest = iter;
      rc = MPI_Allreduce(&iter, &lowest, 1, MPI_INT, MPI_MIN, comm);
      if (rc == MPI_SUCCESS) { iter = lowest; break; }
    }
  }
  int n;
  MPI_Comm_size(comm, &n);
  CHECK(n == wsize - nvictims, "final size %d, want %d", n, wsize - nvictims);
  unsigned h = 0;
  for (int i = 0; i < iters; i++) h = h * 31u + (unsigned)results[i];
  CHECK(same_everywhere(comm, (int)(h & 0x7fffffff)), "survivors hold different results");
  if (failures == 0) {
    printf("rank %d: ulfm_loop OK: %d iterations on %d of %d ranks, %d recoveries\n", wrank, iters, n,
           wsize, recoveries);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return failures ? 1 : 0;
}
