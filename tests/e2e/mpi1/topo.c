/* Process topologies: MPI_Dims_create against hand-computed factorizations; Cartesian grids
 * (1-, 2- and 3-D, periodic and not, smaller than the job) checked rank by rank for coords,
 * ranks, shifts by +-1 and +-2, halo messages, Cart_get/Cartdim_get, Cart_sub rows/columns
 * with traffic on them, Cart_map; ring, star and the MPI standard's 4-node graph with
 * neighbors, Graph_get/Graphdims_get/Graph_map and messages along the edges; Topo_test and
 * MPI_Comm_dup keeping the topology; then every kind of bad argument with its error class.
 * Fixed tables are checked where the job is large enough (3x2 at 6 processes, 2x2x2 at 8,
 * the 4-node graph at 4); the rest follows from MPI's row-major numbering. Any process count. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N MPI_PROC_NULL

static int rank, size;

/* ---- reference arithmetic (MPI-1.3 6.5: row-major numbering) ---- */

static int ref_rank(int ndims, const int *dims, const int *c) {
  int r = 0;
  for (int i = 0; i < ndims; ++i) r = r * dims[i] + c[i];
  return r;
}

static void ref_coords(int ndims, const int *dims, int r, int *c) {
  for (int i = ndims - 1; i >= 0; --i) {
    c[i] = r % dims[i];
    r /= dims[i];
  }
}

static int ref_neighbor(int ndims, const int *dims, const int *periods, int r, int dir, int disp) {
  int c[8];
  ref_coords(ndims, dims, r, c);
  int x = c[dir] + disp;
  if (x < 0 || x >= dims[dir]) {
    if (!periods[dir]) return N;
    x = ((x % dims[dir]) + dims[dir]) % dims[dir];
  }
  c[dir] = x;
  return ref_rank(ndims, dims, c);
}

static int product(int ndims, const int *dims) {
  int p = 1;
  for (int i = 0; i < ndims; ++i) p *= dims[i];
  return p;
}

/* The error string of rc must name the class and contain `detail`. */
static void check_text(int rc, const char *cls, const char *detail) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  s[0] = 0;
  MPI_Error_string(rc, s, &len);
  if (strstr(s, cls) == NULL || strstr(s, detail) == NULL) {
    fprintf(stderr, "FAIL: error string \"%s\" lacks \"%s\" or \"%s\"\n", s, cls, detail);
    check_failures++;
  }
}

/* ---- MPI_Dims_create ---- */

static void dims_create(void) {
  static const struct {
    int nnodes, ndims, in[4], out[4];
  } cases[] = {
      {6, 2, {0, 0}, {3, 2}},           {7, 2, {0, 0}, {7, 1}},
      {12, 2, {0, 0}, {4, 3}},          {36, 2, {0, 0}, {6, 6}},
      {100, 2, {0, 0}, {10, 10}},       {17, 2, {0, 0}, {17, 1}},
      {8, 3, {0, 0, 0}, {2, 2, 2}},     {12, 3, {0, 0, 0}, {3, 2, 2}},
      {16, 3, {0, 0, 0}, {4, 2, 2}},    {24, 3, {0, 0, 0}, {4, 3, 2}},
      {30, 3, {0, 0, 0}, {5, 3, 2}},    {32, 3, {0, 0, 0}, {4, 4, 2}},
      {60, 3, {0, 0, 0}, {5, 4, 3}},    {64, 3, {0, 0, 0}, {4, 4, 4}},
      {72, 3, {0, 0, 0}, {6, 4, 3}},    {1, 3, {0, 0, 0}, {1, 1, 1}},
      {2, 3, {0, 0, 0}, {2, 1, 1}},     {24, 4, {0, 0, 0, 0}, {3, 2, 2, 2}},
      {16, 4, {0, 0, 0, 0}, {2, 2, 2, 2}}, {5, 1, {0}, {5}},
      {12, 2, {2, 0}, {2, 6}},          {12, 3, {0, 3, 0}, {2, 3, 2}},
      {8, 2, {0, 4}, {2, 4}},           {6, 2, {2, 3}, {2, 3}},
      {24, 3, {0, 2, 0}, {4, 2, 3}},    {1, 0, {0}, {0}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    int d[4];
    memcpy(d, cases[k].in, sizeof d);
    int rc = MPI_Dims_create(cases[k].nnodes, cases[k].ndims, d);
    CHECK_EQ(rc, MPI_SUCCESS);
    for (int i = 0; i < cases[k].ndims; ++i) {
      if (d[i] != cases[k].out[i]) {
        fprintf(stderr, "FAIL: Dims_create(%d, %d) case %zu: dims[%d] = %d, expected %d\n",
                cases[k].nnodes, cases[k].ndims, k, i, d[i], cases[k].out[i]);
        check_failures++;
      }
    }
  }
  /* The job's own grids, used below. */
  int d2[2] = {0, 0};
  CHECK_EQ(MPI_Dims_create(size, 2, d2), MPI_SUCCESS);
  CHECK_EQ(d2[0] * d2[1], size);
  CHECK(d2[0] >= d2[1]);

  int d[3] = {3, 0, 0};
  CHECK_CLASS(MPI_Dims_create(10, 2, d), MPI_ERR_DIMS); /* 3 does not divide 10 */
  int rc = MPI_Dims_create(10, 2, d);
  check_text(rc, "MPI_ERR_DIMS", "not a multiple");
  d[0] = 2, d[1] = 2;
  CHECK_CLASS(MPI_Dims_create(6, 2, d), MPI_ERR_DIMS); /* all set, product 4 != 6 */
  d[0] = -1, d[1] = 0;
  CHECK_CLASS(MPI_Dims_create(6, 2, d), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Dims_create(6, -1, d), MPI_ERR_DIMS);
  d[0] = 0, d[1] = 0;
  CHECK_CLASS(MPI_Dims_create(0, 2, d), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Dims_create(-4, 2, d), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Dims_create(6, 2, NULL), MPI_ERR_ARG);
  d[0] = 7, d[1] = 0; /* preset larger than nnodes */
  CHECK_CLASS(MPI_Dims_create(6, 2, d), MPI_ERR_DIMS);
}

/* ---- Cartesian grids ---- */

/* Every query on `cart` (a grid of ndims/dims/periods on which this process has `me`) against
 * the reference. */
static void check_cart_queries(MPI_Comm cart, int ndims, const int *dims, const int *periods,
                               int me) {
  int n = product(ndims, dims), t = -1, nd = -1;
  int gd[8], gp[8], gc[8], c[8], rc;
  CHECK_EQ(MPI_Topo_test(cart, &t), MPI_SUCCESS);
  CHECK_EQ(t, MPI_CART);
  CHECK_EQ(MPI_Cartdim_get(cart, &nd), MPI_SUCCESS);
  CHECK_EQ(nd, ndims);
  CHECK_EQ(MPI_Cart_get(cart, 8, gd, gp, gc), MPI_SUCCESS);
  ref_coords(ndims, dims, me, c);
  for (int i = 0; i < ndims; ++i) {
    CHECK_EQ(gd[i], dims[i]);
    CHECK_EQ(gp[i], periods[i] ? 1 : 0);
    CHECK_EQ(gc[i], c[i]);
  }
  /* rank <-> coords round trip for every rank of the grid */
  for (int r = 0; r < n; ++r) {
    int back = -1;
    CHECK_EQ(MPI_Cart_coords(cart, r, ndims, gc), MPI_SUCCESS);
    ref_coords(ndims, dims, r, c);
    for (int i = 0; i < ndims; ++i) CHECK_EQ(gc[i], c[i]);
    CHECK_EQ(MPI_Cart_rank(cart, gc, &back), MPI_SUCCESS);
    CHECK_EQ(back, r);
  }
  /* Cart_rank outside a dimension: wraps if periodic, an error if not */
  ref_coords(ndims, dims, me, c);
  for (int i = 0; i < ndims; ++i) {
    for (int off = -1; off <= 1; off += 2) {
      int saved = c[i], got = -1;
      c[i] = off < 0 ? -1 : dims[i];
      rc = MPI_Cart_rank(cart, c, &got);
      if (periods[i]) {
        CHECK_EQ(rc, MPI_SUCCESS);
        int w[8];
        memcpy(w, c, sizeof w);
        w[i] = off < 0 ? dims[i] - 1 : 0;
        CHECK_EQ(got, ref_rank(ndims, dims, w));
      } else {
        CHECK_CLASS(rc, MPI_ERR_ARG);
      }
      c[i] = saved;
    }
  }
  /* shifts in every direction by 0, +-1, +-2 */
  static const int disps[] = {0, 1, -1, 2, -2};
  for (int dir = 0; dir < ndims; ++dir) {
    for (int k = 0; k < 5; ++k) {
      int src = -7, dst = -7;
      CHECK_EQ(MPI_Cart_shift(cart, dir, disps[k], &src, &dst), MPI_SUCCESS);
      CHECK_EQ(dst, ref_neighbor(ndims, dims, periods, me, dir, disps[k]));
      CHECK_EQ(src, ref_neighbor(ndims, dims, periods, me, dir, -disps[k]));
    }
  }
  /* halo exchange along every direction: the value from `src` is src's world rank */
  for (int dir = 0; dir < ndims; ++dir) {
    int src, dst, out, in = -5;
    MPI_Cart_shift(cart, dir, 1, &src, &dst);
    MPI_Comm_rank(MPI_COMM_WORLD, &out);
    CHECK_EQ(MPI_Sendrecv(&out, 1, MPI_INT, dst, 7, &in, 1, MPI_INT, src, 7, cart,
                          MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    /* grid rank == world rank (no reordering, grid made from the first ranks of WORLD) */
    CHECK_EQ(in, src == N ? -5 : src);
  }
}

/* Creates the grid over MPI_COMM_WORLD, checks membership, queries, a dup, and frees it. */
static void check_grid(int ndims, const int *dims, const int *periods) {
  int n = product(ndims, dims);
  MPI_Comm cart = (MPI_Comm)-1;
  CHECK_EQ(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart), MPI_SUCCESS);
  if (rank >= n) {
    CHECK(cart == MPI_COMM_NULL);
    return;
  }
  CHECK(cart != MPI_COMM_NULL);
  if (cart == MPI_COMM_NULL) return;
  int s = -1, r = -1;
  MPI_Comm_size(cart, &s);
  MPI_Comm_rank(cart, &r);
  CHECK_EQ(s, n);
  CHECK_EQ(r, rank);
  check_cart_queries(cart, ndims, dims, periods, r);

  /* the topology survives MPI_Comm_dup */
  MPI_Comm dup;
  CHECK_EQ(MPI_Comm_dup(cart, &dup), MPI_SUCCESS);
  check_cart_queries(dup, ndims, dims, periods, r);
  MPI_Comm_free(&dup);
  /* ... but not MPI_Comm_split */
  MPI_Comm split;
  int t = 0;
  MPI_Comm_split(cart, 0, r, &split);
  MPI_Topo_test(split, &t);
  CHECK_EQ(t, MPI_UNDEFINED);
  MPI_Comm_free(&split);
  MPI_Comm_free(&cart);
}

/* Hand tables: a 3x2 grid, not periodic and periodic in dimension 0 (needs 6 processes). */
static void table_3x2(void) {
  if (size < 6) return;
  static const int dims[2] = {3, 2};
  static const int coords[6][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}};
  /* [rank] = {source, dest} */
  static const int flat_d0p1[6][2] = {{N, 2}, {N, 3}, {0, 4}, {1, 5}, {2, N}, {3, N}};
  static const int flat_d0m1[6][2] = {{2, N}, {3, N}, {4, 0}, {5, 1}, {N, 2}, {N, 3}};
  static const int flat_d0p2[6][2] = {{N, 4}, {N, 5}, {N, N}, {N, N}, {0, N}, {1, N}};
  static const int flat_d1p1[6][2] = {{N, 1}, {0, N}, {N, 3}, {2, N}, {N, 5}, {4, N}};
  static const int wrap_d0p1[6][2] = {{4, 2}, {5, 3}, {0, 4}, {1, 5}, {2, 0}, {3, 1}};
  static const int wrap_d0m2[6][2] = {{4, 2}, {5, 3}, {0, 4}, {1, 5}, {2, 0}, {3, 1}};
  static const int wrap_d1m1[6][2] = {{1, N}, {N, 0}, {3, N}, {N, 2}, {5, N}, {N, 4}};
  for (int periodic = 0; periodic < 2; ++periodic) {
    int periods[2] = {periodic, 0};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    if (rank >= 6) {
      CHECK(cart == MPI_COMM_NULL);
      continue;
    }
    int c[2], src, dst;
    for (int r = 0; r < 6; ++r) {
      MPI_Cart_coords(cart, r, 2, c);
      CHECK_EQ(c[0], coords[r][0]);
      CHECK_EQ(c[1], coords[r][1]);
    }
#define SHIFT(dir, disp, table)                     \
  MPI_Cart_shift(cart, dir, disp, &src, &dst);      \
  CHECK_EQ(src, table[rank][0]);                    \
  CHECK_EQ(dst, table[rank][1]);
    if (!periodic) {
      SHIFT(0, 1, flat_d0p1);
      SHIFT(0, -1, flat_d0m1);
      SHIFT(0, 2, flat_d0p2);
      SHIFT(1, 1, flat_d1p1);
    } else {
      SHIFT(0, 1, wrap_d0p1);
      SHIFT(0, -2, wrap_d0m2);
      SHIFT(1, -1, wrap_d1m1);
    }
#undef SHIFT
    /* rows {0,1},{2,3},{4,5}; columns {0,2,4},{1,3,5} */
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    MPI_Comm row, col;
    int s, r;
    CHECK_EQ(MPI_Cart_sub(cart, keep_row, &row), MPI_SUCCESS);
    CHECK_EQ(MPI_Cart_sub(cart, keep_col, &col), MPI_SUCCESS);
    MPI_Comm_size(row, &s);
    MPI_Comm_rank(row, &r);
    CHECK_EQ(s, 2);
    CHECK_EQ(r, rank % 2);
    MPI_Comm_size(col, &s);
    MPI_Comm_rank(col, &r);
    CHECK_EQ(s, 3);
    CHECK_EQ(r, rank / 2);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
    static const int row_sum[6] = {1, 1, 5, 5, 9, 9};
    CHECK_EQ(sum, row_sum[rank]);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, col);
    CHECK_EQ(sum, rank % 2 == 0 ? 6 : 9);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Comm_free(&cart);
  }
}

/* Hand tables: 2x2x2, fully periodic and not (needs 8 processes). */
static void table_2x2x2(void) {
  if (size < 8) return;
  static const int dims[3] = {2, 2, 2};
  for (int periodic = 0; periodic < 2; ++periodic) {
    int periods[3] = {periodic, periodic, periodic};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    if (rank >= 8) {
      CHECK(cart == MPI_COMM_NULL);
      continue;
    }
    int c[3], r, src, dst;
    MPI_Cart_coords(cart, 5, 3, c);
    CHECK(c[0] == 1 && c[1] == 0 && c[2] == 1);
    MPI_Cart_coords(cart, 6, 3, c);
    CHECK(c[0] == 1 && c[1] == 1 && c[2] == 0);
    c[0] = 0, c[1] = 1, c[2] = 1;
    MPI_Cart_rank(cart, c, &r);
    CHECK_EQ(r, 3);
    if (rank == 5) {
      MPI_Cart_shift(cart, 2, 1, &src, &dst);
      CHECK_EQ(src, 4);
      CHECK_EQ(dst, periodic ? 4 : N);
      MPI_Cart_shift(cart, 0, 1, &src, &dst);
      CHECK_EQ(src, 1);
      CHECK_EQ(dst, periodic ? 1 : N);
      MPI_Cart_shift(cart, 1, -1, &src, &dst);
      CHECK_EQ(src, 7);
      CHECK_EQ(dst, periodic ? 7 : N);
      MPI_Cart_shift(cart, 1, 2, &src, &dst);
      CHECK_EQ(src, periodic ? 5 : N);
      CHECK_EQ(dst, periodic ? 5 : N);
    }
    /* planes: keep dims 0 and 2 -> 2x2 sub-grid, sub rank = 2*c0 + c2 */
    int keep[3] = {1, 0, 1}, s, sr, nd;
    MPI_Comm plane;
    CHECK_EQ(MPI_Cart_sub(cart, keep, &plane), MPI_SUCCESS);
    MPI_Comm_size(plane, &s);
    MPI_Comm_rank(plane, &sr);
    MPI_Cart_coords(cart, rank, 3, c);
    CHECK_EQ(s, 4);
    CHECK_EQ(sr, 2 * c[0] + c[2]);
    MPI_Cartdim_get(plane, &nd);
    CHECK_EQ(nd, 2);
    MPI_Comm_free(&plane);
    MPI_Comm_free(&cart);
  }
}

/* Cart_sub on the job's 2-D grid: rows and columns, with traffic along them. */
static void cart_sub(const int *dims, const int *periods) {
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int n = dims[0] * dims[1];
  if (rank >= n) {
    CHECK(cart == MPI_COMM_NULL);
    return;
  }
  int c[2], s, r, t, nd, gd[1], gp[1], gc[1];
  MPI_Cart_coords(cart, rank, 2, c);
  for (int keep_dim = 0; keep_dim < 2; ++keep_dim) {
    int remain[2] = {keep_dim == 0, keep_dim == 1};
    MPI_Comm sub;
    CHECK_EQ(MPI_Cart_sub(cart, remain, &sub), MPI_SUCCESS);
    MPI_Comm_size(sub, &s);
    MPI_Comm_rank(sub, &r);
    CHECK_EQ(s, dims[keep_dim]);
    CHECK_EQ(r, c[keep_dim]);
    MPI_Topo_test(sub, &t);
    CHECK_EQ(t, MPI_CART);
    MPI_Cartdim_get(sub, &nd);
    CHECK_EQ(nd, 1);
    MPI_Cart_get(sub, 1, gd, gp, gc);
    CHECK_EQ(gd[0], dims[keep_dim]);
    CHECK_EQ(gp[0], periods[keep_dim]);
    CHECK_EQ(gc[0], c[keep_dim]);
    /* a message to the next process of the line: it carries the sender's world rank */
    int src, dst, in = -5;
    MPI_Cart_shift(sub, 0, 1, &src, &dst);
    CHECK_EQ(dst, ref_neighbor(1, &dims[keep_dim], &periods[keep_dim], r, 0, 1));
    CHECK_EQ(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 3, &in, 1, MPI_INT, src, 3, sub,
                          MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    int w[2] = {c[0], c[1]};
    w[keep_dim] = src;
    CHECK_EQ(in, src == N ? -5 : ref_rank(2, dims, w));
    /* the sum of world ranks along the line */
    int sum = 0, want = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub);
    for (int k = 0; k < dims[keep_dim]; ++k) {
      w[keep_dim] = k;
      want += ref_rank(2, dims, w);
    }
    CHECK_EQ(sum, want);
    MPI_Comm_free(&sub);
  }
  /* keeping nothing: each process alone in a 0-dimensional grid */
  int none[2] = {0, 0};
  MPI_Comm self;
  CHECK_EQ(MPI_Cart_sub(cart, none, &self), MPI_SUCCESS);
  MPI_Comm_size(self, &s);
  CHECK_EQ(s, 1);
  MPI_Cartdim_get(self, &nd);
  CHECK_EQ(nd, 0);
  MPI_Comm_free(&self);
  MPI_Comm_free(&cart);
}

static void carts(void) {
  int d2[2] = {0, 0}, d3[3] = {0, 0, 0};
  MPI_Dims_create(size, 2, d2);
  MPI_Dims_create(size, 3, d3);
  int flat[3] = {0, 0, 0}, ring[3] = {1, 1, 1}, mixed[3] = {1, 0, 1};

  int d1[1] = {size};
  check_grid(1, d1, flat);
  check_grid(1, d1, ring);
  check_grid(2, d2, flat);
  check_grid(2, d2, ring);
  check_grid(2, d2, mixed);
  check_grid(3, d3, flat);
  check_grid(3, d3, mixed);
  /* smaller than the job: the ranks beyond get MPI_COMM_NULL */
  int half[2] = {(size + 1) / 2, 1};
  check_grid(2, half, mixed);
  int one[1] = {1};
  check_grid(1, one, flat);
  check_grid(0, NULL, NULL); /* a 0-dimensional grid is one process */

  table_3x2();
  table_2x2x2();
  cart_sub(d2, flat);
  cart_sub(d2, ring);
  cart_sub(d2, mixed + 1);

  /* reorder = 1 is allowed; the grid must still be consistent */
  MPI_Comm cart;
  CHECK_EQ(MPI_Cart_create(MPI_COMM_WORLD, 2, d2, ring, 1, &cart), MPI_SUCCESS);
  int r, c[2], back;
  MPI_Comm_rank(cart, &r);
  MPI_Cart_coords(cart, r, 2, c);
  MPI_Cart_rank(cart, c, &back);
  CHECK_EQ(back, r);
  MPI_Comm_free(&cart);

  /* Cart_map: the first product(dims) ranks keep their rank */
  int nr = -7;
  CHECK_EQ(MPI_Cart_map(MPI_COMM_WORLD, 2, d2, flat, &nr), MPI_SUCCESS);
  CHECK_EQ(nr, rank);
  CHECK_EQ(MPI_Cart_map(MPI_COMM_WORLD, 1, one, flat, &nr), MPI_SUCCESS);
  CHECK_EQ(nr, rank == 0 ? 0 : MPI_UNDEFINED);
  CHECK_EQ(MPI_Cart_map(MPI_COMM_WORLD, 2, half, flat, &nr), MPI_SUCCESS);
  CHECK_EQ(nr, rank < half[0] ? rank : MPI_UNDEFINED);
}

/* ---- graphs ---- */

/* Creates the graph over MPI_COMM_WORLD and checks everything against index/edges. */
static void check_graph(int nnodes, const int *index, const int *edges, int with_dup) {
  MPI_Comm g = (MPI_Comm)-1;
  CHECK_EQ(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g), MPI_SUCCESS);
  if (rank >= nnodes) {
    CHECK(g == MPI_COMM_NULL);
    return;
  }
  CHECK(g != MPI_COMM_NULL);
  if (g == MPI_COMM_NULL) return;
  int nedges = index[nnodes - 1];
  for (int pass = 0; pass < (with_dup ? 2 : 1); ++pass) {
    MPI_Comm q = g;
    if (pass == 1) CHECK_EQ(MPI_Comm_dup(g, &q), MPI_SUCCESS);
    int t = -1, nn = -1, ne = -1, s = -1;
    MPI_Comm_size(q, &s);
    CHECK_EQ(s, nnodes);
    CHECK_EQ(MPI_Topo_test(q, &t), MPI_SUCCESS);
    CHECK_EQ(t, MPI_GRAPH);
    CHECK_EQ(MPI_Graphdims_get(q, &nn, &ne), MPI_SUCCESS);
    CHECK_EQ(nn, nnodes);
    CHECK_EQ(ne, nedges);
    int *gi = malloc(sizeof(int) * (size_t)nnodes), *ge = malloc(sizeof(int) * (size_t)(nedges + 1));
    CHECK_EQ(MPI_Graph_get(q, nnodes, nedges, gi, ge), MPI_SUCCESS);
    for (int i = 0; i < nnodes; ++i) CHECK_EQ(gi[i], index[i]);
    for (int i = 0; i < nedges; ++i) CHECK_EQ(ge[i], edges[i]);
    for (int r = 0; r < nnodes; ++r) {
      int cnt = -1, first = r == 0 ? 0 : index[r - 1];
      CHECK_EQ(MPI_Graph_neighbors_count(q, r, &cnt), MPI_SUCCESS);
      CHECK_EQ(cnt, index[r] - first);
      CHECK_EQ(MPI_Graph_neighbors(q, r, cnt, ge), MPI_SUCCESS);
      for (int k = 0; k < cnt; ++k) CHECK_EQ(ge[k], edges[first + k]);
    }
    free(gi);
    free(ge);
    if (pass == 1) MPI_Comm_free(&q);
  }
  MPI_Comm_free(&g);
}

static void graphs(void) {
  /* ring over the whole job: i -> i-1, i+1 */
  int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < size; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i - 1 + size) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  check_graph(size, index, edges, 1);
  /* messages along the ring's edges: each neighbor sends its rank */
  MPI_Comm g;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
  int nb[2], cnt, in[2] = {-5, -5};
  MPI_Graph_neighbors_count(g, rank, &cnt);
  CHECK_EQ(cnt, 2);
  MPI_Graph_neighbors(g, rank, 2, nb);
  CHECK_EQ(MPI_Sendrecv(&rank, 1, MPI_INT, nb[1], 1, &in[0], 1, MPI_INT, nb[0], 1, g,
                        MPI_STATUS_IGNORE),
           MPI_SUCCESS);
  CHECK_EQ(MPI_Sendrecv(&rank, 1, MPI_INT, nb[0], 2, &in[1], 1, MPI_INT, nb[1], 2, g,
                        MPI_STATUS_IGNORE),
           MPI_SUCCESS);
  CHECK_EQ(in[0], (rank - 1 + size) % size);
  CHECK_EQ(in[1], (rank + 1) % size);
  MPI_Comm_free(&g);

  /* star over half the job (rounded up): 0 <-> everyone else */
  int n = (size + 1) / 2, k = 0;
  for (int i = 1; i < n; ++i) edges[k++] = i;
  index[0] = k;
  for (int i = 1; i < n; ++i) {
    edges[k++] = 0;
    index[i] = k;
  }
  check_graph(n, index, edges, 1);

  /* the MPI-1.3 standard's example (section 6.4): 0:{1,3} 1:{0} 2:{3} 3:{0,2} */
  if (size >= 4) {
    static const int ex_index[4] = {2, 3, 4, 6}, ex_edges[6] = {1, 3, 0, 3, 0, 2};
    static const int ex_count[4] = {2, 1, 1, 2};
    static const int ex_nb[4][2] = {{1, 3}, {0, -1}, {3, -1}, {0, 2}};
    check_graph(4, ex_index, ex_edges, 0);
    MPI_Graph_create(MPI_COMM_WORLD, 4, ex_index, ex_edges, 0, &g);
    if (rank < 4) {
      int got[2] = {-1, -1};
      for (int r = 0; r < 4; ++r) {
        MPI_Graph_neighbors_count(g, r, &cnt);
        CHECK_EQ(cnt, ex_count[r]);
        got[1] = -1;
        MPI_Graph_neighbors(g, r, 2, got);
        CHECK_EQ(got[0], ex_nb[r][0]);
        CHECK_EQ(got[1], ex_nb[r][1]);
      }
      MPI_Comm_free(&g);
    } else {
      CHECK(g == MPI_COMM_NULL);
    }
  }

  /* Graph_map: the first nnodes ranks keep their rank */
  int nr = -7;
  CHECK_EQ(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &nr), MPI_SUCCESS);
  CHECK_EQ(nr, rank < n ? rank : MPI_UNDEFINED);
  /* an empty graph: MPI_COMM_NULL everywhere */
  CHECK_EQ(MPI_Graph_create(MPI_COMM_WORLD, 0, index, edges, 0, &g), MPI_SUCCESS);
  CHECK(g == MPI_COMM_NULL);
  free(index);
  free(edges);
}

/* ---- bad arguments, under MPI_ERRORS_RETURN ---- */

static void errors(void) {
  int d2[2] = {0, 0}, periods[2] = {0, 1}, c[2] = {0, 0}, x, y, t;
  MPI_Dims_create(size, 2, d2);
  MPI_Comm cart, graph, out;
  MPI_Cart_create(MPI_COMM_WORLD, 2, d2, periods, 0, &cart);
  int ring_index[1] = {1}, ring_edges[1] = {0};
  MPI_Graph_create(MPI_COMM_WORLD, 1, ring_index, ring_edges, 0, &graph);

  /* plain communicators have no topology */
  CHECK_EQ(MPI_Topo_test(MPI_COMM_WORLD, &t), MPI_SUCCESS);
  CHECK_EQ(t, MPI_UNDEFINED);
  CHECK_EQ(MPI_Topo_test(MPI_COMM_SELF, &t), MPI_SUCCESS);
  CHECK_EQ(t, MPI_UNDEFINED);
  CHECK_CLASS(MPI_Cartdim_get(MPI_COMM_WORLD, &x), MPI_ERR_TOPOLOGY);
  check_text(MPI_Cartdim_get(MPI_COMM_WORLD, &x), "MPI_ERR_TOPOLOGY", "no topology");
  CHECK_CLASS(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Cart_rank(MPI_COMM_WORLD, c, &x), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &x, &y), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Cart_get(MPI_COMM_WORLD, 2, c, c, c), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Cart_sub(MPI_COMM_WORLD, c, &out), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Graphdims_get(MPI_COMM_WORLD, &x, &y), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Graph_get(MPI_COMM_WORLD, 1, 1, &x, &y), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &x), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Graph_neighbors(MPI_COMM_WORLD, 0, 1, &x), MPI_ERR_TOPOLOGY);

  /* MPI_COMM_NULL */
  CHECK_CLASS(MPI_Topo_test(MPI_COMM_NULL, &t), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_NULL, 2, d2, periods, 0, &out), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_NULL, 1, ring_index, ring_edges, 0, &out), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Cartdim_get(MPI_COMM_NULL, &x), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Cart_shift(MPI_COMM_NULL, 0, 1, &x, &y), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Cart_map(MPI_COMM_NULL, 2, d2, periods, &x), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Graph_map(MPI_COMM_NULL, 1, ring_index, ring_edges, &x), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Graphdims_get(MPI_COMM_NULL, &x, &y), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Topo_test((MPI_Comm)4242, &t), MPI_ERR_COMM);

  /* Cart_create arguments; a failed create leaves MPI_COMM_NULL */
  int big[2] = {size + 1, 1}, zero[2] = {0, 1}, neg[2] = {2, -1};
  out = (MPI_Comm)-1;
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, -1, d2, periods, 0, &out), MPI_ERR_DIMS);
  CHECK(out == MPI_COMM_NULL);
  out = (MPI_Comm)-1;
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &out), MPI_ERR_DIMS);
  CHECK(out == MPI_COMM_NULL);
  check_text(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &out), "MPI_ERR_DIMS",
             "more than the communicator");
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, periods, 0, &out), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, neg, periods, 0, &out), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, NULL, periods, 0, &out), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, d2, NULL, 0, &out), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, d2, periods, 0, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_map(MPI_COMM_WORLD, 2, big, periods, &x), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Cart_map(MPI_COMM_WORLD, -2, d2, periods, &x), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Cart_map(MPI_COMM_WORLD, 2, d2, periods, NULL), MPI_ERR_ARG);

  /* queries on a grid (every rank is in the d2 grid: its product is the job size) */
  int n = d2[0] * d2[1];
  CHECK_CLASS(MPI_Cart_coords(cart, n, 2, c), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Cart_coords(cart, -1, 2, c), MPI_ERR_RANK);
  check_text(MPI_Cart_coords(cart, n, 2, c), "MPI_ERR_RANK", "outside the grid");
  CHECK_CLASS(MPI_Cart_coords(cart, 0, 1, c), MPI_ERR_ARG); /* maxdims < ndims */
  CHECK_CLASS(MPI_Cart_coords(cart, 0, 2, NULL), MPI_ERR_ARG);
  c[0] = d2[0], c[1] = 0; /* dimension 0 is not periodic */
  CHECK_CLASS(MPI_Cart_rank(cart, c, &x), MPI_ERR_ARG);
  c[0] = 0, c[1] = -1; /* dimension 1 is periodic: wraps to d2[1]-1 */
  CHECK_EQ(MPI_Cart_rank(cart, c, &x), MPI_SUCCESS);
  CHECK_EQ(x, d2[1] - 1);
  c[1] = 0;
  CHECK_CLASS(MPI_Cart_rank(cart, c, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_rank(cart, NULL, &x), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_shift(cart, 2, 1, &x, &y), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Cart_shift(cart, -1, 1, &x, &y), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Cart_shift(cart, 0, 1, NULL, &y), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_shift(cart, 0, 1, &x, NULL), MPI_ERR_ARG);
  int gd[2], gp[2], gc[2];
  CHECK_CLASS(MPI_Cart_get(cart, 1, gd, gp, gc), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_get(cart, 2, NULL, gp, gc), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_get(cart, 2, gd, gp, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cartdim_get(cart, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_sub(cart, NULL, &out), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_sub(cart, c, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Topo_test(cart, NULL), MPI_ERR_ARG);
  /* graph functions on a grid, grid functions on a graph */
  CHECK_CLASS(MPI_Graphdims_get(cart, &x, &y), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Graph_neighbors_count(cart, 0, &x), MPI_ERR_TOPOLOGY);
  check_text(MPI_Graph_neighbors_count(cart, 0, &x), "MPI_ERR_TOPOLOGY", "not a graph one");

  /* Graph_create arguments */
  int index2[2] = {1, 2}, edges_bad[2] = {1, 2}, edges_neg[2] = {-1, 0}, index_dec[2] = {2, 1};
  int edges_ok[2] = {1, 0};
  if (size >= 2) {
    out = (MPI_Comm)-1;
    CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 2, index2, edges_bad, 0, &out), MPI_ERR_ARG);
    CHECK(out == MPI_COMM_NULL);
    check_text(MPI_Graph_create(MPI_COMM_WORLD, 2, index2, edges_bad, 0, &out), "MPI_ERR_ARG",
               "not a node of the graph");
    CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 2, index2, edges_neg, 0, &out), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 2, index_dec, edges_ok, 0, &out), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 2, NULL, edges_ok, 0, &out), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 2, index2, NULL, 0, &out), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_map(MPI_COMM_WORLD, 2, index2, edges_bad, &x), MPI_ERR_ARG);
  }
  int *many = calloc((size_t)size + 1, sizeof(int));
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, size + 1, many, many, 0, &out), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, -1, many, many, 0, &out), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 1, ring_index, ring_edges, 0, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Graph_map(MPI_COMM_WORLD, size + 1, many, many, &x), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Graph_map(MPI_COMM_WORLD, 1, ring_index, ring_edges, NULL), MPI_ERR_ARG);
  free(many);

  /* queries on a graph (only rank 0 is in the 1-node graph) */
  if (rank == 0) {
    CHECK_CLASS(MPI_Graph_neighbors_count(graph, 1, &x), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Graph_neighbors_count(graph, -1, &x), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Graph_neighbors_count(graph, 0, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_neighbors(graph, 1, 1, &x), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Graph_neighbors(graph, 0, 1, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_neighbors(graph, 0, -1, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graphdims_get(graph, NULL, &y), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graphdims_get(graph, &x, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_get(graph, 1, 1, NULL, &y), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_get(graph, -1, 1, &x, &y), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Cartdim_get(graph, &x), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cart_shift(graph, 0, 1, &x, &y), MPI_ERR_TOPOLOGY);
    /* a self-loop is a legal edge */
    CHECK_EQ(MPI_Graph_neighbors(graph, 0, 1, &x), MPI_SUCCESS);
    CHECK_EQ(x, 0);
    MPI_Comm_free(&graph);
  } else {
    CHECK(graph == MPI_COMM_NULL);
  }
  MPI_Comm_free(&cart);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  dims_create();
  carts();
  graphs();
  errors();
  return check_finish("topo");
}
