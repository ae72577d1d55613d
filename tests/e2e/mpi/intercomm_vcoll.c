/* The v-collectives and reduce-scatters on intercommunicators (MPI-3.1 5.2.3): Gatherv, Scatterv,
 * Allgatherv, Alltoallv, Alltoallw, Reduce_scatter, Reduce_scatter_block, blocking and their I*
 * forms, with value checks. Every split of MPI_COMM_WORLD into a first group of k ranks and a
 * second of the rest (so 2..5 ranks give groups of 1, 2 and 3 on either side), every root of
 * both groups (MPI_ROOT / MPI_PROC_NULL), block sizes that differ per rank, displacements that
 * leave holes (which must stay untouched), a strided datatype on the receive side,
 * MPI_IN_PLACE refused (MPI_ERR_BUFFER: no intercommunicator collective defines it).
 *
 * With the arguments "kill N" (run with --comm-mode shrink, at least 3 ranks): the last world
 * rank (a member of the second group) dies in the middle of a loop of these collectives, at a
 * point that N chooses; every
 * survivor must get an error (MPI_ERR_OTHER), every call after its first error must fail too,
 * and no call may hang. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize, failures, nb;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)
#define UNTOUCHED (-99)

static int k_split;  /* world ranks 0..k-1 form group 0, the rest group 1 */
static int group_of(int w) { return w < k_split ? 0 : 1; }
static int world_of(int g, int i) { return g == 0 ? i : k_split + i; }

/* Blocking or, when nb is set, the I* form followed by a wait. */
static int done(int rc, MPI_Request *q) { return rc != MPI_SUCCESS ? rc : MPI_Wait(q, MPI_STATUS_IGNORE); }
#define CALL(name, iname, ...) (nb ? done(MPI_##iname(__VA_ARGS__, &q), &q) : MPI_##name(__VA_ARGS__))

/* Sizes that differ per pair: what remote rank i sends to local rank j (0..3 ints). */
static int pair_count(int from, int to) { return (from + 2 * to) % 4; }

static void rooted(MPI_Comm ic, int me, int lrank, int lsize, int rsize) {
  MPI_Request q;
  for (int g = 0; g < 2; g++) {
    for (int root = 0; root < (g == me ? lsize : rsize); root++) {
      const int at_root = g == me && lrank == root;
      const int arg = g == me ? (at_root ? MPI_ROOT : MPI_PROC_NULL) : root;
      const int n = rsize;  /* the root's remote group (only read at the root) */
      /* gatherv: remote rank j sends j+1 ints; the root stores them in reverse order, a hole
       * after each block */
      int counts[8], displs[8], all[64], mine[8];
      for (int j = 0; j < n && at_root; j++) counts[j] = j + 1;
      for (int j = n - 1, at = 0; j >= 0 && at_root; j--) { displs[j] = at; at += counts[j] + 1; }
      for (int i = 0; i < 64; i++) all[i] = UNTOUCHED;
      for (int i = 0; i <= lrank; i++) mine[i] = wrank * 100 + i;
      int rc = CALL(Gatherv, Igatherv, mine, lrank + 1, MPI_INT, all, counts, displs, MPI_INT, arg, ic);
      CHECK(rc == MPI_SUCCESS, "gatherv rc %d", rc);
      if (at_root) {
        for (int j = 0; j < n; j++) {
          for (int i = 0; i < counts[j]; i++) {
            CHECK(all[displs[j] + i] == world_of(1 - me, j) * 100 + i, "gatherv block %d[%d] = %d", j, i, all[displs[j] + i]);
          }
          CHECK(all[displs[j] + counts[j]] == UNTOUCHED, "gatherv wrote a hole after block %d", j);
        }
        for (int j = 0; j < n; j++) for (int i = 0; i < counts[j]; i++) all[displs[j] + i] = root * 1000 + j * 10 + i;
      }
      /* scatterv: the reverse, the root's values */
      for (int i = 0; i < 8; i++) mine[i] = UNTOUCHED;
      rc = CALL(Scatterv, Iscatterv, all, counts, displs, MPI_INT, mine, lrank + 1, MPI_INT, arg, ic);
      CHECK(rc == MPI_SUCCESS, "scatterv rc %d", rc);
      if (g != me) {
        for (int i = 0; i <= lrank; i++) CHECK(mine[i] == root * 1000 + lrank * 10 + i, "scatterv [%d] = %d", i, mine[i]);
        CHECK(mine[lrank + 1] == UNTOUCHED, "scatterv wrote past the block");
      } else if (!at_root) {
        CHECK(mine[0] == UNTOUCHED, "scatterv touched a PROC_NULL buffer");
      }
    }
  }
}

static void unrooted(MPI_Comm ic, int me, int lrank, int lsize, int rsize) {
  MPI_Request q;
  /* allgatherv into a strided receive type (every other int): remote rank j's j+1 ints at
   * element displacement displs[j] */
  MPI_Datatype every_other;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
  MPI_Type_commit(&every_other);
  int counts[8], displs[8], buf[128], mine[8];
  for (int j = 0, at = 0; j < rsize; j++) { counts[j] = j + 1; displs[j] = at; at += j + 2; }
  for (int i = 0; i < 128; i++) buf[i] = UNTOUCHED;
  for (int i = 0; i <= lrank; i++) mine[i] = wrank * 100 + i;
  int rc = CALL(Allgatherv, Iallgatherv, mine, lrank + 1, MPI_INT, buf, counts, displs, every_other, ic);
  CHECK(rc == MPI_SUCCESS, "allgatherv rc %d", rc);
  for (int j = 0; j < rsize; j++) {
    for (int i = 0; i < counts[j]; i++) {
      CHECK(buf[2 * (displs[j] + i)] == world_of(1 - me, j) * 100 + i, "allgatherv %d[%d] = %d", j, i, buf[2 * (displs[j] + i)]);
      CHECK(buf[2 * (displs[j] + i) + 1] == UNTOUCHED, "allgatherv wrote a stride gap");
    }
    CHECK(buf[2 * (displs[j] + counts[j])] == UNTOUCHED, "allgatherv wrote a hole");
  }
  /* alltoallv: pair_count(me, j) ints to remote rank j, pair_count(j, me) from it */
  int sc[8], sd[8], rcn[8], rd[8], out[64], in[64];
  for (int j = 0, sa = 0, ra = 0; j < rsize; j++) {
    sc[j] = pair_count(lrank, j); sd[j] = sa; sa += sc[j];
    rcn[j] = pair_count(j, lrank); rd[j] = ra; ra += rcn[j] + 1;
    for (int i = 0; i < sc[j]; i++) out[sd[j] + i] = wrank * 1000 + j * 10 + i;
  }
  for (int i = 0; i < 64; i++) in[i] = UNTOUCHED;
  rc = CALL(Alltoallv, Ialltoallv, out, sc, sd, MPI_INT, in, rcn, rd, MPI_INT, ic);
  CHECK(rc == MPI_SUCCESS, "alltoallv rc %d", rc);
  for (int j = 0; j < rsize; j++) {
    for (int i = 0; i < rcn[j]; i++) CHECK(in[rd[j] + i] == world_of(1 - me, j) * 1000 + lrank * 10 + i, "alltoallv %d[%d] = %d", j, i, in[rd[j] + i]);
    CHECK(in[rd[j] + rcn[j]] == UNTOUCHED, "alltoallv wrote a hole");
  }
  /* alltoallw: the same blocks, sent as one strided element each of a per-peer vector type,
   * received as plain ints at byte displacements */
  MPI_Datatype st[8], rt[8];
  int one[8], sbd[8], rbd[8], stride[64];
  for (int j = 0; j < rsize; j++) {
    MPI_Type_vector(sc[j], 1, 2, MPI_INT, &st[j]);
    MPI_Type_commit(&st[j]);
    one[j] = 1;
    sbd[j] = (int)(2 * sd[j] * sizeof(int));
    rbd[j] = (int)(rd[j] * sizeof(int));
    rt[j] = MPI_INT;
    for (int i = 0; i < sc[j]; i++) stride[2 * (sd[j] + i)] = out[sd[j] + i];
  }
  for (int i = 0; i < 64; i++) in[i] = UNTOUCHED;
  rc = CALL(Alltoallw, Ialltoallw, stride, one, sbd, st, in, rcn, rbd, rt, ic);
  CHECK(rc == MPI_SUCCESS, "alltoallw rc %d", rc);
  for (int j = 0; j < rsize; j++) {
    for (int i = 0; i < rcn[j]; i++) CHECK(in[rd[j] + i] == world_of(1 - me, j) * 1000 + lrank * 10 + i, "alltoallw %d[%d] = %d", j, i, in[rd[j] + i]);
    CHECK(in[rd[j] + rcn[j]] == UNTOUCHED, "alltoallw wrote a hole");
    MPI_Type_free(&st[j]);
  }
  /* reduce_scatter: both groups reduce 6 longs (element e = world rank + 100 e); this group's
   * recvcounts split the OTHER group's sum */
  long v[6], res[7], sum_w = 0;
  for (int i = 0; i < rsize; i++) sum_w += world_of(1 - me, i);
  for (int e = 0; e < 6; e++) v[e] = wrank + 100 * e;
  int split[3][3] = {{6}, {2, 4}, {1, 2, 3}}, first = 0;
  for (int i = 0; i < lrank; i++) first += split[lsize - 1][i];
  const int my_n = split[lsize - 1][lrank];
  for (int i = 0; i < 7; i++) res[i] = UNTOUCHED;
  rc = CALL(Reduce_scatter, Ireduce_scatter, v, res, split[lsize - 1], MPI_LONG, MPI_SUM, ic);
  CHECK(rc == MPI_SUCCESS, "reduce_scatter rc %d", rc);
  for (int i = 0; i < my_n; i++) CHECK(res[i] == sum_w + 100L * rsize * (first + i), "reduce_scatter [%d] = %ld", i, res[i]);
  CHECK(res[my_n] == UNTOUCHED, "reduce_scatter wrote past the block");
  /* reduce_scatter_block: 6 / lsize elements each */
  for (int i = 0; i < 7; i++) res[i] = UNTOUCHED;
  rc = CALL(Reduce_scatter_block, Ireduce_scatter_block, v, res, 6 / lsize, MPI_LONG, MPI_SUM, ic);
  CHECK(rc == MPI_SUCCESS, "reduce_scatter_block rc %d", rc);
  for (int i = 0; i < 6 / lsize; i++) CHECK(res[i] == sum_w + 100L * rsize * (lrank * (6 / lsize) + i), "reduce_scatter_block [%d] = %ld", i, res[i]);
  /* MPI_IN_PLACE is defined for none of them on an intercommunicator */
  int cls = -1;
  MPI_Error_class(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, buf, counts, displs, MPI_INT, ic), &cls);
  CHECK(cls == MPI_ERR_BUFFER, "allgatherv in place: class %d", cls);
  MPI_Error_class(MPI_Reduce_scatter(MPI_IN_PLACE, res, split[lsize - 1], MPI_LONG, MPI_SUM, ic), &cls);
  CHECK(cls == MPI_ERR_BUFFER, "reduce_scatter in place: class %d", cls);
  MPI_Type_free(&every_other);
}

static MPI_Comm make_intercomm(int k, int *me, int *lrank, int *lsize, int *rsize) {
  k_split = k;
  *me = group_of(wrank);
  MPI_Comm local, ic;
  MPI_Comm_split(MPI_COMM_WORLD, *me, wrank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, world_of(1 - *me, 0), 9, &ic);
  MPI_Comm_free(&local);
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  MPI_Comm_rank(ic, lrank);
  MPI_Comm_size(ic, lsize);
  MPI_Comm_remote_size(ic, rsize);
  return ic;
}

/* The last world rank dies at iteration `at`, just before call `point` of it (both from the
 * run's number); nobody may hang, the calls before the death succeed, and once a call failed
 * every later one on the intercommunicator fails too. */
static void killed(int run_number) {
  int me, lrank, lsize, rsize;
  MPI_Comm ic = make_intercomm(wsize / 2, &me, &lrank, &lsize, &rsize);
  const int victim = wsize - 1, at = 2 + run_number % 5, point = run_number % 4;
  int first_error = -1;  /* 4 * iteration + call */
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < 10; it++) {
    int counts[8], displs[8], buf[64], mine[4] = {1, 2, 3, 4}, rc;
    for (int j = 0; j < 8; j++) { counts[j] = 1; displs[j] = j; }
    long v[6] = {1, 2, 3, 4, 5, 6}, res[6];
    int split[3][3] = {{6}, {2, 4}, {1, 2, 3}};
    nb = it % 2;
    MPI_Request q;
    for (int call = 0; call < 4; call++) {
      if (it == at && call == point && wrank == victim) raise(SIGKILL);
      switch (call) {
        case 0: rc = CALL(Allgatherv, Iallgatherv, mine, 1, MPI_INT, buf, counts, displs, MPI_INT, ic); break;
        case 1: rc = CALL(Alltoallv, Ialltoallv, buf, counts, displs, MPI_INT, mine, counts, displs, MPI_INT, ic); break;
        case 2: rc = CALL(Reduce_scatter, Ireduce_scatter, v, res, split[lsize - 1], MPI_LONG, MPI_SUM, ic); break;
        default:
          rc = CALL(Gatherv, Igatherv, mine, 1, MPI_INT, buf, counts, displs, MPI_INT,
                    me == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic);
      }
      int cls = MPI_SUCCESS;
      if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
      const int now = 4 * it + call;
      if (first_error >= 0) CHECK(cls == MPI_ERR_OTHER, "iteration %d call %d after the failure: class %d", it, call, cls);
      if (first_error < 0 && cls != MPI_SUCCESS) first_error = now;
      /* A survivor still inside an earlier call when the death is reported fails it too (the
       * intercommunicator is FAILED at once), but the reduce-scatter keeps everybody within
       * one iteration of the victim: the calls of two iterations before must have worked. */
      if (it < at - 1) CHECK(cls == MPI_SUCCESS, "iteration %d call %d before the failure: class %d", it, call, cls);
    }
  }
  CHECK(first_error >= 4 * (at - 1), "no error after the death (first error at call %d)", first_error);
  MPI_Comm_free(&ic);
  int one = 1, n = 0;
  MPI_Comm w;
  MPI_Comm_dup(MPI_COMM_WORLD, &w);  /* repairs MPI_COMM_WORLD (SHRINK) */
  MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, w);
  CHECK(n == wsize - 1, "survivors %d", n);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, w);
  MPI_Comm_free(&w);
  if (wrank == 0) printf(total == 0 ? "intercomm_vcoll kill: OK\n" : "intercomm_vcoll kill: %d failures\n", total);
  MPI_Finalize();
  exit(total != 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (wsize < 2 || wsize > 6) {
    if (wrank == 0) printf("intercomm_vcoll: needs 2..6 ranks\n");
    MPI_Finalize();
    return 1;
  }
  if (argc > 2 && strcmp(argv[1], "kill") == 0) killed(atoi(argv[2]));
  for (int k = 1; k < wsize; k++) {
    int me, lrank, lsize, rsize;
    MPI_Comm ic = make_intercomm(k, &me, &lrank, &lsize, &rsize);
    if (lsize > 3 || rsize > 3) { MPI_Comm_free(&ic); continue; }
    for (nb = 0; nb < 2; nb++) {
      rooted(ic, me, lrank, lsize, rsize);
      unrooted(ic, me, lrank, lsize, rsize);
    }
    MPI_Comm_free(&ic);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wrank == 0) printf(total == 0 ? "intercomm_vcoll: OK\n" : "intercomm_vcoll: %d failures\n", total);
  MPI_Finalize();
  return total != 0;
}
