/* MPI-2 reductions and datatypes: MPI_Exscan (predefined op, a non-commutative user op that
 * checks rank order, MPI_IN_PLACE, a derived type), MPI_Reduce_scatter_block,
 * MPI_Reduce_local, MPI_Op_commutative, MPI_Type_create_hindexed_block and _subarray; bad arguments get
 * their error class. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)
#define P 1000003LL

static int cls(int rc) {
  int c;
  MPI_Error_class(rc, &c);
  return c;
}

/* 2x2 matrices mod P: associative, not commutative. inout = in * inout (in: the lower ranks). */
static void matmul(const long long *a, const long long *b, long long *out) {
  long long r[4] = {(a[0] * b[0] + a[1] * b[2]) % P, (a[0] * b[1] + a[1] * b[3]) % P,
                    (a[2] * b[0] + a[3] * b[2]) % P, (a[2] * b[1] + a[3] * b[3]) % P};
  memcpy(out, r, sizeof r);
}
static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  for (int i = 0; i < *len; i++) matmul((long long *)in + 4 * i, (long long *)inout + 4 * i, (long long *)inout + 4 * i);
}
static void mat_of(int r, long long *m) { m[0] = r + 2; m[1] = 1; m[2] = r; m[3] = 1; }

static void exscan(MPI_Datatype mat, MPI_Op op) {
  int x = rank + 1, y = -7;
  MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) CHECK(y == -7, "rank 0's recvbuf changed to %d", y);
  else CHECK(y == rank * (rank + 1) / 2, "exscan sum %d", y);
  y = rank + 1; /* in place */
  MPI_Exscan(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank > 0) CHECK(y == rank, "in-place exscan max %d", y);
  long long m[4], got[4] = {0, 0, 0, 0}, want[4] = {1, 0, 0, 1};
  mat_of(rank, m);
  for (int r = 0; r < rank; r++) {
    long long a[4];
    mat_of(r, a);
    matmul(want, a, want); /* want = m0 * m1 * ... * m(rank-1) */
  }
  MPI_Exscan(m, got, 1, mat, op, MPI_COMM_WORLD);
  if (rank > 0) CHECK(memcmp(got, want, sizeof want) == 0, "non-commutative exscan out of order");
  /* a strided derived type goes through staging: every other int */
  int in[6], out[6];
  for (int i = 0; i < 6; i++) { in[i] = (rank + 1) * (i + 1); out[i] = -1; }
  MPI_Datatype every_other;
  MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Exscan(in, out, 1, every_other, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < 6; i++) {
    int expect = rank == 0 || i % 2 ? -1 : rank * (rank + 1) / 2 * (i + 1);
    CHECK(out[i] == expect, "strided exscan out[%d] = %d, expected %d", i, out[i], expect);
  }
  MPI_Type_free(&every_other);
}

static void reduce_scatter_block(void) {
  int send[64], recv[2] = {-1, -1};
  for (int i = 0; i < 2 * size; i++) send[i] = rank + i;
  MPI_Reduce_scatter_block(send, recv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int j = 0; j < 2; j++) {
    int i = 2 * rank + j, expect = size * (size - 1) / 2 + size * i;
    CHECK(recv[j] == expect, "reduce_scatter_block[%d] %d, expected %d", j, recv[j], expect);
  }
  for (int i = 0; i < 2 * size; i++) send[i] = rank + i;
  MPI_Reduce_scatter_block(MPI_IN_PLACE, send, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(send[0] == size * (size - 1) / 2 + size * 2 * rank, "in-place block %d", send[0]);
}

static void reduce_local(MPI_Datatype mat, MPI_Op op) {
  double a[3] = {1, 5, 3}, b[3] = {4, 2, 6};
  MPI_Reduce_local(a, b, 3, MPI_DOUBLE, MPI_MAX);
  CHECK(b[0] == 4 && b[1] == 5 && b[2] == 6, "reduce_local max %g %g %g", b[0], b[1], b[2]);
  long long x[4], y[4], want[4];
  mat_of(1, x);
  mat_of(2, y);
  matmul(x, y, want);
  MPI_Reduce_local(x, y, 1, mat, op); /* y = x op y */
  CHECK(memcmp(y, want, sizeof want) == 0, "reduce_local user op");
  int c = -1;
  MPI_Op_commutative(op, &c);
  CHECK(c == 0, "user op reported commutative");
  MPI_Op_commutative(MPI_SUM, &c);
  CHECK(c == 1, "MPI_SUM not commutative");
}

static void hindexed_block(void) {
  int buf[8] = {0, 1, 2, 3, 4, 5, 6, 7}, out[4] = {0};
  MPI_Aint disp[2] = {1 * sizeof(int), 5 * sizeof(int)};
  MPI_Datatype t;
  MPI_Type_create_hindexed_block(2, 2, disp, MPI_INT, &t);
  MPI_Type_commit(&t);
  int sz, ni, na, nd, comb;
  MPI_Aint lb, extent;
  MPI_Type_size(t, &sz);
  MPI_Type_get_true_extent(t, &lb, &extent);
  CHECK(sz == 4 * (int)sizeof(int) && lb == (MPI_Aint)sizeof(int) && extent == 6 * (MPI_Aint)sizeof(int),
        "size %d true lb %ld extent %ld", sz, (long)lb, (long)extent);
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  CHECK(comb == MPI_COMBINER_HINDEXED_BLOCK && ni == 2 && na == 2 && nd == 1, "envelope %d %d %d %d",
        ni, na, nd, comb);
  int pos = 0;
  MPI_Pack(buf, 1, t, out, sizeof out, &pos, MPI_COMM_WORLD);
  CHECK(out[0] == 1 && out[1] == 2 && out[2] == 5 && out[3] == 6, "packed %d %d %d %d", out[0], out[1],
        out[2], out[3]);
  MPI_Type_free(&t);
}

/* C order: a 2x3x2 block at (1,1,3) of a 4x5x6 array; Fortran order: 2x2 at (1,0) of 3x4. */
static void subarray(void) {
  int a[4][5][6], packed[12], pos = 0, k = 0, sz;
  for (int i = 0; i < 4; i++) for (int j = 0; j < 5; j++) for (int l = 0; l < 6; l++) a[i][j][l] = 100 * i + 10 * j + l;
  int sizes[3] = {4, 5, 6}, sub[3] = {2, 3, 2}, starts[3] = {1, 1, 3};
  MPI_Datatype t;
  MPI_Aint lb, extent;
  MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Type_size(t, &sz);
  MPI_Type_get_extent(t, &lb, &extent);
  CHECK(sz == 12 * (int)sizeof(int) && lb == 0 && extent == (MPI_Aint)sizeof a, "size %d lb %ld extent %ld",
        sz, (long)lb, (long)extent);
  int ni, na, nd, comb;
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 11 && na == 0 && nd == 1, "subarray envelope");
  MPI_Pack(a, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
  for (int i = 1; i < 3; i++) for (int j = 1; j < 4; j++) for (int l = 3; l < 5; l++, k++)
    CHECK(packed[k] == 100 * i + 10 * j + l, "C-order element %d: %d", k, packed[k]);
  MPI_Type_free(&t);
  int f[4][3]; /* Fortran 3x4 (rows fastest): element (r, c) at f[c][r] */
  for (int c = 0; c < 4; c++) for (int r = 0; r < 3; r++) f[c][r] = 10 * r + c;
  int fs[2] = {3, 4}, fsub[2] = {2, 2}, fst[2] = {1, 0};
  MPI_Type_create_subarray(2, fs, fsub, fst, MPI_ORDER_FORTRAN, MPI_INT, &t);
  MPI_Type_commit(&t);
  pos = 0;
  MPI_Pack(f, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
  CHECK(packed[0] == 10 && packed[1] == 20 && packed[2] == 11 && packed[3] == 21, "Fortran order %d %d %d %d",
        packed[0], packed[1], packed[2], packed[3]);
  MPI_Type_free(&t);
  int bad_sub[3] = {2, 6, 2}, bad_start[3] = {3, 0, 0};
  CHECK(cls(MPI_Type_create_subarray(0, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "ndims 0");
  CHECK(cls(MPI_Type_create_subarray(3, sizes, bad_sub, starts, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "subsize > size");
  CHECK(cls(MPI_Type_create_subarray(3, sizes, sub, bad_start, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "start past the end");
  CHECK(cls(MPI_Type_create_subarray(3, sizes, sub, starts, 3, MPI_INT, &t)) == MPI_ERR_ARG, "order");
  CHECK(cls(MPI_Type_create_subarray(3, NULL, sub, starts, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "NULL");
  CHECK(cls(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DATATYPE_NULL, &t)) == MPI_ERR_TYPE,
        "oldtype");
  int huge[3] = {1 << 30, 1 << 30, 1 << 30}, one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
  CHECK(cls(MPI_Type_create_subarray(3, huge, one, zero, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "overflow");
}

static void bad_input(MPI_Op op) {
  int x = 0, y = 0, c;
  MPI_Datatype t;
  MPI_Aint d[1] = {0};
  CHECK(cls(MPI_Exscan(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_COUNT, "exscan count");
  CHECK(cls(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD)) == MPI_ERR_OP, "exscan op");
  CHECK(cls(MPI_Exscan(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_TYPE, "exscan type");
  CHECK(cls(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL)) == MPI_ERR_COMM, "exscan comm");
  CHECK(cls(MPI_Reduce_scatter_block(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_COUNT,
        "reduce_scatter_block count");
  CHECK(cls(MPI_Reduce_scatter_block(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL)) == MPI_ERR_COMM,
        "reduce_scatter_block comm");
  CHECK(cls(MPI_Reduce_local(&x, &y, -1, MPI_INT, MPI_SUM)) == MPI_ERR_COUNT, "reduce_local count");
  CHECK(cls(MPI_Reduce_local(&x, &y, 1, MPI_INT, 999)) == MPI_ERR_OP, "reduce_local op");
  CHECK(cls(MPI_Reduce_local(&x, &y, 1, MPI_BYTE, MPI_SUM)) == MPI_ERR_OP, "reduce_local byte sum");
  CHECK(cls(MPI_Reduce_local(NULL, &y, 1, MPI_INT, MPI_SUM)) == MPI_ERR_BUFFER, "reduce_local NULL");
  CHECK(cls(MPI_Op_commutative(999, &c)) == MPI_ERR_OP, "commutative of a bad op");
  CHECK(cls(MPI_Op_commutative(op, NULL)) == MPI_ERR_ARG, "commutative NULL");
  CHECK(cls(MPI_Type_create_hindexed_block(-1, 1, d, MPI_INT, &t)) == MPI_ERR_COUNT, "hblock count");
  CHECK(cls(MPI_Type_create_hindexed_block(1, -1, d, MPI_INT, &t)) == MPI_ERR_ARG, "hblock blocklength");
  CHECK(cls(MPI_Type_create_hindexed_block(1, 1, NULL, MPI_INT, &t)) == MPI_ERR_ARG, "hblock NULL");
  CHECK(cls(MPI_Type_create_hindexed_block(1, 1, d, MPI_DATATYPE_NULL, &t)) == MPI_ERR_TYPE, "hblock type");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype mat;
  MPI_Op op;
  MPI_Type_contiguous(4, MPI_LONG_LONG, &mat);
  MPI_Type_commit(&mat);
  MPI_Op_create(matmul_op, 0, &op);
  for (int i = 0; i < 3; i++) exscan(mat, op);
  if (size <= 32) reduce_scatter_block();
  reduce_local(mat, op);
  hindexed_block();
  subarray();
  bad_input(op);
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("mpi2_reduce: OK\n");
  MPI_Finalize();
  return all != 0;
}
