/* Collectives on intercommunicators (MPI-2.2 5.2.3): Barrier, Bcast, Reduce, Allreduce, Gather,
 * Scatter, Allgather, Alltoall with value checks, every root of both groups (MPI_ROOT at the
 * root, MPI_PROC_NULL at the rest of its group), over two splits of MPI_COMM_WORLD (even/odd,
 * and rank 0 against the rest); a strided datatype; the nonblocking forms on an
 * intercommunicator, several outstanding; MPI_Comm_split and MPI_Comm_create on an
 * intercommunicator. Needs at least 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int even_odd(int r) { return r % 2; }
static int one_vs_rest(int r) { return r == 0 ? 0 : 1; }

/* World rank of local/remote rank i: the groups are split in world order. */
static int world_of(int (*color_of)(int), int color, int i) {
  for (int r = 0; r < wsize; r++) {
    if (color_of(r) == color && i-- == 0) return r;
  }
  return -1;
}

static void rooted(MPI_Comm ic, int (*color_of)(int), int me, int lrank, int lsize, int rsize) {
  for (int group = 0; group < 2; group++) {
    const int n_root_group = group == me ? lsize : rsize;
    for (int root = 0; root < n_root_group; root++) {
      const int in_root_group = group == me;
      const int i_am_root = in_root_group && lrank == root;
      const int arg = in_root_group ? (i_am_root ? MPI_ROOT : MPI_PROC_NULL) : root;
      const int root_world = world_of(color_of, group, root);
      /* bcast */
      int v[2] = {-1, -1};
      if (i_am_root) { v[0] = 1000 + root_world; v[1] = 7; }
      CHECK(MPI_Bcast(v, 2, MPI_INT, arg, ic) == MPI_SUCCESS, "bcast");
      if (!in_root_group) CHECK(v[0] == 1000 + root_world && v[1] == 7, "bcast from %d: %d", root_world, v[0]);
      if (in_root_group && !i_am_root) CHECK(v[0] == -1, "bcast touched a PROC_NULL buffer");
      /* reduce: the root gets the sum over the other group's world ranks */
      long mine = wrank, sum = -1, expect = 0;
      for (int i = 0; i < (in_root_group ? rsize : lsize); i++) expect += world_of(color_of, 1 - group, i);
      CHECK(MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, arg, ic) == MPI_SUCCESS, "reduce");
      if (i_am_root) CHECK(sum == expect, "reduce at %d: %ld, expected %ld", root_world, sum, expect);
      /* gather: the root gets one block per remote rank; scatter: the reverse */
      int other_n = in_root_group ? rsize : lsize;
      int *all = malloc(sizeof(int) * 2 * (size_t)other_n), blk[2] = {wrank, -wrank};
      CHECK(MPI_Gather(blk, 2, MPI_INT, all, 2, MPI_INT, arg, ic) == MPI_SUCCESS, "gather");
      if (i_am_root) {
        for (int i = 0; i < rsize; i++) {
          int w = world_of(color_of, 1 - group, i);
          CHECK(all[2 * i] == w && all[2 * i + 1] == -w, "gather block %d: %d", i, all[2 * i]);
        }
        for (int i = 0; i < rsize; i++) { all[2 * i] = 50 + i; all[2 * i + 1] = root_world; }
      }
      blk[0] = blk[1] = -7;
      CHECK(MPI_Scatter(all, 2, MPI_INT, blk, 2, MPI_INT, arg, ic) == MPI_SUCCESS, "scatter");
      if (!in_root_group) CHECK(blk[0] == 50 + lrank && blk[1] == root_world, "scatter %d %d", blk[0], blk[1]);
      free(all);
    }
  }
}

static void unrooted(MPI_Comm ic, int (*color_of)(int), int me, int lrank, int rsize) {
  CHECK(MPI_Barrier(ic) == MPI_SUCCESS, "barrier");
  long mine = wrank + 1, sum = -1, expect = 0;
  for (int i = 0; i < rsize; i++) expect += world_of(color_of, 1 - me, i) + 1;
  CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, ic) == MPI_SUCCESS, "allreduce");
  CHECK(sum == expect, "allreduce: %ld, expected the remote group's %ld", sum, expect);
  int *ag = malloc(sizeof(int) * (size_t)rsize), *in = malloc(sizeof(int) * (size_t)rsize),
      *out = malloc(sizeof(int) * (size_t)rsize);
  CHECK(MPI_Allgather(&wrank, 1, MPI_INT, ag, 1, MPI_INT, ic) == MPI_SUCCESS, "allgather");
  for (int i = 0; i < rsize; i++) {
    CHECK(ag[i] == world_of(color_of, 1 - me, i), "allgather[%d] %d", i, ag[i]);
    in[i] = wrank * 1000 + i;  /* block i goes to remote rank i */
  }
  CHECK(MPI_Alltoall(in, 1, MPI_INT, out, 1, MPI_INT, ic) == MPI_SUCCESS, "alltoall");
  for (int i = 0; i < rsize; i++) {
    CHECK(out[i] == world_of(color_of, 1 - me, i) * 1000 + lrank, "alltoall[%d] %d", i, out[i]);
  }
  free(ag); free(in); free(out);
}

/* A strided type (every other int) through an intercommunicator broadcast from group 0's rank 0. */
static void derived(MPI_Comm ic, int me, int lrank) {
  MPI_Datatype strided;
  MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int buf[6];
  for (int i = 0; i < 6; i++) buf[i] = me == 0 && lrank == 0 ? 10 + i : -1;
  const int arg = me == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  CHECK(MPI_Bcast(buf, 1, strided, arg, ic) == MPI_SUCCESS, "strided bcast");
  if (me == 1) {
    for (int i = 0; i < 6; i++) CHECK(buf[i] == (i % 2 == 0 ? 10 + i : -1), "strided [%d] %d", i, buf[i]);
  }
  MPI_Type_free(&strided);
}

static void nonblocking(MPI_Comm ic, int (*color_of)(int), int me, int lrank, int rsize) {
  MPI_Request q[3];
  long mine = wrank + 1, sum = -1, expect = 0;
  for (int i = 0; i < rsize; i++) expect += world_of(color_of, 1 - me, i) + 1;
  int v = me == 1 && lrank == 0 ? 4242 : -1;
  const int arg = me == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  MPI_Ibarrier(ic, &q[0]);
  MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, ic, &q[1]);
  MPI_Ibcast(&v, 1, MPI_INT, arg, ic, &q[2]);
  CHECK(MPI_Waitall(3, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "nonblocking waitall");
  CHECK(sum == expect, "iallreduce %ld, expected %ld", sum, expect);
  if (me == 0) CHECK(v == 4242, "ibcast %d", v);
}

static void run(int (*color_of)(int)) {
  const int me = color_of(wrank);
  MPI_Comm local, ic;
  MPI_Comm_split(MPI_COMM_WORLD, me, wrank, &local);
  const int remote_leader = world_of(color_of, 1 - me, 0);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 7, &ic);
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  int lrank, lsize, rsize;
  MPI_Comm_rank(ic, &lrank);
  MPI_Comm_size(ic, &lsize);
  MPI_Comm_remote_size(ic, &rsize);
  rooted(ic, color_of, me, lrank, lsize, rsize);
  unrooted(ic, color_of, me, lrank, rsize);
  derived(ic, me, lrank);
  nonblocking(ic, color_of, me, lrank, rsize);
  /* split: by world rank parity inside each group, reversed order; MPI_UNDEFINED for a
   * world rank divisible by 3 (color 2 nowhere else: MPI_COMM_NULL) */
  const int color = wrank % 3 == 0 ? MPI_UNDEFINED : wrank % 2;
  MPI_Comm sub;
  CHECK(MPI_Comm_split(ic, color, -wrank, &sub) == MPI_SUCCESS, "split");
  int lhave = 0, rhave = 0;
  for (int i = 0; i < lsize; i++) { int w = world_of(color_of, me, i); lhave += w % 3 != 0 && w % 2 == color; }
  for (int i = 0; i < rsize; i++) { int w = world_of(color_of, 1 - me, i); rhave += w % 3 != 0 && w % 2 == color; }
  if (color == MPI_UNDEFINED || rhave == 0) {
    CHECK(sub == MPI_COMM_NULL, "split: expected MPI_COMM_NULL");
  } else {
    int sl, sr, srank, flag;
    MPI_Comm_test_inter(sub, &flag);
    MPI_Comm_size(sub, &sl);
    MPI_Comm_remote_size(sub, &sr);
    MPI_Comm_rank(sub, &srank);
    CHECK(flag && sl == lhave && sr == rhave, "split sizes %d %d, expected %d %d", sl, sr, lhave, rhave);
    /* key -wrank: the highest world rank first, on both sides */
    int mine_w = wrank, *ranks = malloc(sizeof(int) * (size_t)sr);
    CHECK(MPI_Allgather(&mine_w, 1, MPI_INT, ranks, 1, MPI_INT, sub) == MPI_SUCCESS, "split allgather");
    for (int i = 1; i < sr; i++) CHECK(ranks[i - 1] > ranks[i], "split order %d %d", ranks[i - 1], ranks[i]);
    free(ranks);
    MPI_Comm_free(&sub);
  }
  /* create: the local group's first half (at least one) on each side */
  MPI_Group lg, half;
  MPI_Comm_group(ic, &lg);
  int range[1][3] = {{0, (lsize + 1) / 2 - 1, 1}};
  MPI_Group_range_incl(lg, 1, range, &half);
  CHECK(MPI_Comm_create(ic, half, &sub) == MPI_SUCCESS, "create");
  if (lrank < (lsize + 1) / 2) {
    int sr = -1;
    MPI_Comm_remote_size(sub, &sr);
    CHECK(sr == (rsize + 1) / 2, "create: remote size %d", sr);
    long v1 = 1, n1 = 0;
    MPI_Allreduce(&v1, &n1, 1, MPI_LONG, MPI_SUM, sub);
    CHECK(n1 == sr, "create: allreduce %ld", n1);
    MPI_Comm_free(&sub);
  } else {
    CHECK(sub == MPI_COMM_NULL, "create: expected MPI_COMM_NULL");
  }
  MPI_Group_free(&half);
  MPI_Group_free(&lg);
  /* a root that names neither MPI_ROOT, MPI_PROC_NULL nor a remote rank */
  int x = 0, cls = -1;
  MPI_Error_class(MPI_Bcast(&x, 1, MPI_INT, rsize, ic), &cls);
  CHECK(cls == MPI_ERR_ROOT, "bad root: class %d", cls);
  MPI_Comm_free(&ic);
  MPI_Comm_free(&local);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) {
    printf("intercomm_coll: OK (needs 2 ranks; nothing to do)\n");
    MPI_Finalize();
    return 0;
  }
  run(even_odd);
  run(one_vs_rest);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wrank == 0) printf(total == 0 ? "intercomm_coll: OK\n" : "intercomm_coll: %d failures\n", total);
  MPI_Finalize();
  return total != 0;
}
