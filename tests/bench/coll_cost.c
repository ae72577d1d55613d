/* The per-call software cost of an 8 B MPI_Bcast and MPI_Reduce at any number of ranks, each
 * rank counted on its own in instructions (coll_cost.sh runs it under valgrind
 * --tool=callgrind against ftmpi builds and Open MPI). Timing one call on a shared machine is
 * noise; counting its instructions is not, as long as no rank spins waiting: so the calls come
 * in batches of kBatch, and the ranks run their batch one after another, passing a token on the
 * point-to-point context outside the counted functions, in an order in which every rank's tree
 * parent (bcast) or children (reduce) already ran theirs. Every message a rank receives is then
 * already there, and its count is the receive path alone, not a poll loop.
 * The orders suit ftmpi's binomial trees and Open MPI's bintree/binary trees alike: a parent's
 * rank is below its children's in both (root 0), so ascending (bcast) and descending (reduce)
 * orders work at any size; 2 and 4 ranks keep the orders their first tables were taken with.
 *   coll_cost [batches]   (default 100) */
#include <mpi.h>
#include <stdlib.h>

enum { kBatch = 32, kMaxRanks = 64 };

__attribute__((noinline)) void bcast_batch(double *x) {
  for (int i = 0; i < kBatch; i++) MPI_Bcast(x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

__attribute__((noinline)) void reduce_batch(double *x, double *y) {
  for (int i = 0; i < kBatch; i++) MPI_Reduce(x, y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

/* Each batch: order[0] runs first, then passes the token on; order[size - 1] hands it back,
 * so the next batch of order[0] never finds a ring full of unread messages. */
static void batches(int n, int rank, int size, const int *order, int which) {
  double x = 1, y = 0;
  int token = 0, me = 0;
  for (int k = 0; k < size; k++)
    if (order[k] == rank) me = k;
  for (int b = 0; b < n; b++) {
    if (me > 0) MPI_Recv(&token, 1, MPI_INT, order[me - 1], 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    which ? reduce_batch(&x, &y) : bcast_batch(&x);
    MPI_Send(&token, 1, MPI_INT, order[(me + 1) % size], 9, MPI_COMM_WORLD);
    if (me == 0) MPI_Recv(&token, 1, MPI_INT, order[size - 1], 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > kMaxRanks) MPI_Abort(MPI_COMM_WORLD, 2);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  if (n < 1) n = 1;
  int bcast_order[kMaxRanks], reduce_order[kMaxRanks];
  for (int k = 0; k < size; k++) {
    bcast_order[k] = k;
    reduce_order[k] = size - 1 - k;
  }
  if (size == 4) { /* the orders the first 4-rank table was taken with (coll4_cost.c, merged here) */
    static const int b4[4] = {0, 2, 1, 3}, r4[4] = {3, 1, 2, 0};
    for (int k = 0; k < 4; k++) {
      bcast_order[k] = b4[k];
      reduce_order[k] = r4[k];
    }
  }
  batches(2, rank, size, bcast_order, 0); /* warm up: first-touch allocations are not the steady state */
  batches(2, rank, size, reduce_order, 1);
  batches(n, rank, size, bcast_order, 0);
  batches(n, rank, size, reduce_order, 1);
  MPI_Finalize();
  return 0;
}
