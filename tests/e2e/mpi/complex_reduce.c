/* Reductions on the complex types (MPI_SUM and MPI_PROD, MPI-2.2 5.9.2) and on gfortran's
 * 16-byte INTEGER(16)/REAL(16): the C handles (MPI_C_*_COMPLEX), the Fortran ones (MPI_COMPLEX,
 * MPI_DOUBLE_COMPLEX, MPI_COMPLEX8/16/32) and the C++ ones, through Allreduce, Reduce and
 * Scan, compared with the same sum and product computed here in C; every other operation on a
 * complex type fails with MPI_ERR_OP. Run at any size. */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c, ...)                                                       \
  do {                                                                      \
    if (!(c)) {                                                             \
      failures++;                                                           \
      fprintf(stderr, "complex_reduce: FAIL line %d: ", __LINE__);          \
      fprintf(stderr, __VA_ARGS__);                                         \
      fprintf(stderr, "\n");                                                \
    }                                                                       \
  } while (0)

/* Rank r contributes (r+1) + (r-1)i: small integers, so sums and products are exact. */
static double _Complex contribution(int r) { return (double)(r + 1) + (double)(r - 1) * I; }

static double _Complex expected(int upto, int prod) {
  double _Complex acc = prod ? 1 : 0;
  for (int r = 0; r <= upto; r++) acc = prod ? acc * contribution(r) : acc + contribution(r);
  return acc;
}

/* One complex type, given as the width of its real part: 4 (float), 8 (double), 16 (long
 * double or __float128, told apart by `quad`). Values go through double. */
static void check_type(MPI_Datatype t, const char *name, int width, int quad, int rank, int size) {
  unsigned char mine[64], all[64], part[64];
  double _Complex c = contribution(rank);
  memset(mine, 0, sizeof mine);
  if (width == 4) { float _Complex v = (float _Complex)c; memcpy(mine, &v, sizeof v); }
  if (width == 8) memcpy(mine, &c, sizeof c);
  if (width == 16 && !quad) { long double _Complex v = c; memcpy(mine, &v, sizeof v); }
  if (width == 16 && quad) {
    __float128 v[2] = {(__float128)creal(c), (__float128)cimag(c)};
    memcpy(mine, v, sizeof v);
  }
  for (int prod = 0; prod <= 1; prod++) {
    MPI_Op op = prod ? MPI_PROD : MPI_SUM;
    for (int how = 0; how < 3; how++) {
      memset(all, 0, sizeof all);
      int rc = how == 0   ? MPI_Allreduce(mine, all, 1, t, op, MPI_COMM_WORLD)
               : how == 1 ? MPI_Reduce(mine, all, 1, t, op, 0, MPI_COMM_WORLD)
                          : MPI_Scan(mine, all, 1, t, op, MPI_COMM_WORLD);
      CHECK(rc == MPI_SUCCESS, "%s %s call %d: rc %d", name, prod ? "prod" : "sum", how, rc);
      if (how == 1 && rank != 0) continue;
      double _Complex want = expected(how == 2 ? rank : size - 1, prod), got;
      if (width == 4) { float _Complex v; memcpy(&v, all, sizeof v); got = v; }
      if (width == 8) memcpy(&got, all, sizeof got);
      if (width == 16 && !quad) { long double _Complex v; memcpy(&v, all, sizeof v); got = v; }
      if (width == 16 && quad) {
        __float128 v[2];
        memcpy(v, all, sizeof v);
        got = (double)v[0] + (double)v[1] * I;
      }
      CHECK(got == want, "%s %s call %d: %g%+gi, want %g%+gi", name, prod ? "prod" : "sum", how,
            creal(got), cimag(got), creal(want), cimag(want));
    }
  }
  /* Ordering and bitwise operations are not defined on complex numbers. */
  memcpy(part, mine, sizeof part);
  int rc = MPI_Allreduce(mine, part, 1, t, MPI_MAX, MPI_COMM_WORLD), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OP, "%s MPI_MAX: class %d, want MPI_ERR_OP", name, cls);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check_type(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", 4, 0, rank, size);
  check_type(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 8, 0, rank, size);
  check_type(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 16, 0, rank, size);
  check_type(MPI_COMPLEX, "MPI_COMPLEX", 4, 0, rank, size);
  check_type(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 8, 0, rank, size);
  check_type(MPI_COMPLEX8, "MPI_COMPLEX8", 4, 0, rank, size);
  check_type(MPI_COMPLEX16, "MPI_COMPLEX16", 8, 0, rank, size);
  check_type(MPI_COMPLEX32, "MPI_COMPLEX32", 16, 1, rank, size);
  check_type(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 8, 0, rank, size);

  /* INTEGER(16): a sum that carries past 64 bits, and a product; REAL(16): a sum. */
  __int128 big = ((__int128)1 << 100) + rank, sum = 0, p = 0, two = 2;
  MPI_Allreduce(&big, &sum, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == ((__int128)size << 100) + (__int128)size * (size - 1) / 2, "INTEGER16 sum");
  MPI_Allreduce(&two, &p, 1, MPI_INTEGER16, MPI_PROD, MPI_COMM_WORLD);
  CHECK(p == (__int128)1 << size, "INTEGER16 prod");
  __float128 q = (__float128)0.5 * (rank + 1), qs = 0, qmax = 0;
  MPI_Allreduce(&q, &qs, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD);
  CHECK(qs == (__float128)0.25 * size * (size + 1), "REAL16 sum %g", (double)qs);
  MPI_Allreduce(&q, &qmax, 1, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD);
  CHECK(qmax == (__float128)0.5 * size, "REAL16 max %g", (double)qmax);

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("complex_reduce: OK\n");
  MPI_Finalize();
  return all != 0;
}
