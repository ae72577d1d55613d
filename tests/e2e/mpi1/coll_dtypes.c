/* Collectives with derived datatypes: every MPI-1 collective with vector, indexed, struct (with
 * gaps), resized and nested types on the send and/or the receive side, send and receive types
 * that differ but carry the same signature (12 MPI_INT against 3 vectors of 4 ints, ...),
 * MPI_IN_PLACE, v-variants with displacements in extents, predefined reductions on derived
 * types (one basic type; value-index pairs for MAXLOC/MINLOC), user operations that receive the
 * derived handle, and the MPI_ERR_OP for a predefined operation on a type mixing basic types.
 *
 * Every receive buffer starts filled with a sentinel byte. After each call it must equal an
 * image built independently: the expected value of every transferred int at the place the
 * datatype puts it, and the sentinel (or the prior content) everywhere else, so a write into a
 * gap, a slot of the wrong rank or past the end is caught as well as a wrong value. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define W MPI_COMM_WORLD
#define SENT 0xA5
#define K 12 /* ints per block when types differ: every type's ints per element divides it */
#define MAXN 8

typedef struct {
  const char *name;
  MPI_Datatype type;
  int n;              /* ints per element */
  MPI_Aint extent;
  MPI_Aint off[MAXN]; /* byte offset of each int from the element's origin, typemap order */
} tdesc;

enum { T_INT, T_VEC, T_VEC2, T_IDX, T_STRUCT, T_RES, T_NEST, NTYPES };
static tdesc T[NTYPES];
static int rank, size;

/* ---- Buffers and expected images ---------------------------------------------------------- */

typedef struct {
  unsigned char *got, *want;
  size_t len;
} buf;

static buf balloc(const tdesc *t, long elems) {
  buf b;
  b.len = (size_t)(elems > 0 ? elems : 1) * (size_t)t->extent + 64;
  b.got = malloc(b.len);
  b.want = malloc(b.len);
  memset(b.got, SENT, b.len);
  memset(b.want, SENT, b.len);
  return b;
}

static void bfree(buf *b) {
  free(b->got);
  free(b->want);
}

/* Int g of a run of elements starting at element `first` (g counts ints in typemap order). */
static void put(unsigned char *base, const tdesc *t, long first, long g, int v) {
  long e = first + g / t->n;
  memcpy(base + e * t->extent + t->off[g % t->n], &v, sizeof v);
}

/* The same value in the buffer and in its image (input data, or data already in place). */
static void put_both(buf *b, const tdesc *t, long first, long g, int v) {
  put(b->got, t, first, g, v);
  put(b->want, t, first, g, v);
}

static void expect(buf *b, const tdesc *t, long first, long g, int v) {
  put(b->want, t, first, g, v);
}

/* The buffer must equal its image byte for byte. */
static void compare(buf *b, const char *what, const char *ts, const char *tr) {
  for (size_t i = 0; i < b->len; ++i) {
    if (b->got[i] != b->want[i]) {
      fprintf(stderr, "rank %d: FAIL: %s (%s -> %s): byte %zu is 0x%02x, expected 0x%02x%s\n",
              rank, what, ts, tr, i, b->got[i], b->want[i],
              b->want[i] == SENT ? " (a gap or a slot nobody should write)" : "");
      check_failures++;
      return;
    }
  }
}

static int val(int r, long g) { return (r + 1) * 100000 + (int)g * 7 + 1; }
static int val2(int s, int d, long g) { return (s + 1) * 1000000 + (d + 1) * 10000 + (int)g; }

#define OK(call) CHECK_EQ((call), MPI_SUCCESS)

/* ---- Types -------------------------------------------------------------------------------- */

static void describe(int id, const char *name, MPI_Datatype t, int n, const MPI_Aint *off) {
  if (t != MPI_INT) MPI_Type_commit(&t);
  T[id].name = name;
  T[id].type = t;
  T[id].n = n;
  for (int j = 0; j < n; ++j) T[id].off[j] = off[j];
  MPI_Aint lb, ext;
  MPI_Type_get_extent(t, &lb, &ext);
  T[id].extent = ext;
  int sz;
  MPI_Type_size(t, &sz);
  CHECK_EQ(sz, n * (int)sizeof(int));
}

static void make_types(void) {
  MPI_Datatype t, s;
  describe(T_INT, "MPI_INT", MPI_INT, 1, (MPI_Aint[]){0});
  /* 4 ints 6 apart: 12 ints are 3 of them */
  MPI_Type_vector(4, 1, 6, MPI_INT, &t);
  describe(T_VEC, "vector(4,1,6)", t, 4, (MPI_Aint[]){0, 24, 48, 72});
  MPI_Type_vector(2, 2, 3, MPI_INT, &t);
  describe(T_VEC2, "vector(2,2,3)", t, 4, (MPI_Aint[]){0, 4, 12, 16});
  /* Typemap order differs from address order, and lb = 4. */
  MPI_Type_indexed(2, (int[]){1, 2}, (int[]){5, 1}, MPI_INT, &t);
  describe(T_IDX, "indexed{5;1-2}", t, 3, (MPI_Aint[]){20, 4, 8});
  /* struct { int a; gap 4; int b, c; gap 8 } */
  MPI_Type_create_struct(2, (int[]){1, 2}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_INT, MPI_INT},
                         &s);
  MPI_Type_create_resized(s, 0, 24, &t);
  MPI_Type_free(&s);
  describe(T_STRUCT, "struct+gaps", t, 3, (MPI_Aint[]){0, 8, 12});
  MPI_Type_create_resized(MPI_INT, -4, 16, &t);
  describe(T_RES, "resized(int,-4,16)", t, 1, (MPI_Aint[]){0});
  MPI_Type_vector(2, 1, 2, T[T_STRUCT].type, &t);
  describe(T_NEST, "vector(2,1,2,struct)", t, 6, (MPI_Aint[]){0, 8, 12, 48, 56, 60});
  CHECK_EQ(T[T_VEC].extent, 76);
  CHECK_EQ(T[T_IDX].extent, 20);
  CHECK_EQ(T[T_RES].extent, 16);
  CHECK_EQ(T[T_NEST].extent, 72);
}

/* ---- Data movement ------------------------------------------------------------------------ */

/* Ints rank r contributes to a v-variant: 0, 1 or 2 blocks of B ints. */
static long vints(int r, long B) { return B * ((r + 1) % 3); }
static long vints2(int s, int d, long B) { return B * ((s + d) % 3); }

/* Displacements (in elements) that place the blocks in reverse rank order with `hole` empty
 * elements after each; returns the elements the buffer needs. */
static long reverse_displs(const int *counts, int hole, int *displs) {
  long pos = 0;
  for (int r = size - 1; r >= 0; --r) {
    displs[r] = (int)pos;
    pos += counts[r] + hole;
  }
  return pos;
}

static void test_bcast(const tdesc *ts, const tdesc *tr, int root, long B) {
  const tdesc *t = rank % 2 == 0 ? ts : tr; /* the layouts differ between ranks */
  long ints = 2 * B;
  buf b = balloc(t, ints / t->n);
  for (long g = 0; g < ints; ++g) {
    if (rank == root) put_both(&b, t, 0, g, val(root, g));
    else expect(&b, t, 0, g, val(root, g));
  }
  OK(MPI_Bcast(b.got, (int)(ints / t->n), t->type, root, W));
  compare(&b, "MPI_Bcast", ts->name, tr->name);
  bfree(&b);
}

static void test_gather(const tdesc *ts, const tdesc *tr, int root, int in_place, long B) {
  const int sc = (int)(B / ts->n), rc = (int)(B / tr->n);
  buf s = balloc(ts, sc), r = balloc(tr, (long)rc * size);
  for (long g = 0; g < B; ++g) put_both(&s, ts, 0, g, val(rank, g));
  const int ip = in_place && rank == root;
  if (rank == root) {
    for (int q = 0; q < size; ++q) {
      for (long g = 0; g < B; ++g) {
        if (ip && q == rank) put_both(&r, tr, (long)q * rc, g, val(q, g));
        else expect(&r, tr, (long)q * rc, g, val(q, g));
      }
    }
  }
  OK(MPI_Gather(ip ? MPI_IN_PLACE : s.got, sc, ts->type, r.got, rc, tr->type, root, W));
  compare(&r, in_place ? "MPI_Gather in place" : "MPI_Gather", ts->name, tr->name);
  compare(&s, "MPI_Gather sendbuf", ts->name, tr->name);
  bfree(&s);
  bfree(&r);
}

static void test_gatherv(const tdesc *ts, const tdesc *tr, int root, int in_place, long B) {
  int rcounts[64], displs[64];
  for (int q = 0; q < size; ++q) rcounts[q] = (int)(vints(q, B) / tr->n);
  long elems = reverse_displs(rcounts, 1, displs);
  const int sc = (int)(vints(rank, B) / ts->n);
  buf s = balloc(ts, sc), r = balloc(tr, elems);
  for (long g = 0; g < vints(rank, B); ++g) put_both(&s, ts, 0, g, val(rank, g));
  const int ip = in_place && rank == root;
  if (rank == root) {
    for (int q = 0; q < size; ++q) {
      for (long g = 0; g < vints(q, B); ++g) {
        if (ip && q == rank) put_both(&r, tr, displs[q], g, val(q, g));
        else expect(&r, tr, displs[q], g, val(q, g));
      }
    }
  }
  OK(MPI_Gatherv(ip ? MPI_IN_PLACE : s.got, sc, ts->type, r.got, rcounts, displs, tr->type, root,
                 W));
  compare(&r, in_place ? "MPI_Gatherv in place" : "MPI_Gatherv", ts->name, tr->name);
  bfree(&s);
  bfree(&r);
}

static void test_scatter(const tdesc *ts, const tdesc *tr, int root, int in_place, long B) {
  const int sc = (int)(B / ts->n), rc = (int)(B / tr->n);
  buf s = balloc(ts, (long)sc * size), r = balloc(tr, rc);
  const int ip = in_place && rank == root;
  if (rank == root) {
    for (int q = 0; q < size; ++q) {
      for (long g = 0; g < B; ++g) put_both(&s, ts, (long)q * sc, g, val(q, g));
    }
  }
  if (!ip) {
    for (long g = 0; g < B; ++g) expect(&r, tr, 0, g, val(rank, g));
  }
  OK(MPI_Scatter(s.got, sc, ts->type, ip ? MPI_IN_PLACE : r.got, rc, tr->type, root, W));
  compare(&r, in_place ? "MPI_Scatter in place" : "MPI_Scatter", ts->name, tr->name);
  compare(&s, "MPI_Scatter sendbuf", ts->name, tr->name);
  bfree(&s);
  bfree(&r);
}

static void test_scatterv(const tdesc *ts, const tdesc *tr, int root, int in_place, long B) {
  int scounts[64], displs[64];
  for (int q = 0; q < size; ++q) scounts[q] = (int)(vints(q, B) / ts->n);
  long elems = reverse_displs(scounts, 2, displs);
  const int rc = (int)(vints(rank, B) / tr->n);
  buf s = balloc(ts, elems), r = balloc(tr, rc);
  const int ip = in_place && rank == root;
  if (rank == root) {
    for (int q = 0; q < size; ++q) {
      for (long g = 0; g < vints(q, B); ++g) put_both(&s, ts, displs[q], g, val(q, g));
    }
  }
  if (!ip) {
    for (long g = 0; g < vints(rank, B); ++g) expect(&r, tr, 0, g, val(rank, g));
  }
  OK(MPI_Scatterv(s.got, scounts, displs, ts->type, ip ? MPI_IN_PLACE : r.got, rc, tr->type,
                  root, W));
  compare(&r, in_place ? "MPI_Scatterv in place" : "MPI_Scatterv", ts->name, tr->name);
  bfree(&s);
  bfree(&r);
}

static void test_allgather(const tdesc *ts, const tdesc *tr, int in_place, long B) {
  const int sc = (int)(B / ts->n), rc = (int)(B / tr->n);
  buf s = balloc(ts, sc), r = balloc(tr, (long)rc * size);
  for (long g = 0; g < B; ++g) put_both(&s, ts, 0, g, val(rank, g));
  for (int q = 0; q < size; ++q) {
    for (long g = 0; g < B; ++g) {
      if (in_place && q == rank) put_both(&r, tr, (long)q * rc, g, val(q, g));
      else expect(&r, tr, (long)q * rc, g, val(q, g));
    }
  }
  OK(MPI_Allgather(in_place ? MPI_IN_PLACE : s.got, sc, ts->type, r.got, rc, tr->type, W));
  compare(&r, in_place ? "MPI_Allgather in place" : "MPI_Allgather", ts->name, tr->name);
  bfree(&s);
  bfree(&r);
}

static void test_allgatherv(const tdesc *ts, const tdesc *tr, int in_place, long B) {
  int rcounts[64], displs[64];
  for (int q = 0; q < size; ++q) rcounts[q] = (int)(vints(q, B) / tr->n);
  long elems = reverse_displs(rcounts, 1, displs);
  const int sc = (int)(vints(rank, B) / ts->n);
  buf s = balloc(ts, sc), r = balloc(tr, elems);
  for (long g = 0; g < vints(rank, B); ++g) put_both(&s, ts, 0, g, val(rank, g));
  for (int q = 0; q < size; ++q) {
    for (long g = 0; g < vints(q, B); ++g) {
      if (in_place && q == rank) put_both(&r, tr, displs[q], g, val(q, g));
      else expect(&r, tr, displs[q], g, val(q, g));
    }
  }
  OK(MPI_Allgatherv(in_place ? MPI_IN_PLACE : s.got, sc, ts->type, r.got, rcounts, displs,
                    tr->type, W));
  compare(&r, in_place ? "MPI_Allgatherv in place" : "MPI_Allgatherv", ts->name, tr->name);
  bfree(&s);
  bfree(&r);
}

/* In place, the receive type describes both directions. */
static void test_alltoall(const tdesc *ts, const tdesc *tr, int in_place, long B) {
  const int sc = (int)(B / ts->n), rc = (int)(B / tr->n);
  buf s = balloc(ts, (long)sc * size), r = balloc(tr, (long)rc * size);
  for (int d = 0; d < size; ++d) {
    for (long g = 0; g < B; ++g) {
      if (in_place) put_both(&r, tr, (long)d * rc, g, val2(rank, d, g));
      else put_both(&s, ts, (long)d * sc, g, val2(rank, d, g));
    }
  }
  for (int q = 0; q < size; ++q) {
    for (long g = 0; g < B; ++g) expect(&r, tr, (long)q * rc, g, val2(q, rank, g));
  }
  OK(MPI_Alltoall(in_place ? MPI_IN_PLACE : s.got, sc, ts->type, r.got, rc, tr->type, W));
  compare(&r, in_place ? "MPI_Alltoall in place" : "MPI_Alltoall", ts->name, tr->name);
  compare(&s, "MPI_Alltoall sendbuf", ts->name, tr->name);
  bfree(&s);
  bfree(&r);
}

static void test_alltoallv(const tdesc *ts, const tdesc *tr, int in_place, long B) {
  int scounts[64], sdispls[64], rcounts[64], rdispls[64];
  for (int q = 0; q < size; ++q) {
    scounts[q] = (int)(vints2(rank, q, B) / ts->n);
    rcounts[q] = (int)(vints2(q, rank, B) / tr->n);
  }
  long selems = reverse_displs(scounts, 1, sdispls);
  long relems = reverse_displs(rcounts, 2, rdispls);
  buf s = balloc(ts, selems), r = balloc(tr, relems);
  for (int d = 0; d < size; ++d) {
    for (long g = 0; g < vints2(rank, d, B); ++g) {
      if (in_place) put_both(&r, tr, rdispls[d], g, val2(rank, d, g));
      else put_both(&s, ts, sdispls[d], g, val2(rank, d, g));
    }
  }
  for (int q = 0; q < size; ++q) {
    for (long g = 0; g < vints2(q, rank, B); ++g) expect(&r, tr, rdispls[q], g, val2(q, rank, g));
  }
  OK(MPI_Alltoallv(in_place ? MPI_IN_PLACE : s.got, scounts, sdispls, ts->type, r.got, rcounts,
                   rdispls, tr->type, W));
  compare(&r, in_place ? "MPI_Alltoallv in place" : "MPI_Alltoallv", ts->name, tr->name);
  bfree(&s);
  bfree(&r);
}

static void data_movement(int a, int b, long B, int root) {
  const tdesc *ts = &T[a], *tr = &T[b];
  test_bcast(ts, tr, root, B);
  for (int ip = 0; ip < 2; ++ip) {
    test_gather(ts, tr, root, ip, B);
    test_gatherv(ts, tr, root, ip, B);
    test_scatter(ts, tr, root, ip, B);
    test_scatterv(ts, tr, root, ip, B);
    test_allgather(ts, tr, ip, B);
    test_allgatherv(ts, tr, ip, B);
    test_alltoall(ip ? tr : ts, tr, ip, B);
    test_alltoallv(ip ? tr : ts, tr, ip, B);
  }
}

/* MPI_BOTTOM with a type of absolute addresses. */
static void test_bottom(void) {
  int a[3] = {0, 0, 0}, b[5];
  memset(b, SENT, sizeof b);
  MPI_Aint d[2];
  MPI_Get_address(&a[1], &d[0]);
  MPI_Get_address(&b[3], &d[1]);
  MPI_Datatype t;
  MPI_Type_create_struct(2, (int[]){1, 1}, d, (MPI_Datatype[]){MPI_INT, MPI_INT}, &t);
  MPI_Type_commit(&t);
  if (rank == 0) {
    a[1] = 4242;
    b[3] = 4343;
  }
  OK(MPI_Bcast(MPI_BOTTOM, 1, t, 0, W));
  CHECK_EQ(a[0], 0);
  CHECK_EQ(a[1], 4242);
  CHECK_EQ(a[2], 0);
  CHECK_EQ(b[3], 4343);
  unsigned char s[sizeof(int)];
  memset(s, SENT, sizeof s);
  CHECK(memcmp(&b[2], s, sizeof s) == 0 && memcmp(&b[4], s, sizeof s) == 0);
  MPI_Type_free(&t);
}

/* ---- Reductions --------------------------------------------------------------------------- */

static int user_calls, user_bad;
static MPI_Datatype user_expect;

static const tdesc *find(MPI_Datatype t) {
  for (int i = 0; i < NTYPES; ++i) {
    if (T[i].type == t) return &T[i];
  }
  return NULL;
}

/* Walks the typemap of the handle it is given, as an MPI user function must. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  const tdesc *t = find(*dt);
  user_calls++;
  if (t == NULL || *dt != user_expect || *len < 0) {
    user_bad++;
    return;
  }
  for (long g = 0; g < (long)*len * t->n; ++g) {
    long off = (g / t->n) * t->extent + t->off[g % t->n];
    int x, y;
    memcpy(&x, (char *)in + off, sizeof x);
    memcpy(&y, (char *)inout + off, sizeof y);
    y += x;
    memcpy((char *)inout + off, &y, sizeof y);
  }
}

/* a op b = a: associative, not commutative; any reordering shows as another rank's data. */
static void user_first(void *in, void *inout, int *len, MPI_Datatype *dt) {
  const tdesc *t = find(*dt);
  user_calls++;
  if (t == NULL || *dt != user_expect) {
    user_bad++;
    return;
  }
  for (long g = 0; g < (long)*len * t->n; ++g) {
    long off = (g / t->n) * t->extent + t->off[g % t->n];
    memcpy((char *)inout + off, (char *)in + off, sizeof(int));
  }
}

static int sum_upto(int last, long g) {
  int s = 0;
  for (int r = 0; r <= last; ++r) s += val(r, g);
  return s;
}

typedef enum { SUM, FIRST } rkind;

/* Expected int g of the reduction over ranks 0..last. */
static int reduced(rkind k, int last, long g) { return k == SUM ? sum_upto(last, g) : val(0, g); }

static void test_reductions(const tdesc *t, MPI_Op op, rkind k, int root, long count) {
  const char *on = op == MPI_SUM ? "MPI_SUM" : k == SUM ? "user sum" : "user first";
  const long ints = count * t->n;
  user_expect = t->type;
  for (int ip = 0; ip < 2; ++ip) {
    /* Reduce */
    buf s = balloc(t, count), r = balloc(t, count);
    const int rip = ip && rank == root;
    for (long g = 0; g < ints; ++g) {
      if (rip) put_both(&r, t, 0, g, val(rank, g));
      else put_both(&s, t, 0, g, val(rank, g));
    }
    if (rank == root) {
      for (long g = 0; g < ints; ++g) expect(&r, t, 0, g, reduced(k, size - 1, g));
    }
    OK(MPI_Reduce(rip ? MPI_IN_PLACE : s.got, r.got, (int)count, t->type, op, root, W));
    compare(&r, ip ? "MPI_Reduce in place" : "MPI_Reduce", t->name, on);
    compare(&s, "MPI_Reduce sendbuf", t->name, on);
    bfree(&s);
    bfree(&r);

    /* Allreduce and Scan */
    for (int scan = 0; scan < 2; ++scan) {
      s = balloc(t, count);
      r = balloc(t, count);
      for (long g = 0; g < ints; ++g) {
        if (ip) put_both(&r, t, 0, g, val(rank, g));
        else put_both(&s, t, 0, g, val(rank, g));
        expect(&r, t, 0, g, reduced(k, scan ? rank : size - 1, g));
      }
      void *in = ip ? MPI_IN_PLACE : s.got;
      if (scan) OK(MPI_Scan(in, r.got, (int)count, t->type, op, W));
      else OK(MPI_Allreduce(in, r.got, (int)count, t->type, op, W));
      compare(&r, scan ? (ip ? "MPI_Scan in place" : "MPI_Scan")
                       : (ip ? "MPI_Allreduce in place" : "MPI_Allreduce"),
              t->name, on);
      bfree(&s);
      bfree(&r);
    }

    /* Reduce_scatter: rank q's block is (q % 3) * count elements. */
    int counts[64];
    long total = 0, first = 0;
    for (int q = 0; q < size; ++q) {
      counts[q] = (int)((q % 3) * count);
      if (q < rank) first += counts[q];
      total += counts[q];
    }
    s = balloc(t, total);
    r = balloc(t, ip ? total : counts[rank]);
    for (long g = 0; g < total * t->n; ++g) {
      if (ip) put_both(&r, t, 0, g, val(rank, g));
      else put_both(&s, t, 0, g, val(rank, g));
    }
    for (long g = 0; g < (long)counts[rank] * t->n; ++g) {
      expect(&r, t, 0, g, reduced(k, size - 1, first * t->n + g));
    }
    OK(MPI_Reduce_scatter(ip ? MPI_IN_PLACE : s.got, r.got, counts, t->type, op, W));
    compare(&r, ip ? "MPI_Reduce_scatter in place" : "MPI_Reduce_scatter", t->name, on);
    bfree(&s);
    bfree(&r);
  }
}

/* A vector of doubles, MPI_SUM and MPI_MAX on its base elements. */
static void test_double_vector(void) {
  enum { N = 300 }; /* 300 elements of 3 doubles: above the allreduce long-message threshold */
  MPI_Datatype v;
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &v); /* doubles 0, 2, 4 of an extent of 5 */
  MPI_Type_commit(&v);
  double *in = malloc(N * 5 * sizeof(double)), *out = malloc(N * 5 * sizeof(double));
  for (int op = 0; op < 2; ++op) {
    for (int i = 0; i < N * 5; ++i) {
      in[i] = (rank + 1) * 0.5 + i;
      out[i] = -7.0;
    }
    OK(MPI_Allreduce(in, out, N, v, op ? MPI_MAX : MPI_SUM, W));
    int bad = 0;
    for (int i = 0; i < N * 5; ++i) {
      double want = -7.0; /* the gaps keep their content */
      if ((i % 5) % 2 == 0) {
        want = op ? size * 0.5 + i : 0.5 * size * (size + 1) / 2 + size * (double)i;
      }
      bad += out[i] != want;
    }
    CHECK_EQ(bad, 0);
  }
  free(in);
  free(out);
  MPI_Type_free(&v);
}

/* MAXLOC/MINLOC on derived types made of value-index pairs, and MPI_ERR_OP on mixed types. */
struct loc {
  double v;
  int pad;
  int idx;
};

static void test_loc(void) {
  enum { N = 40 };
  /* struct {double v; gap 4; int idx}: signature (double, int), pairs of MPI_DOUBLE_INT */
  MPI_Datatype st;
  MPI_Type_create_struct(2, (int[]){1, 1},
                         (MPI_Aint[]){offsetof(struct loc, v), offsetof(struct loc, idx)},
                         (MPI_Datatype[]){MPI_DOUBLE, MPI_INT}, &st);
  MPI_Type_commit(&st);
  struct loc in[N], out[N];
  for (int op = 0; op < 2; ++op) {
    for (int i = 0; i < N; ++i) {
      in[i].v = (double)((rank * 7 + i) % size); /* ties resolved by the lower index */
      in[i].idx = rank;
      in[i].pad = -1;
      memset(&out[i], SENT, sizeof out[i]);
    }
    OK(MPI_Allreduce(in, out, N, st, op ? MPI_MAXLOC : MPI_MINLOC, W));
    int bad = 0;
    for (int i = 0; i < N; ++i) {
      double best = op ? -1 : 1e9;
      int who = -1;
      for (int r = 0; r < size; ++r) {
        double x = (double)((r * 7 + i) % size);
        if (op ? x > best : x < best) {
          best = x;
          who = r;
        }
      }
      int sent;
      memset(&sent, SENT, sizeof sent);
      bad += out[i].v != best || out[i].idx != who || out[i].pad != sent;
    }
    CHECK_EQ(bad, 0);
  }
  /* A vector of MPI_2INT pairs (contiguous) and a strided vector of MPI_DOUBLE_INT. */
  MPI_Datatype c2, vdi;
  MPI_Type_contiguous(3, MPI_2INT, &c2);
  MPI_Type_commit(&c2);
  int a[6], b[6];
  for (int i = 0; i < 3; ++i) {
    a[2 * i] = (rank + i) % size;
    a[2 * i + 1] = rank;
  }
  OK(MPI_Allreduce(a, b, 1, c2, MPI_MAXLOC, W));
  for (int i = 0; i < 3; ++i) {
    CHECK_EQ(b[2 * i], size - 1);
    CHECK_EQ(b[2 * i + 1], (size - 1 - i + 3 * size) % size);
  }
  struct { double v; int i; } di[4], dr[4];
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE_INT, &vdi);
  MPI_Type_commit(&vdi);
  memset(dr, SENT, sizeof dr);
  for (int i = 0; i < 4; ++i) {
    di[i].v = i % 2 ? 99 : -rank;
    di[i].i = rank;
  }
  OK(MPI_Allreduce(di, dr, 1, vdi, MPI_MINLOC, W));
  unsigned char sent[sizeof dr[1]];
  memset(sent, SENT, sizeof sent);
  CHECK(dr[0].v == -(size - 1) && dr[0].i == size - 1);
  CHECK(dr[2].v == -(size - 1) && dr[2].i == size - 1);
  CHECK(memcmp(&dr[1], sent, sizeof sent) == 0 && memcmp(&dr[3], sent, sizeof sent) == 0);

  /* Pair types move packed like any other type: MPI_DOUBLE_INT (padding after the int) into
   * struct loc (a gap between the double and the int). */
  struct loc *all = malloc((size_t)size * 2 * sizeof *all);
  memset(all, SENT, (size_t)size * 2 * sizeof *all);
  for (int i = 0; i < 2; ++i) {
    di[i].v = rank * 10 + i + 0.25;
    di[i].i = -rank - i;
  }
  OK(MPI_Allgather(di, 2, MPI_DOUBLE_INT, all, 2, st, W));
  int bad = 0, sentint;
  memset(&sentint, SENT, sizeof sentint);
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < 2; ++i) {
      const struct loc *l = &all[r * 2 + i];
      bad += l->v != r * 10 + i + 0.25 || l->idx != -r - i || l->pad != sentint;
    }
  }
  CHECK_EQ(bad, 0);
  free(all);

  /* A predefined operation on a type mixing basic types is MPI_ERR_OP; so is MINLOC on a type
   * that is not made of value-index pairs. */
  CHECK_CLASS(MPI_Allreduce(in, out, N, st, MPI_SUM, W), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce(in, out, N, st, MPI_MAX, 0, W), MPI_ERR_OP);
  MPI_Datatype id; /* (int, double): the pair the wrong way round */
  MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                         (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &id);
  MPI_Type_commit(&id);
  CHECK_CLASS(MPI_Allreduce(di, dr, 1, id, MPI_MINLOC, W), MPI_ERR_OP);
  MPI_Type_free(&id);
  int ten[10]; /* 3 ints: not a whole number of pairs */
  CHECK_CLASS(MPI_Allreduce(a, ten, 1, T[T_IDX].type, MPI_MAXLOC, W), MPI_ERR_OP);
  MPI_Type_free(&st);
  MPI_Type_free(&c2);
  MPI_Type_free(&vdi);
}

/* A user function on a type whose data lies before its origin (hindexed ints at -8 and +4,
 * extent 16): it must get element origins, not staging offsets. */
static void user_sum_hidx(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  for (int e = 0; e < *len; ++e) {
    int *a = (int *)((char *)in + e * 16), *b = (int *)((char *)inout + e * 16);
    b[-2] += a[-2];
    b[1] += a[1];
  }
}

static void test_negative_lb(void) {
  MPI_Datatype h, c;
  MPI_Type_create_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){-8, 4}, MPI_INT, &h);
  MPI_Type_commit(&h);
  MPI_Op op;
  MPI_Op_create(user_sum_hidx, 1, &op);
  int in[16], out[16];
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 16; ++i) {
      in[i] = (rank + 1) * (i + 1);
      out[i] = -1;
    }
    /* origin at int 2: element e's ints are 4e and 4e + 3 */
    OK(MPI_Allreduce(in + 2, out + 2, 3, h, pass ? MPI_SUM : op, W));
    int bad = 0;
    for (int i = 0; i < 16; ++i) {
      int data = i < 12 && (i % 4 == 0 || i % 4 == 3);
      bad += out[i] != (data ? size * (size + 1) / 2 * (i + 1) : -1);
    }
    CHECK_EQ(bad, 0);
  }
  /* Elements that overlap (2 ints, extent 1 int) cannot be handed to a user function as
   * laid out: MPI_ERR_TYPE (a predefined operation reduces their ints, and may not overlap
   * in a receive buffer anyway). */
  MPI_Datatype two, ov;
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_create_resized(two, 0, sizeof(int), &ov);
  MPI_Type_commit(&ov);
  CHECK_CLASS(MPI_Allreduce(in, out, 2, ov, op, W), MPI_ERR_TYPE);
  MPI_Type_free(&two);
  MPI_Type_free(&ov);
  MPI_Op_free(&op);
  MPI_Type_free(&h);
  /* contiguous(2, MPI_DOUBLE_INT): pairs with padding, MINLOC through MPI_Reduce */
  MPI_Type_contiguous(2, MPI_DOUBLE_INT, &c);
  MPI_Type_commit(&c);
  struct { double v; int i; } a[4], r[4];
  for (int k = 0; k < 4; ++k) {
    a[k].v = (rank + k) % size;
    a[k].i = rank;
  }
  const int root = size - 1;
  OK(MPI_Reduce(a, r, 2, c, MPI_MINLOC, root, W));
  if (rank == root) {
    for (int k = 0; k < 4; ++k) CHECK(r[k].v == 0 && r[k].i == (size - k % size) % size);
  }
  MPI_Type_free(&c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
  if (size > 64) {
    if (rank == 0) printf("coll_dtypes: at most 64 processes\n");
    MPI_Finalize();
    return 1;
  }
  make_types();

  /* Send and receive types with the same signature (K ints) but different layouts. */
  static const int pairs[][2] = {{T_INT, T_VEC},    {T_VEC, T_INT},  {T_IDX, T_STRUCT},
                                 {T_STRUCT, T_RES}, {T_RES, T_NEST}, {T_NEST, T_VEC2},
                                 {T_VEC2, T_IDX},   {T_VEC, T_VEC}};
  const int npairs = (int)(sizeof pairs / sizeof pairs[0]);
  for (int i = 0; i < npairs; ++i) data_movement(pairs[i][0], pairs[i][1], K, i % size);
  /* Long messages: the algorithms for large blocks (ring, linear, pairwise, pipelined). */
  data_movement(T_INT, T_NEST, K * 1500, size - 1);
  data_movement(T_IDX, T_VEC, K * 1500, 0);
  test_bottom();

  MPI_Op usum, ufirst;
  MPI_Op_create(user_sum, 1, &usum);
  MPI_Op_create(user_first, 0, &ufirst);
  for (int i = T_VEC; i < NTYPES; ++i) {
    test_reductions(&T[i], MPI_SUM, SUM, i % size, 2);
    test_reductions(&T[i], usum, SUM, (i + 1) % size, 2);
    test_reductions(&T[i], ufirst, FIRST, (i + 2) % size, 3);
  }
  /* Long vectors: Rabenseifner allreduce, ring reduce_scatter, user functions on pieces. */
  test_reductions(&T[T_VEC], MPI_SUM, SUM, 0, 3000);
  test_reductions(&T[T_IDX], usum, SUM, size - 1, 3000);
  CHECK_EQ(user_bad, 0);
  CHECK(size == 1 || user_calls > 0);
  /* A contiguous derived type of ints: reduced in place as ints. */
  MPI_Datatype c3;
  MPI_Type_contiguous(3, MPI_INT, &c3);
  MPI_Type_commit(&c3);
  int x[6] = {1, 2, 3, 4, 5, 6}, y[6];
  OK(MPI_Allreduce(x, y, 2, c3, MPI_SUM, W));
  for (int i = 0; i < 6; ++i) CHECK_EQ(y[i], (i + 1) * size);
  MPI_Type_free(&c3);
  test_double_vector();
  test_loc();
  test_negative_lb();
  MPI_Op_free(&usum);
  MPI_Op_free(&ufirst);
  for (int i = T_VEC; i < NTYPES; ++i) MPI_Type_free(&T[i].type);
  return check_finish("coll_dtypes");
}
