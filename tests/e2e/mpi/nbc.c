/* MPI-3 nonblocking collectives: every one with value checks at any size and every root, in
 * place and with a derived (strided) datatype; several outstanding at once on one communicator
 * and on several, completed out of order by Wait, Waitall, Waitany, Testall and MPI_Test
 * polling; progress made by a blocking call on another request (a rank that forwards an
 * Ibcast is blocked in MPI_Recv); MPI_Ialltoallw; MPI_Comm_idup; an argument error returned by the call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* Completes r by polling with MPI_Test (computing in between), as an overlapping code does. */
static int test_until_done(MPI_Request *r) {
  int flag = 0, rc = MPI_SUCCESS, polls = 0;
  volatile double x = 0;
  while (!flag) {
    rc = MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < 200; i++) x += i;  /* "compute" */
    polls++;
  }
  CHECK(*r == MPI_REQUEST_NULL, "request not freed by MPI_Test");
  return rc;
}

static void rooted(MPI_Comm comm, int r, int n) {
  for (int root = 0; root < n; root++) {
    MPI_Request q;
    int v[3] = {0, 0, 0};
    if (r == root) { v[0] = 42 + root; v[1] = -root; v[2] = 7; }
    MPI_Ibcast(v, 3, MPI_INT, root, comm, &q);
    CHECK(test_until_done(&q) == MPI_SUCCESS, "ibcast");
    CHECK(v[0] == 42 + root && v[1] == -root && v[2] == 7, "ibcast root %d", root);
    long s = r + 1, tot = -1;
    MPI_Ireduce(&s, &tot, 1, MPI_LONG, MPI_SUM, root, comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (r == root) CHECK(tot == (long)n * (n + 1) / 2, "ireduce root %d: %ld", root, tot);
    int *all = malloc(sizeof(int) * n * 2), mine[2] = {r, r * r};
    MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, root, comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (r == root) for (int i = 0; i < n; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == i * i, "igather %d", i);
    if (r == root) for (int i = 0; i < n; i++) { all[2 * i] = 100 + i; all[2 * i + 1] = 200 + i; }
    MPI_Iscatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, comm, &q);
    CHECK(test_until_done(&q) == MPI_SUCCESS, "iscatter");
    CHECK(mine[0] == 100 + r && mine[1] == 200 + r, "iscatter");
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n), total = 0;
    for (int i = 0; i < n; i++) { counts[i] = i + 1; displs[i] = total; total += i + 1; }
    int *gv = calloc(total, sizeof(int)), *sv = malloc(sizeof(int) * (r + 1));
    for (int i = 0; i <= r; i++) sv[i] = r * 10 + i;
    MPI_Igatherv(sv, r + 1, MPI_INT, gv, counts, displs, MPI_INT, root, comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (r == root) for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) CHECK(gv[displs[i] + j] == i * 10 + j, "igatherv");
    memset(sv, 0, sizeof(int) * (r + 1));
    MPI_Iscatterv(gv, counts, displs, MPI_INT, sv, r + 1, MPI_INT, root, comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i <= r; i++) CHECK(sv[i] == r * 10 + i, "iscatterv");
    free(all); free(counts); free(displs); free(gv); free(sv);
  }
}

static void unrooted(MPI_Comm comm, int r, int n) {
  MPI_Request q[4];
  int iv = r + 1, sum = 0, mx = 0, in_place = r + 1;
  double big_in[4096], big_out[4096];  /* 32 KiB: the large-message algorithm */
  for (int i = 0; i < 4096; i++) big_in[i] = r + i * 0.5;
  /* four outstanding on one communicator, completed in reverse order */
  MPI_Iallreduce(&iv, &sum, 1, MPI_INT, MPI_SUM, comm, &q[0]);
  MPI_Iallreduce(&iv, &mx, 1, MPI_INT, MPI_MAX, comm, &q[1]);
  MPI_Iallreduce(MPI_IN_PLACE, &in_place, 1, MPI_INT, MPI_PROD, comm, &q[2]);
  MPI_Iallreduce(big_in, big_out, 4096, MPI_DOUBLE, MPI_SUM, comm, &q[3]);
  for (int i = 3; i >= 0; i--) CHECK(MPI_Wait(&q[i], MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait %d", i);
  CHECK(sum == n * (n + 1) / 2, "iallreduce sum %d", sum);
  CHECK(mx == n, "iallreduce max %d", mx);
  { int e = 1; for (int i = 1; i <= n; i++) e *= i; CHECK(in_place == e, "iallreduce in place %d", in_place); }
  for (int i = 0; i < 4096; i += 511) {
    double e = (double)n * (n - 1) / 2 + n * i * 0.5;
    CHECK(big_out[i] == e, "iallreduce large [%d] %f != %f", i, big_out[i], e);
  }
  /* scan, exscan, reduce_scatter(_block) */
  int sc = 0, ex = -5;
  MPI_Iscan(&iv, &sc, 1, MPI_INT, MPI_SUM, comm, &q[0]);
  MPI_Iexscan(&iv, &ex, 1, MPI_INT, MPI_SUM, comm, &q[1]);
  int *rsin = malloc(sizeof(int) * 2 * n), *rcounts = malloc(sizeof(int) * n), rsout[2] = {0, 0}, rbout[2] = {0, 0};
  for (int i = 0; i < 2 * n; i++) rsin[i] = i + r;
  for (int i = 0; i < n; i++) rcounts[i] = 2;
  MPI_Ireduce_scatter(rsin, rsout, rcounts, MPI_INT, MPI_SUM, comm, &q[2]);
  MPI_Ireduce_scatter_block(rsin, rbout, 2, MPI_INT, MPI_SUM, comm, &q[3]);
  int flag = 0;
  while (!flag) MPI_Testall(4, q, &flag, MPI_STATUSES_IGNORE);
  CHECK(sc == (r + 1) * (r + 2) / 2, "iscan %d", sc);
  if (r > 0) CHECK(ex == r * (r + 1) / 2, "iexscan %d", ex);
  for (int k = 0; k < 2; k++) {
    int e = n * (2 * r + k) + n * (n - 1) / 2;
    CHECK(rsout[k] == e && rbout[k] == e, "ireduce_scatter[%d] %d %d, expected %d", k, rsout[k], rbout[k], e);
  }
  free(rsin); free(rcounts);
  /* allgather(v), alltoall(v), barrier: outstanding together, completed by Waitany */
  int *ag = malloc(sizeof(int) * n), *agv = malloc(sizeof(int) * n), *a2a_in = malloc(sizeof(int) * n),
      *a2a_out = malloc(sizeof(int) * n), *a2av_out = malloc(sizeof(int) * n), *ones = malloc(sizeof(int) * n),
      *disp = malloc(sizeof(int) * n);
  int *a2aw_out = malloc(sizeof(int) * n), *bdisp = malloc(sizeof(int) * n);
  MPI_Datatype *ints = malloc(sizeof(MPI_Datatype) * n);
  for (int i = 0; i < n; i++) {
    a2a_in[i] = r * 100 + i; ones[i] = 1; disp[i] = n - 1 - i;
    bdisp[i] = (int)sizeof(int) * i; ints[i] = MPI_INT; a2aw_out[i] = -1;
  }
  MPI_Request w[6];
  MPI_Iallgather(&r, 1, MPI_INT, ag, 1, MPI_INT, comm, &w[0]);
  MPI_Iallgatherv(&r, 1, MPI_INT, agv, ones, disp, MPI_INT, comm, &w[1]);
  MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, comm, &w[2]);
  MPI_Ialltoallv(a2a_in, ones, disp, MPI_INT, a2av_out, ones, disp, MPI_INT, comm, &w[3]);
  MPI_Ibarrier(comm, &w[4]);
  MPI_Ialltoallw(a2a_in, ones, bdisp, ints, a2aw_out, ones, bdisp, ints, comm, &w[5]);
  for (int k = 0; k < 6; k++) {
    int idx = -1;
    CHECK(MPI_Waitany(6, w, &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS && idx >= 0, "waitany");
  }
  for (int i = 0; i < n; i++) {
    CHECK(ag[i] == i, "iallgather[%d] %d", i, ag[i]);
    CHECK(agv[n - 1 - i] == i, "iallgatherv[%d]", i);
    CHECK(a2a_out[i] == i * 100 + r, "ialltoall[%d] %d", i, a2a_out[i]);
    /* block i of the send buffer sits at n-1-i: rank i gets my a2a_in[n-1-i]... */
    CHECK(a2av_out[n - 1 - i] == i * 100 + (n - 1 - r), "ialltoallv[%d] %d", i, a2av_out[n - 1 - i]);
    CHECK(a2aw_out[i] == i * 100 + r, "ialltoallw[%d] %d", i, a2aw_out[i]);
  }
  free(a2aw_out); free(bdisp); free(ints);
  free(ag); free(agv); free(a2a_in); free(a2a_out); free(a2av_out); free(ones); free(disp);
}

/* A strided datatype (every other int) through Ibcast and Iallreduce: the staged path. */
static void derived(MPI_Comm comm, int r, int n) {
  MPI_Datatype strided;
  MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int buf[8], red[8];
  for (int i = 0; i < 8; i++) buf[i] = r == 0 ? i : -1;
  MPI_Request q[2];
  MPI_Ibcast(buf, 1, strided, 0, comm, &q[0]);
  for (int i = 0; i < 8; i++) red[i] = i % 2 == 0 ? r + i : 99;
  MPI_Iallreduce(MPI_IN_PLACE, red, 1, strided, MPI_SUM, comm, &q[1]);
  MPI_Type_free(&strided);  /* allowed while the requests are pending */
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 8; i++) {
    CHECK(buf[i] == (i % 2 == 0 || r == 0 ? i : -1), "strided ibcast[%d] %d", i, buf[i]);
    CHECK(red[i] == (i % 2 == 0 ? n * (n - 1) / 2 + n * i : 99), "strided iallreduce[%d] %d", i, red[i]);
  }
}

/* Rank 1 forwards a 1 MiB Ibcast to rank 3 while it is blocked in MPI_Recv from rank 3, which
 * sends only once its Ibcast is complete: the blocking receive must drive the collective. */
static void progress_by_blocking_call(MPI_Comm comm, int r, int n) {
  if (n < 4) return;
  const int count = 1 << 17;
  double *b = malloc(sizeof(double) * count);
  for (int i = 0; i < count; i++) b[i] = r == 0 ? i : -1;
  MPI_Request q;
  MPI_Ibcast(b, count, MPI_DOUBLE, 0, comm, &q);
  int token = 0;
  if (r == 1) {
    MPI_Recv(&token, 1, MPI_INT, 3, 5, comm, MPI_STATUS_IGNORE);
    CHECK(token == 33, "token %d", token);
  }
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  if (r == 3) { token = 33; MPI_Send(&token, 1, MPI_INT, 1, 5, comm); }
  CHECK(b[count - 1] == count - 1 && b[12345] == 12345, "1 MiB ibcast");
  free(b);
}

/* Outstanding on two communicators at once (one from MPI_Comm_idup), and a blocking
 * collective on the first while the nonblocking ones are under way. */
static void several_comms(int r, int n) {
  MPI_Comm dup;
  MPI_Request q[3];
  MPI_Comm_idup(MPI_COMM_WORLD, &dup, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  int a = r, b = 2 * r, c = 0, sa = 0, sb = 0;
  MPI_Iallreduce(&a, &sa, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]);
  MPI_Iallreduce(&b, &sb, 1, MPI_INT, MPI_SUM, dup, &q[1]);
  MPI_Ibarrier(dup, &q[2]);
  MPI_Allreduce(&r, &c, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
  CHECK(sa == n * (n - 1) / 2 && sb == n * (n - 1) && c == n - 1, "two comms %d %d %d", sa, sb, c);
  int cmp;
  MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "idup compare %d", cmp);
  MPI_Comm_free(&dup);
}

/* Many outstanding on one communicator (more than any algorithm's inline request slots). */
static void many(MPI_Comm comm, int r, int n) {
  enum { K = 40 };
  MPI_Request q[K];
  int in[K], out[K];
  for (int k = 0; k < K; k++) {
    in[k] = r * K + k;
    MPI_Iallreduce(&in[k], &out[k], 1, MPI_INT, MPI_SUM, comm, &q[k]);
  }
  MPI_Waitall(K, q, MPI_STATUSES_IGNORE);
  for (int k = 0; k < K; k++) CHECK(out[k] == K * n * (n - 1) / 2 + n * k, "many[%d] %d", k, out[k]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  rooted(MPI_COMM_WORLD, rank, size);
  unrooted(MPI_COMM_WORLD, rank, size);
  derived(MPI_COMM_WORLD, rank, size);
  progress_by_blocking_call(MPI_COMM_WORLD, rank, size);
  several_comms(rank, size);
  many(MPI_COMM_WORLD, rank, size);
  /* a split communicator: odd and even ranks */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int hr, hn;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hn);
  unrooted(half, hr, hn);
  MPI_Comm_free(&half);
  /* argument errors come back from the call itself, with no request */
  MPI_Request q = 12345;
  int x = 0;
  int rc = MPI_Ibcast(&x, -1, MPI_INT, 0, MPI_COMM_WORLD, &q);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT && q == MPI_REQUEST_NULL, "negative count: class %d", cls);
  rc = MPI_Iallreduce(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "NULL request: class %d", cls);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all == 0 ? "nbc: OK\n" : "nbc: %d failures\n", all);
  MPI_Finalize();
  return all != 0;
}
