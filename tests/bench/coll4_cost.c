/* The per-call software cost of an 8 B MPI_Bcast and MPI_Reduce at 4 ranks, each rank counted
 * on its own in instructions (coll4_cost.sh runs it under valgrind --tool=callgrind against
 * ftmpi builds and Open MPI). As in coll2_cost.c, no rank may poll inside a counted batch:
 * the ranks run their batch of kBatch calls one after another, passing a token on the
 * point-to-point context outside the counted functions, in an order in which every rank's
 * tree parent (bcast) or children (reduce) already ran theirs, for ftmpi's binomial trees and
 * Open MPI's bintree/binary trees alike: bcast 0, 2, 1, 3; reduce 3, 1, 2, 0.
 *   coll4_cost [batches]   (default 100; run with 4 ranks) */
#include <mpi.h>
#include <stdlib.h>

enum { kBatch = 32 };

__attribute__((noinline)) void bcast_batch(double *x) {
  for (int i = 0; i < kBatch; i++) MPI_Bcast(x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

__attribute__((noinline)) void reduce_batch(double *x, double *y) {
  for (int i = 0; i < kBatch; i++) MPI_Reduce(x, y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

/* Each batch: order[0] runs first, then passes the token on; order[3] hands it back. */
static void batches(int n, int rank, const int *order, int which) {
  double x = 1, y = 0;
  int token = 0, me = 0;
  for (int k = 0; k < 4; k++)
    if (order[k] == rank) me = k;
  for (int b = 0; b < n; b++) {
    if (me > 0) MPI_Recv(&token, 1, MPI_INT, order[me - 1], 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    which ? reduce_batch(&x, &y) : bcast_batch(&x);
    MPI_Send(&token, 1, MPI_INT, order[(me + 1) % 4], 9, MPI_COMM_WORLD);
    if (me == 0) MPI_Recv(&token, 1, MPI_INT, order[3], 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) MPI_Abort(MPI_COMM_WORLD, 2);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  if (n < 1) n = 1;
  static const int bcast_order[4] = {0, 2, 1, 3}, reduce_order[4] = {3, 1, 2, 0};
  batches(2, rank, bcast_order, 0); /* warm up: first-touch allocations are not the steady state */
  batches(2, rank, reduce_order, 1);
  batches(n, rank, bcast_order, 0);
  batches(n, rank, reduce_order, 1);
  MPI_Finalize();
  return 0;
}
