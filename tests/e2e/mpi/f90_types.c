/* MPI_Type_create_f90_real / _complex / _integer and MPI_Type_match_size (MPI-3.1 17.1.9)
 * with gfortran's kinds: the size SELECTED_REAL_KIND / SELECTED_INT_KIND would pick, the same
 * handle for the same arguments, combiner MPI_COMBINER_F90_* with contents (p, r) or (r) and no
 * datatypes, usable in point-to-point, MPI_Reduce_local and MPI_Allreduce, not freeable.
 * Bad input: no kind with that precision or range, p and r both MPI_UNDEFINED, a size or
 * class match_size does not know: MPI_ERR_ARG. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static void check_type(MPI_Datatype t, int combiner, int p, int r, int bytes, const char *what) {
  int ni, na, nd, comb, sz, ints[2] = {-9, -9};
  MPI_Type_size(t, &sz);
  CHECK(sz == bytes, "%s: size %d, want %d", what, sz, bytes);
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  CHECK(comb == combiner && na == 0 && nd == 0 && ni == (combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2),
        "%s: envelope %d %d %d %d", what, ni, na, nd, comb);
  CHECK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL) == MPI_SUCCESS, "%s: contents", what);
  if (combiner == MPI_COMBINER_F90_INTEGER) CHECK(ints[0] == r, "%s: contents r %d", what, ints[0]);
  else CHECK(ints[0] == p && ints[1] == r, "%s: contents %d %d", what, ints[0], ints[1]);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int U = MPI_UNDEFINED;
  const struct { int p, r, bytes; } reals[] = {
      {3, 10, 4}, {3, U, 4}, {U, 10, 4}, {6, 37, 4}, {7, 30, 8}, {7, U, 8}, {U, 38, 8},
      {15, 307, 8}, {16, U, 16}, {18, 4931, 16}, {19, U, 16}, {33, 4931, 16}, {-1, U, 4}};
  for (size_t k = 0; k < sizeof reals / sizeof reals[0]; ++k) {
    MPI_Datatype a, b, c;
    char what[64];
    snprintf(what, sizeof what, "real(%d, %d)", reals[k].p, reals[k].r);
    CHECK(MPI_Type_create_f90_real(reals[k].p, reals[k].r, &a) == MPI_SUCCESS, "%s", what);
    MPI_Type_create_f90_real(reals[k].p, reals[k].r, &b);
    CHECK(a == b, "%s: a second handle", what);
    check_type(a, MPI_COMBINER_F90_REAL, reals[k].p, reals[k].r, reals[k].bytes, what);
    CHECK(MPI_Type_create_f90_complex(reals[k].p, reals[k].r, &c) == MPI_SUCCESS && c != a, "complex %s", what);
    check_type(c, MPI_COMBINER_F90_COMPLEX, reals[k].p, reals[k].r, 2 * reals[k].bytes, what);
  }
  const struct { int r, bytes; } ints[] = {{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4}, {9, 4}, {10, 8},
                                           {18, 8}, {19, 16}, {38, 16}, {-3, 1}};
  for (size_t k = 0; k < sizeof ints / sizeof ints[0]; ++k) {
    MPI_Datatype a, b;
    char what[64];
    snprintf(what, sizeof what, "integer(%d)", ints[k].r);
    CHECK(MPI_Type_create_f90_integer(ints[k].r, &a) == MPI_SUCCESS, "%s", what);
    MPI_Type_create_f90_integer(ints[k].r, &b);
    CHECK(a == b, "%s: a second handle", what);
    check_type(a, MPI_COMBINER_F90_INTEGER, U, ints[k].r, ints[k].bytes, what);
  }

  /* In communication and reductions. */
  MPI_Datatype r8, i4, c8;
  MPI_Type_create_f90_real(15, U, &r8);
  MPI_Type_create_f90_integer(9, &i4);
  MPI_Type_create_f90_complex(6, U, &c8);
  double x[2] = {rank + 0.5, 1.0}, y[2] = {0, 0};
  CHECK(MPI_Allreduce(x, y, 2, r8, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
        y[0] == size * (size - 1) / 2.0 + size * 0.5 && y[1] == size, "allreduce r8: %g %g", y[0], y[1]);
  int a = rank + 1, b = 0;
  CHECK(MPI_Allreduce(&a, &b, 1, i4, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS && b == size, "allreduce i4 max");
  float _Complex z = 1.0f + 1.0if, w = 2.0f;
  CHECK(MPI_Reduce_local(&z, &w, 1, c8, MPI_PROD) == MPI_SUCCESS && w == 2.0f + 2.0if, "reduce_local c8");
  double back[2] = {0, 0};
  MPI_Sendrecv(x, 2, r8, (rank + 1) % size, 3, back, 2, MPI_DOUBLE, (rank + size - 1) % size, 3,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(back[0] == (rank + size - 1) % size + 0.5, "sendrecv r8 against MPI_DOUBLE");
  MPI_Datatype dup;
  CHECK(MPI_Type_dup(r8, &dup) == MPI_SUCCESS && MPI_Type_free(&dup) == MPI_SUCCESS, "dup of an f90 type");
  MPI_Datatype keep = r8;
  CHECK(error_class(MPI_Type_free(&keep)) == MPI_ERR_TYPE && keep == r8, "an f90 type cannot be freed");

  /* MPI_Type_match_size. */
  const struct { int cls, size; MPI_Datatype want; } matches[] = {
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4}, {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
      {MPI_TYPECLASS_REAL, 16, MPI_REAL16}, {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
      {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2}, {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
      {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8}, {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8}, {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
      {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32}};
  for (size_t k = 0; k < sizeof matches / sizeof matches[0]; ++k) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    CHECK(MPI_Type_match_size(matches[k].cls, matches[k].size, &t) == MPI_SUCCESS && t == matches[k].want,
          "match_size(%d, %d)", matches[k].cls, matches[k].size);
  }

  /* Bad input. */
  MPI_Datatype t;
  CHECK(error_class(MPI_Type_create_f90_real(34, U, &t)) == MPI_ERR_ARG, "precision 34");
  CHECK(error_class(MPI_Type_create_f90_real(U, 5000, &t)) == MPI_ERR_ARG, "range 5000");
  CHECK(error_class(MPI_Type_create_f90_real(U, U, &t)) == MPI_ERR_ARG, "both undefined");
  CHECK(error_class(MPI_Type_create_f90_complex(40, 10, &t)) == MPI_ERR_ARG, "complex precision 40");
  CHECK(error_class(MPI_Type_create_f90_integer(39, &t)) == MPI_ERR_ARG, "integer range 39");
  CHECK(error_class(MPI_Type_create_f90_integer(9, NULL)) == MPI_ERR_ARG, "NULL newtype");
  CHECK(error_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t)) == MPI_ERR_ARG, "real of 2 bytes");
  CHECK(error_class(MPI_Type_match_size(7, 4, &t)) == MPI_ERR_ARG, "typeclass 7");

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("f90_types: OK\n");
  MPI_Finalize();
  return total != 0;
}
