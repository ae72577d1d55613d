/* Communicator constructors in several threads of a process at once (MPI_THREAD_MULTIPLE; MPI
 * allows dup, split, create and idup on DIFFERENT communicators concurrently, issue 19).
 *   threads_construct [THREADS [ITERS]]   (THREADS 1..8, default 4; ITERS default 10)
 * Thread t of every rank owns parent[t] (a dup of MPI_COMM_WORLD made by the main thread) and,
 * per iteration, builds from it a dup, a split (by rank parity), a create (the even ranks) and
 * an idup (waited for at once), in an order that differs between threads (the threads of odd ranks start
 * their iteration late, so the members of one construction reach it at different times
 * relative to the process's other constructions). Every new communicator must be a working
 * one of its own: all threads then send on all of theirs with the same tag and the receives
 * come in the opposite order; an allreduce on each checks its membership. A wrong context-id
 * choice shows as a message on the wrong communicator, an error, or a hang (the watchdog).
 * The last line is "threads_construct: OK". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 8
enum { kKinds = 4 };

static int rank, size, nthreads = 4, iters = 10;
static MPI_Comm parent[MAX_THREADS];
#define CHECK_PROGRAM "threads_construct"
#include "thread_check.h"

/* Builds the kind-th communicator from p; MPI_COMM_NULL where this rank is not a member. */
static MPI_Comm build(MPI_Comm p, int kind) {
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Group g, evens;
  MPI_Request req;
  int range[1][3] = {{0, size - 1, 2}};
  switch (kind) {
    case 0:
      OK(MPI_Comm_dup(p, &c));
      break;
    case 1:
      OK(MPI_Comm_split(p, rank % 2, size - rank, &c));
      break;
    case 2:
      MPI_Comm_group(p, &g);
      MPI_Group_range_incl(g, 1, range, &evens);
      OK(MPI_Comm_create(p, evens, &c));
      MPI_Group_free(&evens);
      MPI_Group_free(&g);
      break;
    default:
      OK(MPI_Comm_idup(p, &c, &req));
      OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      break;
  }
  return c;
}

static void* worker(void* arg) {
  const int t = (int)(long)arg;
  for (int it = 0; it < iters; ++it) {
    if (rank % 2 == 1) usleep((useconds_t)(200 * ((t + it) % 3)));
    MPI_Comm made[kKinds];
    for (int k = 0; k < kKinds; ++k) made[k] = build(parent[t], (k + t) % kKinds);
    /* Same tag on every communicator, sent in one order and received in the other. */
    int out[kKinds], in[kKinds];
    MPI_Request sends[kKinds];
    int n = 0;
    for (int k = 0; k < kKinds; ++k) {
      sends[k] = MPI_REQUEST_NULL;
      if (made[k] == MPI_COMM_NULL) continue;
      int r, s;
      MPI_Comm_rank(made[k], &r);
      MPI_Comm_size(made[k], &s);
      out[k] = 100000 * t + 100 * k + r;
      OK(MPI_Isend(&out[k], 1, MPI_INT, (r + 1) % s, 7, made[k], &sends[k]));
      n++;
    }
    for (int k = kKinds - 1; k >= 0; --k) {
      if (made[k] == MPI_COMM_NULL) continue;
      int r, s, sum = 0, one = 1, expect;
      MPI_Comm_rank(made[k], &r);
      MPI_Comm_size(made[k], &s);
      OK(MPI_Recv(&in[k], 1, MPI_INT, (r + s - 1) % s, 7, made[k], MPI_STATUS_IGNORE));
      CHECK(in[k] == 100000 * t + 100 * k + (r + s - 1) % s, "thread %d comm %d got %d", t, k, in[k]);
      OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, made[k]));
      const int kind = (k + t) % kKinds;
      expect = kind == 1 ? (size + 1 - rank % 2) / 2 : kind == 2 ? (size + 1) / 2 : size;
      if (kind == 3) {  /* the idup's duplicate is congruent with its parent */
        int cmp;
        MPI_Comm_compare(parent[t], made[k], &cmp);
        CHECK(cmp == MPI_CONGRUENT, "thread %d: idup compares %d", t, cmp);
      }
      CHECK(sum == s && s == expect, "thread %d kind %d: size %d sum %d, expected %d", t, kind, s, sum, expect);
    }
    OK(MPI_Waitall(kKinds, sends, MPI_STATUSES_IGNORE));
    for (int k = 0; k < kKinds; ++k) {
      if (made[k] != MPI_COMM_NULL) OK(MPI_Comm_free(&made[k]));
    }
    (void)n;
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1) nthreads = atoi(argv[1]);
  if (argc > 2) iters = atoi(argv[2]);
  if (provided != MPI_THREAD_MULTIPLE || nthreads < 1 || nthreads > MAX_THREADS || iters < 1) {
    if (rank == 0) fprintf(stderr, "usage: threads_construct [THREADS 1..8 [ITERS]] (provided %d)\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int t = 0; t < nthreads; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &parent[t]);
  pthread_t th[MAX_THREADS];
  for (int t = 0; t < nthreads; ++t) pthread_create(&th[t], NULL, worker, (void*)(long)t);
  for (int t = 0; t < nthreads; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < nthreads; ++t) MPI_Comm_free(&parent[t]);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all == 0) printf("threads_construct: OK (%d threads x %d iterations)\n", nthreads, iters);
    else printf("threads_construct: %d failures\n", all);
  }
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
