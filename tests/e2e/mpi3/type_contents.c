/* MPI_Type_get_envelope / MPI_Type_get_contents for every constructor, and
 * MPI_Type_create_darray against an element-by-element model of the distribution.
 * Any size (the darray checks are local); prints "type_contents: OK" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, failures;

#define EXPECT(cond, ...)                                      \
  do {                                                         \
    if (!(cond)) {                                             \
      fprintf(stderr, "type_contents: rank %d: ", rank);       \
      fprintf(stderr, __VA_ARGS__);                            \
      fprintf(stderr, " (line %d)\n", __LINE__);               \
      ++failures;                                              \
    }                                                          \
  } while (0)

/* Checks t's envelope and contents against what was passed to its constructor. A derived
 * argument (MPI_DATATYPE_NULL in `named`) must come back with 8 data bytes and `extent`. */
static MPI_Aint extent_of_derived = 24;
static void check(MPI_Datatype t, int combiner, int ni, const int* ints, int na,
                  const MPI_Aint* aints, int nd, const MPI_Datatype* named) {
  int gi, ga, gd, gc;
  MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc);
  EXPECT(gc == combiner && gi == ni && ga == na && gd == nd,
         "envelope (%d,%d,%d,%d), expected (%d,%d,%d,%d)", gi, ga, gd, gc, ni, na, nd, combiner);
  if (gi != ni || ga != na || gd != nd) return;
  int* ri = malloc(sizeof(int) * (size_t)(ni + 1));
  MPI_Aint* ra = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
  MPI_Datatype* rd = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
  int rc = MPI_Type_get_contents(t, ni, na, nd, ri, ra, rd);
  EXPECT(rc == MPI_SUCCESS, "get_contents failed");
  for (int i = 0; i < ni; ++i) EXPECT(ri[i] == ints[i], "ints[%d] = %d, expected %d", i, ri[i], ints[i]);
  for (int i = 0; i < na; ++i) EXPECT(ra[i] == aints[i], "aints[%d] = %ld, expected %ld", i, ra[i], aints[i]);
  for (int i = 0; i < nd; ++i) {
    if (named[i] != MPI_DATATYPE_NULL) {
      EXPECT(rd[i] == named[i], "types[%d] is %d, expected predefined %d", i, rd[i], named[i]);
    } else {
      /* A derived argument: a new handle, equivalent (same size and extent), to free. */
      int s;
      MPI_Aint lb, ext;
      EXPECT(MPI_Type_size(rd[i], &s) == MPI_SUCCESS && s == 8, "derived type size %d", s);
      MPI_Type_get_extent(rd[i], &lb, &ext);
      EXPECT(ext == extent_of_derived, "derived type extent %ld, expected %ld", ext,
             extent_of_derived);
      EXPECT(MPI_Type_free(&rd[i]) == MPI_SUCCESS, "freeing the returned type");
    }
  }
  free(ri);
  free(ra);
  free(rd);
}

static void test_contents(void) {
  MPI_Datatype t, vec, dup;
  const MPI_Datatype I = MPI_INT, D = MPI_DOUBLE, N = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(3, MPI_INT, &t);
  check(t, MPI_COMBINER_CONTIGUOUS, 1, (int[]){3}, 0, NULL, 1, &I);
  MPI_Type_free(&t);
  /* 2 ints with stride 3 ints: size 8, extent 16; vec is it resized to extent 24 */
  MPI_Type_vector(2, 1, 3, MPI_INT, &t);
  check(t, MPI_COMBINER_VECTOR, 3, (int[]){2, 1, 3}, 0, NULL, 1, &I);
  MPI_Type_create_resized(t, 0, 24, &vec);
  extent_of_derived = 16; /* the vector: ints 0 and 3 */
  check(vec, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Aint[]){0, 24}, 1, &N);
  extent_of_derived = 24; /* vec, resized */
  MPI_Type_free(&t);
  MPI_Type_create_hvector(4, 2, 40, MPI_DOUBLE, &t);
  check(t, MPI_COMBINER_HVECTOR, 2, (int[]){4, 2}, 1, (MPI_Aint[]){40}, 1, &D);
  MPI_Type_free(&t);
  MPI_Type_indexed(2, (int[]){1, 2}, (int[]){5, 0}, MPI_INT, &t);
  check(t, MPI_COMBINER_INDEXED, 5, (int[]){2, 1, 2, 5, 0}, 0, NULL, 1, &I);
  MPI_Type_free(&t);
  MPI_Type_create_hindexed(2, (int[]){3, 1}, (MPI_Aint[]){16, 0}, MPI_DOUBLE, &t);
  check(t, MPI_COMBINER_HINDEXED, 3, (int[]){2, 3, 1}, 2, (MPI_Aint[]){16, 0}, 1, &D);
  MPI_Type_free(&t);
  MPI_Type_create_indexed_block(3, 2, (int[]){0, 4, 9}, MPI_INT, &t);
  check(t, MPI_COMBINER_INDEXED_BLOCK, 5, (int[]){3, 2, 0, 4, 9}, 0, NULL, 1, &I);
  MPI_Type_free(&t);
  MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){8, 0}, MPI_DOUBLE, &t);
  check(t, MPI_COMBINER_HINDEXED_BLOCK, 2, (int[]){2, 1}, 2, (MPI_Aint[]){8, 0}, 1, &D);
  MPI_Type_free(&t);
  /* A struct whose second member is the derived (resized vector) type, freed before the
   * query: get_contents still hands back an equivalent type. */
  MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_DOUBLE, vec}, &t);
  MPI_Type_dup(vec, &dup);
  MPI_Type_free(&vec);
  check(t, MPI_COMBINER_STRUCT, 3, (int[]){2, 1, 1}, 2, (MPI_Aint[]){0, 8}, 2,
        (MPI_Datatype[]){MPI_DOUBLE, MPI_DATATYPE_NULL});
  check(dup, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &N);
  MPI_Type_free(&t);
  MPI_Type_free(&dup);
  MPI_Type_create_subarray(2, (int[]){4, 6}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C, MPI_INT, &t);
  check(t, MPI_COMBINER_SUBARRAY, 8, (int[]){2, 4, 6, 2, 3, 1, 2, MPI_ORDER_C}, 0, NULL, 1, &I);
  MPI_Type_free(&t);
  /* Named types have no contents; too small arrays are refused. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int ibuf[4], cls = 0;
  MPI_Aint abuf[4];
  MPI_Datatype dbuf[4];
  int rc = MPI_Type_get_contents(MPI_INT, 4, 4, 4, ibuf, abuf, dbuf);
  MPI_Error_class(rc, &cls);
  EXPECT(cls == MPI_ERR_TYPE, "get_contents of MPI_INT gave class %d", cls);
  MPI_Type_contiguous(3, MPI_INT, &t);
  rc = MPI_Type_get_contents(t, 0, 0, 1, ibuf, abuf, dbuf);
  MPI_Error_class(rc, &cls);
  EXPECT(cls == MPI_ERR_ARG, "get_contents with max_integers 0 gave class %d", cls);
  MPI_Type_free(&t);
  int np;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  rc = MPI_Type_create_darray(4, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK},
                              (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){3}, MPI_ORDER_C,
                              MPI_INT, &t);
  MPI_Error_class(rc, &cls);
  EXPECT(cls == MPI_ERR_ARG, "darray with a 3-process grid for size 4 gave class %d", cls);
  rc = MPI_Type_create_darray(2, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK}, (int[]){2},
                              (int[]){2}, MPI_ORDER_C, MPI_INT, &t);
  MPI_Error_class(rc, &cls);
  EXPECT(cls == MPI_ERR_ARG, "darray with blocks too small gave class %d", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The owner (along one dimension) of index i. */
static int owner(int i, int gsize, int distrib, int darg, int psize) {
  if (distrib == MPI_DISTRIBUTE_NONE) return 0;
  int block = darg;
  if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
    block = distrib == MPI_DISTRIBUTE_BLOCK ? (gsize + psize - 1) / psize : 1;
  }
  return (i / block) % psize;
}

/* Packs the darray type of every process of a 2-D or 3-D grid from an array holding each
 * element's index, and compares with the elements the model says it owns, in memory order. */
static void test_darray(int ndims, const int* gsizes, const int* distribs, const int* dargs,
                        const int* psizes, int order) {
  int nprocs = 1, total = 1;
  for (int d = 0; d < ndims; ++d) {
    nprocs *= psizes[d];
    total *= gsizes[d];
  }
  int* array = malloc(sizeof(int) * (size_t)total);
  int* packed = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) array[i] = i;
  int covered = 0;
  for (int p = 0; p < nprocs; ++p) {
    MPI_Datatype t;
    MPI_Type_create_darray(nprocs, p, ndims, gsizes, distribs, dargs, psizes, order, MPI_INT, &t);
    MPI_Type_commit(&t);
    int size, pos = 0;
    MPI_Aint lb, extent;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    EXPECT(lb == 0 && extent == (MPI_Aint)total * 4, "darray bounds %ld %ld", lb, extent);
    MPI_Pack(array, 1, t, packed, total * 4, &pos, MPI_COMM_SELF);
    int coords[3], r = p, n = 0;
    for (int d = ndims - 1; d >= 0; --d) {
      coords[d] = r % psizes[d];
      r /= psizes[d];
    }
    for (int i = 0; i < total; ++i) { /* memory order: element i's multi-index */
      int rest = i, mine = 1;
      for (int k = 0; k < ndims; ++k) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        int idx = rest % gsizes[d];
        rest /= gsizes[d];
        if (owner(idx, gsizes[d], distribs[d], dargs[d], psizes[d]) != coords[d]) mine = 0;
      }
      if (!mine) continue;
      EXPECT(n < size / 4 && packed[n] == i, "process %d element %d: got %d, expected %d", p, n,
             n < size / 4 ? packed[n] : -1, i);
      ++n;
    }
    EXPECT(n * 4 == size, "process %d: type holds %d bytes, model %d elements", p, size, n);
    covered += n;
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    EXPECT(comb == MPI_COMBINER_DARRAY && ni == 4 * ndims + 4 && na == 0 && nd == 1,
           "darray envelope (%d,%d,%d,%d)", ni, na, nd, comb);
    MPI_Type_free(&t);
  }
  EXPECT(covered == total, "the processes' parts cover %d of %d elements", covered, total);
  free(array);
  free(packed);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  test_contents();
  const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE;
  const int DF = MPI_DISTRIBUTE_DFLT_DARG;
  test_darray(2, (int[]){7, 5}, (int[]){B, C}, (int[]){DF, DF}, (int[]){2, 3}, MPI_ORDER_C);
  test_darray(2, (int[]){7, 5}, (int[]){B, C}, (int[]){DF, 2}, (int[]){2, 3}, MPI_ORDER_FORTRAN);
  test_darray(3, (int[]){4, 6, 5}, (int[]){C, N, B}, (int[]){3, DF, 3}, (int[]){2, 1, 2}, MPI_ORDER_C);
  test_darray(2, (int[]){3, 10}, (int[]){B, C}, (int[]){DF, 3}, (int[]){4, 1}, MPI_ORDER_FORTRAN);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all == 0 ? "type_contents: OK\n" : "type_contents: %d FAILURES\n", all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
