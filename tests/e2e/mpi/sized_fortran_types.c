/* The optional sized Fortran types as C handles (mpi.h), as MPICH has them: each has its MPI
 * name and gfortran's size for that kind; REAL2 and COMPLEX4 (no such gfortran kind) are
 * MPI_DATATYPE_NULL. They travel in point-to-point and collectives, and the integer, real
 * and logical ones reduce like the C types of their size. Also the C++ types from C. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static const struct { MPI_Datatype t; const char *name; int size; } kTypes[] = {
  {MPI_INTEGER1, "MPI_INTEGER1", 1}, {MPI_INTEGER2, "MPI_INTEGER2", 2},
  {MPI_INTEGER4, "MPI_INTEGER4", 4}, {MPI_INTEGER8, "MPI_INTEGER8", 8},
  {MPI_INTEGER16, "MPI_INTEGER16", 16}, {MPI_REAL4, "MPI_REAL4", 4},
  {MPI_REAL8, "MPI_REAL8", 8}, {MPI_REAL16, "MPI_REAL16", 16},
  {MPI_COMPLEX8, "MPI_COMPLEX8", 8}, {MPI_COMPLEX16, "MPI_COMPLEX16", 16},
  {MPI_COMPLEX32, "MPI_COMPLEX32", 32}, {MPI_LOGICAL1, "MPI_LOGICAL1", 1},
  {MPI_LOGICAL2, "MPI_LOGICAL2", 2}, {MPI_LOGICAL4, "MPI_LOGICAL4", 4},
  {MPI_LOGICAL8, "MPI_LOGICAL8", 8}, {MPI_LOGICAL16, "MPI_LOGICAL16", 16},
  {MPI_CXX_BOOL, "MPI_CXX_BOOL", 1}, {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8},
  {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16},
  {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", 32},
};

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(MPI_REAL2 == MPI_DATATYPE_NULL && MPI_COMPLEX4 == MPI_DATATYPE_NULL, "REAL2/COMPLEX4");
  unsigned char out[4 * 32], in[4 * 32];
  for (size_t k = 0; k < sizeof kTypes / sizeof kTypes[0]; k++) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0, sz = 0;
    MPI_Aint lb = -1, extent = 0;
    CHECK(kTypes[k].t != MPI_DATATYPE_NULL, "%s is MPI_DATATYPE_NULL", kTypes[k].name);
    MPI_Type_get_name(kTypes[k].t, name, &len);
    CHECK(strcmp(name, kTypes[k].name) == 0, "name of %s: %s", kTypes[k].name, name);
    MPI_Type_size(kTypes[k].t, &sz);
    MPI_Type_get_extent(kTypes[k].t, &lb, &extent);
    CHECK(sz == kTypes[k].size && lb == 0 && extent == sz, "%s: size %d extent %ld",
          kTypes[k].name, sz, (long)extent);
    /* Four elements around the ring, and a broadcast from the last rank. */
    for (int i = 0; i < 4 * sz; i++) out[i] = (unsigned char)(rank * 31 + i + k);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    int count = -1;
    MPI_Sendrecv(out, 4, kTypes[k].t, right, 5, in, 4, kTypes[k].t, left, 5, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, kTypes[k].t, &count);
    int ok = count == 4;
    for (int i = 0; i < 4 * sz; i++) ok = ok && in[i] == (unsigned char)(left * 31 + i + k);
    CHECK(ok, "%s through Sendrecv (count %d)", kTypes[k].name, count);
    if (rank == size - 1) memcpy(in, out, (size_t)(4 * sz));
    MPI_Bcast(in, 4, kTypes[k].t, size - 1, MPI_COMM_WORLD);
    ok = 1;
    for (int i = 0; i < 4 * sz; i++) ok = ok && in[i] == (unsigned char)((size - 1) * 31 + i + k);
    CHECK(ok, "%s through Bcast", kTypes[k].name);
  }
  /* Reductions, each against the C type of the same size. */
  int8_t i1 = (int8_t)(rank + 1), s1 = 0;
  int16_t i2 = (int16_t)(rank + 1), s2 = 0;
  int32_t i4 = rank + 1, s4 = 0;
  int64_t i8 = ((int64_t)1 << 40) + rank, s8 = 0;
  float r4 = 0.5f * (float)(rank + 1), m4 = 0;
  double r8 = 0.25 * (rank + 1), p8 = 0;
  int32_t l4 = rank != 0, land = -1, lor = -1;
  MPI_Allreduce(&i1, &s1, 1, MPI_INTEGER1, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&i2, &s2, 1, MPI_INTEGER2, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&i4, &s4, 1, MPI_INTEGER4, MPI_PROD, MPI_COMM_WORLD);
  MPI_Allreduce(&i8, &s8, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&r4, &m4, 1, MPI_REAL4, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&r8, &p8, 1, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&l4, &land, 1, MPI_LOGICAL4, MPI_LAND, MPI_COMM_WORLD);
  MPI_Allreduce(&l4, &lor, 1, MPI_LOGICAL4, MPI_LOR, MPI_COMM_WORLD);
  int fact = 1;
  for (int r = 1; r <= size; r++) fact *= r;
  CHECK(s1 == size * (size + 1) / 2, "INTEGER1 sum %d", s1);
  CHECK(s2 == size, "INTEGER2 max %d", s2);
  CHECK(s4 == fact, "INTEGER4 prod %d", s4);
  CHECK(s8 == ((int64_t)size << 40) + size * (size - 1) / 2, "INTEGER8 sum %lld", (long long)s8);
  CHECK(m4 == 0.5f, "REAL4 min %g", m4);
  CHECK(p8 == 0.25 * size * (size + 1) / 2, "REAL8 sum %g", p8);
  CHECK(land == 0 && lor == (size > 1), "LOGICAL4 land %d lor %d", land, lor);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("sized_fortran_types: OK\n");
  MPI_Finalize();
  return all != 0;
}
