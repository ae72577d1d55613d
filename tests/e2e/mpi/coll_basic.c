/* Every collective with value checks, at any size and every root; MPI_IN_PLACE; a
 * non-commutative user op whose result reveals the order; collectives on a split communicator;
 * invalid (type, op) pairs give MPI_ERR_OP. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void run(MPI_Comm comm) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "barrier");
  for (int root = 0; root < n; root++) {
    int v[3] = {0, 0, 0};
    if (r == root) { v[0] = 42 + root; v[1] = -root; v[2] = 7; }
    MPI_Bcast(v, 3, MPI_INT, root, comm);
    CHECK(v[0] == 42 + root && v[1] == -root && v[2] == 7, "bcast root %d", root);
    long s = r + 1, tot = -1;
    MPI_Reduce(&s, &tot, 1, MPI_LONG, MPI_SUM, root, comm);
    if (r == root) CHECK(tot == (long)n * (n + 1) / 2, "reduce root %d: %ld", root, tot);
    int *all = malloc(sizeof(int) * n * 2);
    int mine[2] = {r, r * r};
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, comm);
    if (r == root) for (int i = 0; i < n; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == i * i, "gather %d", i);
    if (r == root) for (int i = 0; i < n; i++) { all[2 * i] = 100 + i; all[2 * i + 1] = 200 + i; }
    MPI_Scatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, comm);
    CHECK(mine[0] == 100 + r && mine[1] == 200 + r, "scatter");
    /* gatherv with counts i+1 */
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n), total = 0;
    for (int i = 0; i < n; i++) { counts[i] = i + 1; displs[i] = total; total += i + 1; }
    int *gv = calloc(total, sizeof(int)), *sv = malloc(sizeof(int) * (r + 1));
    for (int i = 0; i <= r; i++) sv[i] = r * 10 + i;
    MPI_Gatherv(sv, r + 1, MPI_INT, gv, counts, displs, MPI_INT, root, comm);
    if (r == root) for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) CHECK(gv[displs[i] + j] == i * 10 + j, "gatherv");
    MPI_Scatterv(gv, counts, displs, MPI_INT, sv, r + 1, MPI_INT, root, comm);
    for (int i = 0; i <= r; i++) CHECK(sv[i] == r * 10 + i, "scatterv");
    free(all); free(counts); free(displs); free(gv); free(sv);
  }
  /* allreduce: every predefined op on a few types, and in place. */
  int iv = r + 1, io = 0;
  MPI_Allreduce(&iv, &io, 1, MPI_INT, MPI_SUM, comm); CHECK(io == n * (n + 1) / 2, "allreduce sum");
  MPI_Allreduce(&iv, &io, 1, MPI_INT, MPI_MAX, comm); CHECK(io == n, "allreduce max");
  MPI_Allreduce(&iv, &io, 1, MPI_INT, MPI_MIN, comm); CHECK(io == 1, "allreduce min");
  MPI_Allreduce(&iv, &io, 1, MPI_INT, MPI_BOR, comm);
  { int e = 0; for (int i = 1; i <= n; i++) e |= i; CHECK(io == e, "allreduce bor"); }
  double d = 1.5 * (r + 1), dsum = 0;
  MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm); CHECK(dsum == 1.5 * n * (n + 1) / 2, "allreduce double");
  io = r + 1;
  MPI_Allreduce(MPI_IN_PLACE, &io, 1, MPI_INT, MPI_PROD, comm);
  { int e = 1; for (int i = 1; i <= n; i++) e *= i; CHECK(io == e, "allreduce in place prod %d", io); }
  /* value (r+1) mod n: the maximum n-1 sits at rank n-2 (rank 0 when n == 1) */
  struct { double v; int i; } in = {(double)((r + 1) % n), r}, out;
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  CHECK(out.v == (double)(n - 1) && out.i == (n > 1 ? n - 2 : 0), "maxloc %f %d", out.v, out.i);
  /* large allreduce (1 MiB of doubles) */
  int big = 131072;
  double *bx = malloc(sizeof(double) * big), *by = malloc(sizeof(double) * big);
  for (int i = 0; i < big; i++) bx[i] = r + i;
  MPI_Allreduce(bx, by, big, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < big; i += 997) CHECK(by[i] == (double)n * (n - 1) / 2 + (double)n * i, "big allreduce %d", i);
  free(bx); free(by);
  /* allgather, alltoall, scan, reduce_scatter */
  int *ag = malloc(sizeof(int) * n), *sa = malloc(sizeof(int) * n), *ra = malloc(sizeof(int) * n);
  MPI_Allgather(&r, 1, MPI_INT, ag, 1, MPI_INT, comm);
  for (int i = 0; i < n; i++) CHECK(ag[i] == i, "allgather");
  for (int i = 0; i < n; i++) sa[i] = r * 1000 + i;
  MPI_Alltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, comm);
  for (int i = 0; i < n; i++) CHECK(ra[i] == i * 1000 + r, "alltoall");
  int pre = 0;
  MPI_Scan(&iv, &pre, 1, MPI_INT, MPI_SUM, comm); CHECK(pre == (r + 1) * (r + 2) / 2, "scan");
  int *rc = malloc(sizeof(int) * n), *rsin = malloc(sizeof(int) * n), rsout = -1;
  for (int i = 0; i < n; i++) { rc[i] = 1; rsin[i] = i + r; }
  MPI_Reduce_scatter(rsin, &rsout, rc, MPI_INT, MPI_SUM, comm);
  CHECK(rsout == n * r + n * (n - 1) / 2, "reduce_scatter %d", rsout);
  free(ag); free(sa); free(ra); free(rc); free(rsin);
  /* invalid pair */
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  float f = 1, fo;
  int rcode = MPI_Allreduce(&f, &fo, 1, MPI_FLOAT, MPI_BAND, comm), cls;
  MPI_Error_class(rcode, &cls);
  CHECK(cls == MPI_ERR_OP, "BAND on float gives MPI_ERR_OP (%d)", cls);
  rcode = MPI_Bcast(&f, 1, MPI_FLOAT, n + 3, comm);
  MPI_Error_class(rcode, &cls);
  CHECK(cls == MPI_ERR_ROOT, "bad root gives MPI_ERR_ROOT (%d)", cls);
}

/* a (x) b = a * 10 + b on digits: non-commutative, reveals order. */
static void concat(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  long *a = in, *b = inout;
  for (int i = 0; i < *len; i++) {
    long p = 1;
    while (p <= b[i]) p *= 10;
    b[i] = a[i] * p + b[i];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run(MPI_COMM_WORLD);
  MPI_Op op;
  MPI_Op_create(concat, 0, &op);
  long digit = (rank % 9) + 1, res = 0, expect = 0;
  for (int i = 0; i < size; i++) expect = expect * 10 + (i % 9) + 1;
  if (size <= 9) {
    MPI_Allreduce(&digit, &res, 1, MPI_LONG, op, MPI_COMM_WORLD);
    CHECK(res == expect, "non-commutative allreduce %ld, expected %ld", res, expect);
    MPI_Reduce(&digit, &res, 1, MPI_LONG, op, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1) CHECK(res == expect, "non-commutative reduce %ld, expected %ld", res, expect);
  }
  MPI_Op_free(&op);
  /* split: even and odd ranks, reversed order by key */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int hr, hs;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  CHECK(hs == (size + 1 - rank % 2) / 2, "split size %d", hs);
  run(half);
  MPI_Comm_free(&half);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  run(dup);
  MPI_Comm_free(&dup);
  MPI_Comm none;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
  CHECK((rank == 0) == (none != MPI_COMM_NULL), "MPI_UNDEFINED color gives MPI_COMM_NULL");
  if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("coll_basic: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
