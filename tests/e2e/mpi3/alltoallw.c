/* MPI_Alltoallw: a different datatype and byte displacement per peer on both sides (rank s
 * sends s + d + 1 ints to d: contiguous to even d, every other int of a strided buffer to odd
 * d; the receiver takes them as MPI_INT count n from even s and as one contiguous(n) type
 * from odd s), MPI_IN_PLACE, and bad arguments. Any size; "alltoallw: OK" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;
#define EXPECT(cond, ...)                                  \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "alltoallw: rank %d: ", rank);       \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      ++failures;                                          \
    }                                                      \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype every_other; /* one int, extent two ints */
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
  MPI_Type_commit(&every_other);

  int *scounts = malloc(sizeof(int) * size), *sdispls = malloc(sizeof(int) * size);
  int *rcounts = malloc(sizeof(int) * size), *rdispls = malloc(sizeof(int) * size);
  MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * size);
  MPI_Datatype *rtypes = malloc(sizeof(MPI_Datatype) * size);
  int sbytes = 0, rbytes = 0;
  for (int d = 0; d < size; ++d) {
    int n = rank + d + 1;
    scounts[d] = n;
    stypes[d] = d % 2 == 0 ? MPI_INT : every_other;
    sdispls[d] = sbytes;
    sbytes += (d % 2 == 0 ? n : 2 * n) * (int)sizeof(int) + 12; /* gaps between blocks */
  }
  for (int s = 0; s < size; ++s) {
    int n = s + rank + 1;
    if (s % 2 == 0) {
      rcounts[s] = n;
      rtypes[s] = MPI_INT;
    } else {
      rcounts[s] = 1;
      MPI_Type_contiguous(n, MPI_INT, &rtypes[s]);
      MPI_Type_commit(&rtypes[s]);
    }
    rdispls[s] = rbytes;
    rbytes += n * (int)sizeof(int) + 4;
  }
  char* sbuf = calloc(1, (size_t)sbytes);
  char* rbuf = calloc(1, (size_t)rbytes);
  for (int d = 0; d < size; ++d) {
    int* p = (int*)(sbuf + sdispls[d]);
    int step = d % 2 == 0 ? 1 : 2;
    for (int j = 0; j < scounts[d]; ++j) p[j * step] = rank * 1000 + d * 100 + j;
  }
  int rc = MPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                         MPI_COMM_WORLD);
  EXPECT(rc == MPI_SUCCESS, "MPI_Alltoallw failed");
  for (int s = 0; s < size; ++s) {
    const int* p = (const int*)(rbuf + rdispls[s]);
    for (int j = 0; j < s + rank + 1; ++j) {
      EXPECT(p[j] == s * 1000 + rank * 100 + j, "from %d element %d: %d", s, j, p[j]);
    }
  }

  /* In place: block s of ints at byte 4 * s * size, size ints each; afterwards block s holds
   * what s had in block rank. */
  int* inplace = malloc(sizeof(int) * size * size);
  for (int d = 0; d < size; ++d) {
    scounts[d] = size;
    sdispls[d] = d * size * (int)sizeof(int);
    stypes[d] = MPI_INT;
    for (int j = 0; j < size; ++j) inplace[d * size + j] = rank * 1000 + d * 10 + j;
  }
  rc = MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, inplace, scounts, sdispls, stypes,
                     MPI_COMM_WORLD);
  EXPECT(rc == MPI_SUCCESS, "in-place MPI_Alltoallw failed");
  for (int s = 0; s < size; ++s) {
    for (int j = 0; j < size; ++j) {
      EXPECT(inplace[s * size + j] == s * 1000 + rank * 10 + j, "in place from %d: %d", s,
             inplace[s * size + j]);
    }
  }

  /* Bad arguments: every rank makes the same mistake, so every rank gets the class. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls = 0;
  scounts[0] = -1;
  rc = MPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  EXPECT(cls == MPI_ERR_COUNT, "negative count gave class %d", cls);
  scounts[0] = 1;
  stypes[0] = MPI_DATATYPE_NULL;
  rc = MPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  EXPECT(cls == MPI_ERR_TYPE, "MPI_DATATYPE_NULL gave class %d", cls);
  rc = MPI_Alltoallw(sbuf, scounts, sdispls, NULL, rbuf, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  EXPECT(cls == MPI_ERR_ARG, "NULL sendtypes gave class %d", cls);

  for (int s = 1; s < size; s += 2) MPI_Type_free(&rtypes[s]);
  MPI_Type_free(&every_other);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all == 0 ? "alltoallw: OK\n" : "alltoallw: %d FAILURES\n", all);
  free(scounts); free(sdispls); free(rcounts); free(rdispls); free(stypes); free(rtypes);
  free(sbuf); free(rbuf); free(inplace);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
