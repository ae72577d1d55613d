/* MPI-4 persistent collectives (MPI_Allreduce_init & co., MPI-4.0 6.13 and 8.8):
 * every _init is made once and started ROUNDS times with new buffer contents each round (the
 * buffers are read at start, not at init), checked after each MPI_Wait; half the rounds start
 * them all with one MPI_Startall and complete them with MPI_Waitall (every 4th round in the
 * reverse order at odd ranks), the others one by one with MPI_Start + MPI_Test/MPI_Wait.
 * Then the error cases: MPI_Start of an active request, MPI_Request_free and MPI_Cancel of an
 * active one (MPI_ERR_REQUEST), a bad info handle at init (MPI_ERR_INFO), an argument error at
 * start (MPI_ERR_COUNT, the request stays inactive and can be freed), a start after
 * MPI_Comm_free (MPI_ERR_COMM) or MPI_Type_free (MPI_ERR_TYPE), and an intercommunicator's
 * Allreduce_init. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, bad;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad++; } } while (0)

enum { NREQ = 22, MAXN = 16 };
/* Per-call buffers, sized for up to MAXN ranks and 2 elements per peer. */
static int sb[NREQ][2 * MAXN], rb[NREQ][2 * MAXN];
static int cnt[MAXN], dsp[MAXN], cnt2[MAXN], dsp2[MAXN];
static MPI_Datatype types[MAXN];
static MPI_Aint adsp2[MAXN];

static int val(int r, int round, int k) { return 1000 * round + 10 * r + k; }

/* Round `round`'s send contents: every element names its sender, the round and its index. */
static void fill(int round) {
  for (int q = 0; q < NREQ; q++) {
    for (int k = 0; k < 2 * MAXN; k++) { sb[q][k] = val(rank, round, k); rb[q][k] = -1; }
  }
}

static void check_all(int round, const int *left, const int *right) {
  const int R = round;
  int sum = 0, prefix = 0;
  for (int r = 0; r < size; r++) sum += val(r, R, 0);
  for (int r = 0; r <= rank; r++) prefix += val(r, R, 0);
  const int *b = rank == 0 ? sb[1] : rb[1];
  CHECK(b[0] == val(0, R, 0), "round %d: bcast %d", R, b[0]);
  if (rank == 0) CHECK(rb[2][0] == sum, "round %d: reduce %d != %d", R, rb[2][0], sum);
  CHECK(rb[3][0] == sum, "round %d: allreduce %d != %d", R, rb[3][0], sum);
  int rs = 0, rsb = 0;  /* reduce_scatter: my block is element `rank` of everyone's */
  for (int r = 0; r < size; r++) { rs += val(r, R, rank); rsb += val(r, R, rank); }
  CHECK(rb[4][0] == rs, "round %d: reduce_scatter %d != %d", R, rb[4][0], rs);
  CHECK(rb[5][0] == rsb, "round %d: reduce_scatter_block %d != %d", R, rb[5][0], rsb);
  CHECK(rb[6][0] == prefix, "round %d: scan %d != %d", R, rb[6][0], prefix);
  if (rank > 0) CHECK(rb[7][0] == prefix - val(rank, R, 0), "round %d: exscan %d", R, rb[7][0]);
  for (int r = 0; r < size; r++) {
    if (rank == 0) {
      CHECK(rb[8][r] == val(r, R, 0), "round %d: gather[%d] %d", R, r, rb[8][r]);
      CHECK(rb[9][r] == val(r, R, 0), "round %d: gatherv[%d] %d", R, r, rb[9][r]);
    }
    CHECK(rb[12][r] == val(r, R, 0), "round %d: allgather[%d] %d", R, r, rb[12][r]);
    CHECK(rb[13][r] == val(r, R, 0), "round %d: allgatherv[%d] %d", R, r, rb[13][r]);
    CHECK(rb[14][r] == val(r, R, rank), "round %d: alltoall[%d] %d", R, r, rb[14][r]);
    CHECK(rb[15][r] == val(r, R, rank), "round %d: alltoallv[%d] %d", R, r, rb[15][r]);
    CHECK(rb[16][r] == val(r, R, rank), "round %d: alltoallw[%d] %d", R, r, rb[16][r]);
  }
  CHECK(rb[10][0] == val(0, R, rank), "round %d: scatter %d", R, rb[10][0]);
  CHECK(rb[11][0] == val(0, R, rank), "round %d: scatterv %d", R, rb[11][0]);
  /* ring neighbours (a periodic 1-D Cartesian communicator): sources left, right */
  for (int q = 17; q <= 21; q++) {
    const int k = q == 17 || q == 18 ? 0 : -1;  /* allgather(v): element 0; alltoall: by dest */
    const int from_left = k == 0 ? val(*left, R, 0) : val(*left, R, 1);
    const int from_right = val(*right, R, 0);
    CHECK(rb[q][0] == from_left && rb[q][1] == from_right,
          "round %d: neighbour call %d got %d %d, expected %d %d", R, q, rb[q][0], rb[q][1],
          from_left, from_right);
  }
}

static void make_all(MPI_Comm comm, MPI_Comm ring, MPI_Request *q) {
  MPI_Info info;
  MPI_Info_create(&info);  /* hints are accepted (and unused) */
  MPI_Barrier_init(comm, info, &q[0]);
  MPI_Bcast_init(rank == 0 ? sb[1] : rb[1], 1, MPI_INT, 0, comm, info, &q[1]);
  MPI_Info_free(&info);    /* the requests do not need it any more */
  MPI_Reduce_init(sb[2], rb[2], 1, MPI_INT, MPI_SUM, 0, comm, MPI_INFO_NULL, &q[2]);
  MPI_Allreduce_init(sb[3], rb[3], 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &q[3]);
  for (int r = 0; r < size; r++) { cnt[r] = 1; dsp[r] = r; types[r] = MPI_INT; }
  MPI_Reduce_scatter_init(sb[4], rb[4], cnt, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &q[4]);
  MPI_Reduce_scatter_block_init(sb[5], rb[5], 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &q[5]);
  MPI_Scan_init(sb[6], rb[6], 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &q[6]);
  MPI_Exscan_init(sb[7], rb[7], 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &q[7]);
  MPI_Gather_init(sb[8], 1, MPI_INT, rb[8], 1, MPI_INT, 0, comm, MPI_INFO_NULL, &q[8]);
  MPI_Gatherv_init(sb[9], 1, MPI_INT, rb[9], cnt, dsp, MPI_INT, 0, comm, MPI_INFO_NULL, &q[9]);
  /* scatter from rank 0: element r of its buffer goes to rank r */
  MPI_Scatter_init(sb[10], 1, MPI_INT, rb[10], 1, MPI_INT, 0, comm, MPI_INFO_NULL, &q[10]);
  MPI_Scatterv_init(sb[11], cnt, dsp, MPI_INT, rb[11], 1, MPI_INT, 0, comm, MPI_INFO_NULL, &q[11]);
  MPI_Allgather_init(sb[12], 1, MPI_INT, rb[12], 1, MPI_INT, comm, MPI_INFO_NULL, &q[12]);
  MPI_Allgatherv_init(sb[13], 1, MPI_INT, rb[13], cnt, dsp, MPI_INT, comm, MPI_INFO_NULL, &q[13]);
  MPI_Alltoall_init(sb[14], 1, MPI_INT, rb[14], 1, MPI_INT, comm, MPI_INFO_NULL, &q[14]);
  MPI_Alltoallv_init(sb[15], cnt, dsp, MPI_INT, rb[15], cnt, dsp, MPI_INT, comm, MPI_INFO_NULL,
                     &q[15]);
  static int wdsp[MAXN];  /* byte displacements; the request keeps the pointer */
  for (int r = 0; r < size; r++) wdsp[r] = r * (int)sizeof(int);
  MPI_Alltoallw_init(sb[16], cnt, wdsp, types, rb[16], cnt, wdsp, types, comm, MPI_INFO_NULL,
                     &q[16]);
  /* Neighbourhood: 2 neighbours (left, right) on the ring; alltoall sends element 0 to the
   * left neighbour and element 1 to the right one. */
  for (int i = 0; i < 2; i++) { cnt2[i] = 1; dsp2[i] = i; adsp2[i] = (MPI_Aint)(i * sizeof(int)); }
  MPI_Neighbor_allgather_init(sb[17], 1, MPI_INT, rb[17], 1, MPI_INT, ring, MPI_INFO_NULL, &q[17]);
  MPI_Neighbor_allgatherv_init(sb[18], 1, MPI_INT, rb[18], cnt2, dsp2, MPI_INT, ring,
                               MPI_INFO_NULL, &q[18]);
  MPI_Neighbor_alltoall_init(sb[19], 1, MPI_INT, rb[19], 1, MPI_INT, ring, MPI_INFO_NULL, &q[19]);
  MPI_Neighbor_alltoallv_init(sb[20], cnt2, dsp2, MPI_INT, rb[20], cnt2, dsp2, MPI_INT, ring,
                              MPI_INFO_NULL, &q[20]);
  MPI_Neighbor_alltoallw_init(sb[21], cnt2, adsp2, types, rb[21], cnt2, adsp2, types, ring,
                              MPI_INFO_NULL, &q[21]);
}

static void error_cases(MPI_Comm comm, MPI_Request *q) {
  int cls = 0;
  /* an active request: Start, Request_free and Cancel are refused, it stays usable */
  CHECK(MPI_Start(&q[3]) == MPI_SUCCESS, "start");
  int rc = MPI_Start(&q[3]);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "start of an active request: %d", rc);
  rc = MPI_Request_free(&q[3]);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST && q[3] != MPI_REQUEST_NULL, "free of an active request: %d", rc);
  rc = MPI_Cancel(&q[3]);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "cancel of an active request: %d", rc);
  CHECK(MPI_Wait(&q[3], MPI_STATUS_IGNORE) == MPI_SUCCESS && q[3] != MPI_REQUEST_NULL, "wait");
  /* a wait on an inactive one returns at once, an empty status */
  MPI_Status st;
  CHECK(MPI_Wait(&q[3], &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_ANY_SOURCE, "inactive wait");
  /* a bad info handle at init */
  MPI_Request x = MPI_REQUEST_NULL;
  rc = MPI_Barrier_init(comm, (MPI_Info)12345, &x);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_INFO && x == MPI_REQUEST_NULL, "bad info: %d", rc);
  rc = MPI_Barrier_init(comm, MPI_INFO_NULL, NULL);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "NULL request pointer: %d", rc);
  /* a negative count: every member refuses it at start, locally; the request stays inactive */
  int one = 1, out = 0;
  CHECK(MPI_Allreduce_init(&one, &out, -1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &x) ==
        MPI_SUCCESS, "init with a bad count is only checked at start");
  rc = MPI_Start(&x);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT, "start with count -1: %d", rc);
  CHECK(MPI_Wait(&x, MPI_STATUS_IGNORE) == MPI_SUCCESS, "the refused request is inactive");
  CHECK(MPI_Request_free(&x) == MPI_SUCCESS && x == MPI_REQUEST_NULL, "free inactive");
  /* its communicator freed after init: the start is refused (its handle may name another
   * communicator by then), the request can still be freed */
  MPI_Comm d;
  MPI_Comm_dup(comm, &d);  /* inherits MPI_ERRORS_RETURN */
  MPI_Barrier_init(d, MPI_INFO_NULL, &x);
  MPI_Comm_free(&d);
  rc = MPI_Start(&x);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COMM, "start after MPI_Comm_free: %d", rc);
  CHECK(MPI_Request_free(&x) == MPI_SUCCESS, "free after MPI_Comm_free");
  /* its datatype freed after init: MPI_ERR_TYPE at start, never a crash */
  MPI_Datatype two;
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_commit(&two);
  int pair[2] = {rank, rank};
  MPI_Bcast_init(pair, 1, two, 0, comm, MPI_INFO_NULL, &x);
  MPI_Type_free(&two);
  rc = MPI_Start(&x);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TYPE, "start after MPI_Type_free: %d", rc);
  CHECK(MPI_Request_free(&x) == MPI_SUCCESS, "free after MPI_Type_free");
}

/* An intercommunicator (even world ranks against odd ones): Allreduce_init gives each group
 * the other group's sum. */
static void intercomm_case(void) {
  if (size < 2) return;
  MPI_Comm local, inter;
  const int color = rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
  int mine = 0, got = -1, expect = 0;
  MPI_Request q;
  MPI_Allreduce_init(&mine, &got, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &q);
  for (int round = 0; round < 3; round++) {
    mine = rank + 100 * round;
    expect = 0;
    for (int r = 0; r < size; r++) if (r % 2 != color) expect += r + 100 * round;
    CHECK(MPI_Start(&q) == MPI_SUCCESS && MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "intercomm round %d", round);
    CHECK(got == expect, "intercomm round %d: %d != %d", round, got, expect);
  }
  MPI_Request_free(&q);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 6;
  if (size > MAXN) { if (rank == 0) printf("persistent_coll: at most %d ranks\n", MAXN); MPI_Abort(MPI_COMM_WORLD, 2); }
  MPI_Comm comm, ring;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int dims[1] = {size}, periods[1] = {1}, left, right;
  MPI_Cart_create(comm, 1, dims, periods, 0, &ring);
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  MPI_Request q[NREQ];
  make_all(comm, ring, q);
  for (int round = 1; round <= rounds; round++) {
    fill(round);
    if (round % 2 == 0) {
      /* every 4th round the odd ranks start them in the reverse order: runs match by request
       * (the order of the inits), not by the order of the starts (MPI-4.0 6.13) */
      MPI_Request order[NREQ];
      const int reverse = round % 4 == 0 && rank % 2 == 1;
      for (int i = 0; i < NREQ; i++) order[i] = q[reverse ? NREQ - 1 - i : i];
      CHECK(MPI_Startall(NREQ, order) == MPI_SUCCESS, "round %d: startall", round);
      CHECK(MPI_Waitall(NREQ, order, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "round %d: waitall", round);
    } else {
      for (int i = 0; i < NREQ; i++) {
        CHECK(MPI_Start(&q[i]) == MPI_SUCCESS, "round %d: start %d", round, i);
        int flag = 0, rc = MPI_SUCCESS;
        if (i % 2 == 0) {
          while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE);
        } else {
          rc = MPI_Wait(&q[i], MPI_STATUS_IGNORE);
        }
        CHECK(rc == MPI_SUCCESS && q[i] != MPI_REQUEST_NULL, "round %d: complete %d", round, i);
      }
    }
    check_all(round, &left, &right);
  }
  error_cases(comm, q);
  for (int i = 0; i < NREQ; i++) {
    CHECK(MPI_Request_free(&q[i]) == MPI_SUCCESS && q[i] == MPI_REQUEST_NULL, "free %d", i);
  }
  MPI_Comm_free(&ring);
  intercomm_case();
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "persistent_coll: OK\n" : "persistent_coll: %d failures\n", total);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return total != 0;
}
