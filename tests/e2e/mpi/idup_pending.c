/* MPI_Comm_idup while other traffic is pending (issue 19): several duplications outstanding on
 * one communicator at once, interleaved with point-to-point messages, nonblocking collectives
 * and each other, completed in any order (Waitall, Waitany, Testany, Waitsome, reverse Wait),
 * and duplications of overlapping communicators (each process a member of two pairs, both
 * duplicated at once: a blocking MPI_Comm_dup would deadlock there). Every duplicate must be a
 * working communicator of its own: messages sent on each with the same tag, in an order the
 * receiver does not follow, arrive on the right one. Repeated `loops` times (argument, default
 * 10), so a race in the context-id choice shows as a wrong value, an error or a hang (the
 * watchdog). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Rank 0 posts, per duplication, a send to every other rank, the idup and a collective. */
enum { kDups = 5, kMaxRequests = 64 };

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* The n duplicates of `parent` are distinct working communicators: on each, every member sends
 * its rank plus the duplicate's index to the next member, all with tag 0, posted in reverse
 * order and received in order; then an allreduce on each. */
static void check_distinct(MPI_Comm parent, MPI_Comm *dups, int n) {
  int r, s;
  MPI_Comm_rank(parent, &r);
  MPI_Comm_size(parent, &s);
  MPI_Request sends[kDups];
  int out[kDups], in[kDups];
  for (int j = n - 1; j >= 0; --j) {
    int cmp;
    MPI_Comm_compare(parent, dups[j], &cmp);
    CHECK(cmp == MPI_CONGRUENT, "duplicate %d compares %d", j, cmp);
    out[j] = 1000 * j + r;
    MPI_Isend(&out[j], 1, MPI_INT, (r + 1) % s, 0, dups[j], &sends[j]);
  }
  for (int j = 0; j < n; ++j) {
    MPI_Recv(&in[j], 1, MPI_INT, (r + s - 1) % s, 0, dups[j], MPI_STATUS_IGNORE);
    CHECK(in[j] == 1000 * j + (r + s - 1) % s, "duplicate %d got %d", j, in[j]);
  }
  MPI_Waitall(n, sends, MPI_STATUSES_IGNORE);
  for (int j = 0; j < n; ++j) {
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dups[j]);
    CHECK(sum == s, "allreduce on duplicate %d: %d", j, sum);
  }
}

/* Completes n requests in the order `how` picks. */
static void complete(MPI_Request *reqs, int n, int how) {
  int done = 0, idx, flag, outcount, indices[kMaxRequests];
  switch (how % 4) {
    case 0:
      MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
      break;
    case 1:
      for (; done < n; ++done) MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE);
      break;
    case 2:
      while (done < n) {
        MPI_Testany(n, reqs, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx != MPI_UNDEFINED) done++;
      }
      break;
    default:
      while (done < n) {
        MPI_Waitsome(n, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED) done += outcount;
      }
      break;
  }
  for (int i = 0; i < n; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d still active", i);
}

/* MPICH's comm_idup_isend and comm_idup_nb in one: per duplication, rank 0's sends (the others'
 * receives posted after their idup) and a nonblocking collective on the parent. */
static void with_traffic(MPI_Comm parent, int loop) {
  int r, s;
  MPI_Comm_rank(parent, &r);
  MPI_Comm_size(parent, &s);
  if (kDups * (s + 1) > kMaxRequests) {
    fprintf(stderr, "idup_pending: at most %d processes\n", kMaxRequests / kDups - 1);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm dups[kDups];
  MPI_Request reqs[kMaxRequests];
  int cnt = 0, value[kDups], sums[kDups], one = 1, bval[kDups];
  for (int j = 0; j < kDups; ++j) {
    value[j] = r == 0 ? 815 + j : 0;
    bval[j] = r == 0 ? 7 * j : -1;
    if (r == 0) {
      for (int i = 1; i < s; ++i) MPI_Isend(&value[j], 1, MPI_INT, i, j, parent, &reqs[cnt++]);
      MPI_Comm_idup(parent, &dups[j], &reqs[cnt++]);
    } else {
      MPI_Comm_idup(parent, &dups[j], &reqs[cnt++]);
      MPI_Irecv(&value[j], 1, MPI_INT, 0, j, parent, &reqs[cnt++]);
    }
    if (j % 2 == 0) {
      MPI_Iallreduce(&one, &sums[j], 1, MPI_INT, MPI_SUM, parent, &reqs[cnt++]);
    } else {
      MPI_Ibcast(&bval[j], 1, MPI_INT, 0, parent, &reqs[cnt++]);
    }
  }
  complete(reqs, cnt, loop);
  for (int j = 0; j < kDups; ++j) {
    CHECK(value[j] == 815 + j, "message %d: %d", j, value[j]);
    if (j % 2 == 0) CHECK(sums[j] == s, "iallreduce %d: %d", j, sums[j]);
    else CHECK(bval[j] == 7 * j, "ibcast %d: %d", j, bval[j]);
  }
  check_distinct(parent, dups, kDups);
  for (int j = 0; j < kDups; ++j) MPI_Comm_free(&dups[j]);
}

/* Each process is in the pair (rank, rank+1) and in (rank-1, rank); both pairs are duplicated
 * at once, in the order the ring gives (the two members of a pair start its duplication at
 * different places in their own sequence). Then the halves of the world and the world itself,
 * at once. */
static void overlapping(int loop) {
  MPI_Comm pair[2], dup[2], half, dhalf, dworld;
  MPI_Request reqs[4];
  for (int i = 0; i < size; i++) {
    MPI_Comm c = MPI_COMM_NULL;
    const int member = rank == i || rank == (i + 1) % size;
    MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, rank == i ? 0 : 1, &c);
    if (rank == i) pair[0] = c;              /* I am its rank 0 */
    else if (rank == (i + 1) % size) pair[1] = c;  /* I am its rank 1 */
  }
  MPI_Comm_idup(pair[0], &dup[0], &reqs[0]);
  MPI_Comm_idup(pair[1], &dup[1], &reqs[1]);
  complete(reqs, 2, loop + 1);
  /* Checked pair by pair in ring order (pair i = (i, i+1)), which every member follows. */
  for (int n = 0; n < 2; ++n) {
    const int k = rank == 0 ? n : 1 - n;
    check_distinct(pair[k], &dup[k], 1);
    MPI_Comm_free(&dup[k]);
    MPI_Comm_free(&pair[k]);
  }
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_idup(half, &dhalf, &reqs[0]);
  MPI_Comm_idup(MPI_COMM_WORLD, &dworld, &reqs[1]);
  complete(reqs, 2, loop);
  check_distinct(half, &dhalf, 1);
  check_distinct(MPI_COMM_WORLD, &dworld, 1);
  /* Messages on the two new communicators may not mix either. */
  int v = rank, got = -1;
  MPI_Request sr[2];
  MPI_Isend(&v, 1, MPI_INT, rank, 5, dworld, &sr[0]);
  MPI_Isend(&v, 1, MPI_INT, 0, 5, dhalf, &sr[1]);
  MPI_Recv(&got, 1, MPI_INT, rank, 5, dworld, MPI_STATUS_IGNORE);
  CHECK(got == rank, "self message on the world's duplicate: %d", got);
  int hr, hs;
  MPI_Comm_rank(dhalf, &hr);
  MPI_Comm_size(dhalf, &hs);
  if (hr == 0) {
    for (int i = 0; i < hs; ++i) {
      MPI_Recv(&got, 1, MPI_INT, i, 5, dhalf, MPI_STATUS_IGNORE);
      CHECK(got % 2 == rank % 2, "message from another half: %d", got);
    }
  }
  MPI_Waitall(2, sr, MPI_STATUSES_IGNORE);
  MPI_Comm_free(&dhalf);
  MPI_Comm_free(&dworld);
  MPI_Comm_free(&half);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int loops = argc > 1 ? atoi(argv[1]) : 10;
  for (int loop = 0; loop < loops && failures == 0; ++loop) {
    with_traffic(MPI_COMM_WORLD, loop);
    if (size >= 2) overlapping(loop);
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all == 0 ? "idup_pending: OK (%d loops)\n" : "idup_pending: %d failures\n",
                        all == 0 ? loops : all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
