/* Several MPI_Comm_idup of one intercommunicator at once (issue 19), the way MPICH's comm_idup_nb
 * and comm_idup_isend run them: interleaved with nonblocking collectives on the intercommunicator
 * (MPI_ROOT/MPI_PROC_NULL broadcasts, allreduces), with an idup of the local intracommunicator,
 * and with a blocking MPI_Comm_split of the intercommunicator called while they are pending (it
 * must wait its turn, not pair its agreements with theirs). The local duplicate is an
 * MPI_Comm_idup_with_info whose info is freed at once (its hints must still arrive). Completed
 * in changing orders.
 *   idup_inter [LOOPS [DUPS]]   (LOOPS default 10; DUPS 1..8, default 2)
 * Every duplicate must be an intercommunicator of its own with the same groups: each member
 * sends to its remote partner on every duplicate with one tag, in reverse order, and receives
 * in order; an allreduce on each sums the remote group. A wrong context id shows as a wrong
 * value, an error or a hang (the watchdog). The last line is "idup_inter: OK (L loops)". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxDups = 8, kMaxRequests = 4 * kMaxDups + 4 };

static int wrank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

/* n intercommunicators with the groups of `ic`, each its own. */
static void check_inter(MPI_Comm ic, MPI_Comm *dups, int n, int tag_base) {
  int rank, size, rsize;
  MPI_Comm_rank(ic, &rank);
  MPI_Comm_size(ic, &size);
  MPI_Comm_remote_size(ic, &rsize);
  MPI_Request sends[kMaxDups];
  int out[kMaxDups], in[kMaxDups];
  const int peer = rank % rsize, expect_from = rank < rsize;  /* a partner, if any, sends to me */
  for (int j = n - 1; j >= 0; --j) {
    int flag = 0, cmp, rs;
    MPI_Comm_test_inter(dups[j], &flag);
    MPI_Comm_remote_size(dups[j], &rs);
    MPI_Comm_compare(ic, dups[j], &cmp);
    CHECK(flag && rs == rsize && cmp == MPI_CONGRUENT, "duplicate %d: inter %d remote %d cmp %d", j, flag, rs, cmp);
    out[j] = tag_base + 100 * j + rank;
    OK(MPI_Isend(&out[j], 1, MPI_INT, peer, 3, dups[j], &sends[j]));
  }
  /* Remote rank r sends to my rank r % size: I hear from every r with r % size == rank. */
  for (int j = 0; j < n; ++j) {
    for (int r = rank; r < rsize; r += size) {
      OK(MPI_Recv(&in[j], 1, MPI_INT, r, 3, dups[j], MPI_STATUS_IGNORE));
      CHECK(in[j] == tag_base + 100 * j + r, "duplicate %d: got %d from %d", j, in[j], r);
    }
  }
  (void)expect_from;
  OK(MPI_Waitall(n, sends, MPI_STATUSES_IGNORE));
  for (int j = 0; j < n; ++j) {
    int one = 1, sum = 0;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dups[j]));
    CHECK(sum == rsize, "allreduce on duplicate %d: %d, remote size %d", j, sum, rsize);
  }
}

static void complete(MPI_Request *reqs, int n, int how) {
  int idx, flag, done = 0, outcount, indices[kMaxRequests];
  switch (how % 3) {
    case 0:
      OK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
      break;
    case 1:
      for (int i = n - 1; i >= 0; --i) OK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
      break;
    default:
      while (done < n) {
        OK(MPI_Testsome(n, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
        if (outcount != MPI_UNDEFINED) done += outcount;
        (void)idx;
        (void)flag;
      }
      break;
  }
}

int main(int argc, char **argv) {
  int wsize;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  const int loops = argc > 1 ? atoi(argv[1]) : 10, ndups = argc > 2 ? atoi(argv[2]) : 2;
  if (wsize < 2 || loops < 1 || ndups < 1 || ndups > kMaxDups) {
    if (wrank == 0) fprintf(stderr, "usage: idup_inter [LOOPS [DUPS 1..%d]] on 2 or more ranks\n", kMaxDups);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* Lower and upper half (the lower one the larger for odd sizes). */
  const int low = wrank < (wsize + 1) / 2;
  MPI_Comm local, ic;
  OK(MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &local));
  OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? (wsize + 1) / 2 : 0, 7, &ic));
  int rank, size, rsize;
  MPI_Comm_rank(ic, &rank);
  MPI_Comm_size(ic, &size);
  MPI_Comm_remote_size(ic, &rsize);
  for (int loop = 0; loop < loops && failures == 0; ++loop) {
    MPI_Comm dups[kMaxDups], ldup, half;
    MPI_Request reqs[kMaxRequests];
    int n = 0, bval[kMaxDups], in[kMaxDups], sum[kMaxDups];
    for (int j = 0; j < ndups; ++j) {
      /* The low group's rank 0 is the root of a broadcast to the other group. */
      const int root = low ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
      bval[j] = low ? 500 + j : -1;
      in[j] = 1;
      if (j % 2 == 0) OK(MPI_Ibcast(&bval[j], 1, MPI_INT, root, ic, &reqs[n++]));
      OK(MPI_Comm_idup(ic, &dups[j], &reqs[n++]));
      if (j % 2 == 1) OK(MPI_Iallreduce(&in[j], &sum[j], 1, MPI_INT, MPI_SUM, ic, &reqs[n++]));
      if (j == 0) {  /* with info (MPI-4): freed at once, the duplicate still gets its hints */
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "idup_inter_hint", loop % 2 ? "odd" : "even");
        OK(MPI_Comm_idup_with_info(local, info, &ldup, &reqs[n++]));
        MPI_Info_free(&info);
      }
    }
    /* Blocking, with the idups pending: runs after them, in the same order everywhere. */
    OK(MPI_Comm_split(ic, rank % 2, rank, &half));
    complete(reqs, n, loop);
    for (int j = 0; j < ndups; ++j) {
      if (j % 2 == 0) CHECK(bval[j] == 500 + j, "loop %d: ibcast %d gave %d", loop, j, bval[j]);
      else CHECK(sum[j] == rsize, "loop %d: iallreduce %d gave %d", loop, j, sum[j]);
    }
    check_inter(ic, dups, ndups, 1000 * loop);
    int lsum = 0, one = 1;
    OK(MPI_Allreduce(&one, &lsum, 1, MPI_INT, MPI_SUM, ldup));
    CHECK(lsum == size, "loop %d: local duplicate sums %d", loop, lsum);
    MPI_Info got;
    char value[16] = "";
    int flag = 0;
    OK(MPI_Comm_get_info(ldup, &got));
    MPI_Info_get(got, "idup_inter_hint", (int)sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, loop % 2 ? "odd" : "even") == 0, "loop %d: hint %d '%s'", loop, flag, value);
    MPI_Info_free(&got);
    /* The split's parts exist where both groups have the color. */
    const int other_has = (rank % 2 == 0) || rsize > 1;
    CHECK((half != MPI_COMM_NULL) == other_has, "loop %d: split gave %s", loop, half == MPI_COMM_NULL ? "null" : "a communicator");
    if (half != MPI_COMM_NULL) {
      int hs = 0, hone = 1;
      OK(MPI_Allreduce(&hone, &hs, 1, MPI_INT, MPI_SUM, half));
      CHECK(hs == rsize / 2 + (rank % 2 == 0 ? rsize % 2 : 0), "loop %d: split part sums %d", loop, hs);
      MPI_Comm_free(&half);
    }
    for (int j = 0; j < ndups; ++j) MPI_Comm_free(&dups[j]);
    MPI_Comm_free(&ldup);
  }
  MPI_Comm_free(&ic);
  MPI_Comm_free(&local);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wrank == 0) printf(all == 0 ? "idup_inter: OK (%d loops)\n" : "idup_inter: %d failures\n", all == 0 ? loops : all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
