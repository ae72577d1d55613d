/* Distributed graphs and neighbourhood collectives (MPI-3.1 7.5.4, 7.6, 7.7), any size:
 * - a periodic ring and a non-periodic 2-D grid (MPI_Cart_create): MPI_PROC_NULL neighbours leave
 *   their blocks untouched; a periodic dimension of extent 2 (and 1), where one process is both
 *   the -1 and the +1 neighbour: a block sent towards -1 lands in the receiver's +1 slot;
 * - a graph (MPI_Graph_create) ring;
 * - a weighted distributed graph with repeated edges (MPI_Dist_graph_create_adjacent): the i-th
 *   block from a process pairs with the i-th edge from it; MPI_Dist_graph_neighbors(_count);
 * - MPI_Dist_graph_create where processes name other processes' edges, weighted and unweighted;
 * - the v and w forms (strided datatypes, byte displacements), the nonblocking forms started
 *   together and overlapped with computation;
 * - bad arguments: the error classes through MPI_ERRORS_RETURN.
 * "neighbor: OK" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;
#define EXPECT(cond, ...)                              \
  do {                                                 \
    if (!(cond)) {                                     \
      fprintf(stderr, "neighbor: rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                    \
      fprintf(stderr, "\n");                           \
      ++failures;                                      \
    }                                                  \
  } while (0)

static int cls(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

/* Every neighbourhood collective on `comm` whose in/out neighbours are src[0..nin) and
 * dst[0..nout), blocks sent by process p to its j-th destination are 1000 * p + j; expect[i] is
 * what the i-th receive slot must get (-1: MPI_PROC_NULL, untouched). */
static void check_all_forms(MPI_Comm comm, int nin, const int *expect, int nout, const char *what) {
  int *sendv = malloc(sizeof(int) * (size_t)(nout + 1) * 2);
  int *recv = malloc(sizeof(int) * (size_t)(nin + 1) * 4);
  for (int j = 0; j < nout; ++j) sendv[j] = 1000 * rank + j;
  /* alltoall */
  for (int i = 0; i < nin; ++i) recv[i] = -7;
  int rc = MPI_Neighbor_alltoall(sendv, 1, MPI_INT, recv, 1, MPI_INT, comm);
  EXPECT(rc == MPI_SUCCESS, "%s alltoall rc %d", what, rc);
  for (int i = 0; i < nin; ++i) {
    EXPECT(recv[i] == (expect[i] < 0 ? -7 : expect[i]), "%s alltoall slot %d: %d, want %d", what, i, recv[i], expect[i]);
  }
  /* allgather: everyone sends its rank*10 */
  int me = rank * 10;
  for (int i = 0; i < nin; ++i) recv[i] = -7;
  rc = MPI_Neighbor_allgather(&me, 1, MPI_INT, recv, 1, MPI_INT, comm);
  EXPECT(rc == MPI_SUCCESS, "%s allgather rc %d", what, rc);
  for (int i = 0; i < nin; ++i) {
    int want = expect[i] < 0 ? -7 : (expect[i] / 1000) * 10;
    EXPECT(recv[i] == want, "%s allgather slot %d: %d, want %d", what, i, recv[i], want);
  }
  /* allgatherv: slot i at displacement 2 * (nin - 1 - i) (reversed, gaps) */
  int *rcounts = malloc(sizeof(int) * (size_t)(nin + 1)), *rdispls = malloc(sizeof(int) * (size_t)(nin + 1));
  for (int i = 0; i < 2 * nin; ++i) recv[i] = -7;
  for (int i = 0; i < nin; ++i) {
    rcounts[i] = 1;
    rdispls[i] = 2 * (nin - 1 - i);
  }
  rc = MPI_Neighbor_allgatherv(&me, 1, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm);
  EXPECT(rc == MPI_SUCCESS, "%s allgatherv rc %d", what, rc);
  for (int i = 0; i < nin; ++i) {
    int want = expect[i] < 0 ? -7 : (expect[i] / 1000) * 10;
    EXPECT(recv[rdispls[i]] == want && recv[rdispls[i] + 1] == -7, "%s allgatherv slot %d: %d", what, i, recv[rdispls[i]]);
  }
  /* alltoallv: send block j from displacement nout - 1 - j */
  int *scounts = malloc(sizeof(int) * (size_t)(nout + 1)), *sdispls = malloc(sizeof(int) * (size_t)(nout + 1));
  int *rev = malloc(sizeof(int) * (size_t)(nout + 1));
  for (int j = 0; j < nout; ++j) {
    scounts[j] = 1;
    sdispls[j] = nout - 1 - j;
    rev[nout - 1 - j] = sendv[j];
  }
  for (int i = 0; i < 2 * nin; ++i) recv[i] = -7;
  rc = MPI_Neighbor_alltoallv(rev, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm);
  EXPECT(rc == MPI_SUCCESS, "%s alltoallv rc %d", what, rc);
  for (int i = 0; i < nin; ++i) {
    EXPECT(recv[rdispls[i]] == (expect[i] < 0 ? -7 : expect[i]), "%s alltoallv slot %d: %d", what, i, recv[rdispls[i]]);
  }
  /* alltoallw: received as an int with an extent of two ints (staged), byte displacements */
  MPI_Datatype wide;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &wide);
  MPI_Type_commit(&wide);
  MPI_Aint *sd = malloc(sizeof(MPI_Aint) * (size_t)(nout + 1)), *rd = malloc(sizeof(MPI_Aint) * (size_t)(nin + 1));
  MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)(nout + 1)), *rt = malloc(sizeof(MPI_Datatype) * (size_t)(nin + 1));
  for (int j = 0; j < nout; ++j) {
    sd[j] = (MPI_Aint)(j * sizeof(int));
    st[j] = MPI_INT;
  }
  for (int i = 0; i < nin; ++i) {
    rd[i] = (MPI_Aint)(2 * i * sizeof(int));
    rt[i] = i % 2 ? wide : MPI_INT;
  }
  for (int i = 0; i < 2 * nin; ++i) recv[i] = -7;
  rc = MPI_Neighbor_alltoallw(sendv, scounts, sd, st, recv, rcounts, rd, rt, comm);
  EXPECT(rc == MPI_SUCCESS, "%s alltoallw rc %d", what, rc);
  for (int i = 0; i < nin; ++i) {
    EXPECT(recv[2 * i] == (expect[i] < 0 ? -7 : expect[i]), "%s alltoallw slot %d: %d", what, i, recv[2 * i]);
  }
  /* the nonblocking forms, two at once, overlapped with computation */
  int *recv2 = malloc(sizeof(int) * (size_t)(nin + 1));
  for (int i = 0; i < nin; ++i) recv[i] = recv2[i] = -7;
  MPI_Request q[2];
  rc = MPI_Ineighbor_alltoall(sendv, 1, MPI_INT, recv, 1, MPI_INT, comm, &q[0]);
  EXPECT(rc == MPI_SUCCESS, "%s ialltoall rc %d", what, rc);
  rc = MPI_Ineighbor_allgather(&me, 1, MPI_INT, recv2, 1, MPI_INT, comm, &q[1]);
  EXPECT(rc == MPI_SUCCESS, "%s iallgather rc %d", what, rc);
  volatile double x = 0;
  int done = 0;
  while (!done) {
    for (int k = 0; k < 1000; ++k) x += k;
    MPI_Testall(2, q, &done, MPI_STATUSES_IGNORE);
  }
  for (int i = 0; i < nin; ++i) {
    EXPECT(recv[i] == (expect[i] < 0 ? -7 : expect[i]), "%s ialltoall slot %d: %d", what, i, recv[i]);
    EXPECT(recv2[i] == (expect[i] < 0 ? -7 : (expect[i] / 1000) * 10), "%s iallgather slot %d: %d", what, i, recv2[i]);
  }
  for (int i = 0; i < 2 * nin; ++i) recv[i] = -7;
  MPI_Request r3[3];
  int *recv3 = malloc(sizeof(int) * (size_t)(2 * nin + 1)), *recv4 = malloc(sizeof(int) * (size_t)(2 * nin + 1));
  for (int i = 0; i < 2 * nin; ++i) recv3[i] = recv4[i] = -7;
  MPI_Ineighbor_allgatherv(&me, 1, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm, &r3[0]);
  MPI_Ineighbor_alltoallv(rev, scounts, sdispls, MPI_INT, recv3, rcounts, rdispls, MPI_INT, comm, &r3[1]);
  MPI_Ineighbor_alltoallw(sendv, scounts, sd, st, recv4, rcounts, rd, rt, comm, &r3[2]);
  MPI_Type_free(&wide); /* the library holds it while the request runs */
  rc = MPI_Waitall(3, r3, MPI_STATUSES_IGNORE);
  EXPECT(rc == MPI_SUCCESS, "%s i*v/w rc %d", what, rc);
  for (int i = 0; i < nin; ++i) {
    int e = expect[i];
    EXPECT(recv[rdispls[i]] == (e < 0 ? -7 : (e / 1000) * 10), "%s iallgatherv slot %d", what, i);
    EXPECT(recv3[rdispls[i]] == (e < 0 ? -7 : e), "%s ialltoallv slot %d: %d", what, i, recv3[rdispls[i]]);
    EXPECT(recv4[2 * i] == (e < 0 ? -7 : e), "%s ialltoallw slot %d: %d", what, i, recv4[2 * i]);
  }
  free(sendv); free(recv); free(recv2); free(recv3); free(recv4); free(rcounts); free(rdispls);
  free(scounts); free(sdispls); free(rev); free(sd); free(rd); free(st); free(rt);
}

/* The j-th destination of process p's list equal to `to`, counting `k` earlier ones. */
static int nth_slot(const int *dsts, int n, int to, int k) {
  for (int j = 0; j < n; ++j) {
    if (dsts[j] == to && k-- == 0) return j;
  }
  return -1;
}

/* Cartesian: slot 2d gets what the -1 neighbour sent towards its +1 (its block 2d+1). */
static void cart_case(int ndims, const int *dims, const int *periods, const char *what) {
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart);
  if (cart == MPI_COMM_NULL) return;
  int expect[16];
  for (int d = 0; d < ndims; ++d) {
    int minus, plus;
    MPI_Cart_shift(cart, d, 1, &minus, &plus);
    expect[2 * d] = minus == MPI_PROC_NULL ? -1 : 1000 * minus + 2 * d + 1;
    expect[2 * d + 1] = plus == MPI_PROC_NULL ? -1 : 1000 * plus + 2 * d;
  }
  int crank;
  MPI_Comm_rank(cart, &crank);
  EXPECT(crank == rank, "%s: cart rank %d", what, crank);
  check_all_forms(cart, 2 * ndims, expect, 2 * ndims, what);
  MPI_Comm_free(&cart);
}

static void dist_adjacent_case(void) {
  /* destinations of p: p+1, p+2, p+1 (repeated edge); sources: the mirror image */
  int dst[3], src[3], sw[3], dw[3], expect[3];
  for (int j = 0; j < 3; ++j) {
    dst[j] = (rank + (j == 1 ? 2 : 1)) % size;
    src[j] = (rank - (j == 1 ? 2 : 1) + 2 * size) % size;
    dw[j] = 10 + j;
    sw[j] = 20 + j;
  }
  MPI_Comm g;
  int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, src, sw, 3, dst, dw, MPI_INFO_NULL, 1, &g);
  EXPECT(rc == MPI_SUCCESS, "adjacent create rc %d", rc);
  int kind = -1, in = -1, out = -1, weighted = -1;
  MPI_Topo_test(g, &kind);
  EXPECT(kind == MPI_DIST_GRAPH, "topo_test %d", kind);
  MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
  EXPECT(in == 3 && out == 3 && weighted == 1, "count %d %d %d", in, out, weighted);
  int s2[3], w2[3], d2[3], dw2[3];
  MPI_Dist_graph_neighbors(g, 3, s2, w2, 3, d2, dw2);
  for (int j = 0; j < 3; ++j) {
    EXPECT(s2[j] == src[j] && w2[j] == sw[j] && d2[j] == dst[j] && dw2[j] == dw[j], "neighbors %d", j);
  }
  for (int i = 0; i < 3; ++i) {
    const int s = src[i];
    int k = 0;
    for (int e = 0; e < i; ++e) k += src[e] == s;
    int sdst[3];
    for (int j = 0; j < 3; ++j) sdst[j] = (s + (j == 1 ? 2 : 1)) % size;
    expect[i] = 1000 * s + nth_slot(sdst, 3, rank, k);
  }
  check_all_forms(g, 3, expect, 3, "dist adjacent");
  MPI_Comm dup;
  MPI_Comm_dup(g, &dup);
  MPI_Dist_graph_neighbors_count(dup, &in, &out, &weighted);
  EXPECT(in == 3 && out == 3, "dup keeps the graph: %d %d", in, out);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&g);
}

/* Every process names the edge (p -> p+1) for itself and (p+3 -> p) for someone else. */
static void dist_create_case(int weighted) {
  int sources[2] = {rank, (rank + 3) % size}, degrees[2] = {1, 1};
  int dests[2] = {(rank + 1) % size, rank}, weights[2] = {rank, 100 + rank};
  MPI_Comm g;
  int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 2, sources, degrees, dests,
                                 weighted ? weights : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  EXPECT(rc == MPI_SUCCESS, "create rc %d", rc);
  int in = -1, out = -1, w = -1;
  MPI_Dist_graph_neighbors_count(g, &in, &out, &w);
  EXPECT(in == 2 && out == 2 && w == weighted, "create count %d %d %d", in, out, w);
  int s[2], sw[2], d[2], dw[2];
  MPI_Dist_graph_neighbors(g, 2, s, weighted ? sw : MPI_UNWEIGHTED, 2, d, weighted ? dw : MPI_UNWEIGHTED);
  /* in-edges: from p-1 (named by p-1, weight p-1) and from p+3 (named by p, weight 100 + p) */
  const int left = (rank - 1 + size) % size, far = (rank + 3) % size, back = (rank - 3 + 3 * size) % size;
  int seen_left = 0, seen_far = 0, seen_right = 0, seen_back = 0;
  for (int i = 0; i < 2; ++i) {
    if (s[i] == left && (!weighted || sw[i] == left) && !seen_left) seen_left = 1;
    else if (s[i] == far && (!weighted || sw[i] == 100 + rank)) seen_far = 1;
    if (d[i] == (rank + 1) % size && (!weighted || dw[i] == rank) && !seen_right) seen_right = 1;
    else if (d[i] == back && (!weighted || dw[i] == 100 + back)) seen_back = 1;
  }
  EXPECT(seen_left && seen_far && seen_right && seen_back, "create edges: in %d %d out %d %d",
         s[0], s[1], d[0], d[1]);
  int mine = rank, got[2] = {-1, -1};
  rc = MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, g);
  EXPECT(rc == MPI_SUCCESS && got[0] == s[0] && got[1] == s[1], "create allgather %d %d", got[0], got[1]);
  MPI_Comm_free(&g);
}

static void bad_input(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0, y[4];
  MPI_Request q = MPI_REQUEST_NULL;
  EXPECT(cls(MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD)) == MPI_ERR_TOPOLOGY, "no topology");
  EXPECT(cls(MPI_Ineighbor_alltoall(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &q)) == MPI_ERR_TOPOLOGY && q == MPI_REQUEST_NULL, "i: no topology");
  int one = (rank + 1) % size, bad = size, neg = -1;
  MPI_Comm g = MPI_COMM_NULL;
  EXPECT(cls(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g)) == MPI_ERR_ARG, "negative indegree");
  EXPECT(cls(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 1, &one, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g)) == MPI_ERR_RANK, "source out of range");
  EXPECT(cls(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &one, &neg, 1, &one, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g)) == MPI_ERR_TOPOLOGY, "unweighted on one side");
  EXPECT(g == MPI_COMM_NULL, "no communicator after errors");
  /* every process gives the same bad argument: no process goes on alone */
  EXPECT(cls(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &bad, &one, &one, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g)) == MPI_ERR_RANK, "create: source out of range");
  int deg = -1;
  EXPECT(cls(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &deg, &one, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g)) == MPI_ERR_ARG, "create: negative degree");
  int dims[1] = {size}, periods[1] = {1};
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  int in, out, w;
  EXPECT(cls(MPI_Dist_graph_neighbors_count(ring, &in, &out, &w)) == MPI_ERR_TOPOLOGY, "cart is not a dist graph");
  EXPECT(cls(MPI_Neighbor_alltoall(y, -1, MPI_INT, y, 1, MPI_INT, ring)) == MPI_ERR_COUNT, "negative count");
  EXPECT(cls(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, ring)) == MPI_ERR_BUFFER, "in place");
  EXPECT(cls(MPI_Neighbor_allgather(&x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, ring)) == MPI_ERR_TYPE, "null type");
  EXPECT(cls(MPI_Neighbor_alltoallv(y, NULL, NULL, MPI_INT, y, NULL, NULL, MPI_INT, ring)) == MPI_ERR_ARG, "null counts");
  /* the ring still works after the refused calls */
  int me = rank, got[2] = {-1, -1};
  EXPECT(MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, ring) == MPI_SUCCESS &&
         got[0] == (rank - 1 + size) % size && got[1] == (rank + 1) % size, "ring after errors");
  MPI_Comm_free(&ring);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {size, 1}, periods[2] = {1, 1};
  cart_case(1, dims, periods, "ring");
  int d2[2] = {0, 0}, nop[2] = {0, 0};
  MPI_Dims_create(size, 2, d2);
  cart_case(2, d2, nop, "grid");
  if (size % 2 == 0) {
    int two[2] = {2, size / 2};
    cart_case(2, two, periods, "extent 2");
  }
  cart_case(2, dims, periods, "extent 1"); /* second dimension: myself on both sides */
  /* graph ring: neighbours left, right */
  int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * 2 * (size_t)size);
  for (int p = 0; p < size; ++p) {
    index[p] = 2 * (p + 1);
    edges[2 * p] = (p - 1 + size) % size;
    edges[2 * p + 1] = (p + 1) % size;
  }
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
  /* the left neighbour sent to me as its right (block 1), the right one as its left (block 0);
   * with 1 or 2 processes the same process twice: blocks pair in order */
  int expect[2];
  const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  if (left == right) {
    expect[0] = 1000 * left + 0;
    expect[1] = 1000 * left + 1;
  } else {
    expect[0] = 1000 * left + 1;
    expect[1] = 1000 * right + 0;
  }
  check_all_forms(graph, 2, expect, 2, "graph");
  MPI_Comm_free(&graph);
  free(index);
  free(edges);
  dist_adjacent_case();
  dist_create_case(1);
  dist_create_case(0);
  bad_input();
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "neighbor: OK\n" : "neighbor: %d failures\n", total);
  MPI_Finalize();
  return total != 0;
}
