/* The per-call software cost of an 8 B MPI_Bcast and MPI_Reduce at 2 ranks, counted in
 * instructions (coll2_cost.sh runs it under valgrind --tool=callgrind, each rank its own
 * profile, against ftmpi and Open MPI). Timing one call on a shared machine is noise; counting
 * its instructions is not, as long as no rank spins waiting: so the calls come in batches of
 * kBatch, and the receiving rank starts its batch only after the sender finished its own
 * (a token on the point-to-point context, outside the counted functions), so every message it
 * receives is already there and its count is the receive path alone, not a poll loop.
 *   coll2_cost [batches]   (default 200; run with 2 ranks) */
#include <mpi.h>
#include <stdlib.h>

enum { kBatch = 32 };

__attribute__((noinline)) void bcast_batch(double *x) {
  for (int i = 0; i < kBatch; i++) MPI_Bcast(x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

__attribute__((noinline)) void reduce_batch(double *x, double *y) {
  for (int i = 0; i < kBatch; i++) MPI_Reduce(x, y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

/* sender runs its batch, then tells the receiver, which runs its batch and answers, so the next
 * batch of the sender never finds the receiver's ring full of unread messages. */
static void batches(int n, int rank, int sender, int which) {
  double x = 1, y = 0;
  int token = 0;
  for (int b = 0; b < n; b++) {
    if (rank == sender) {
      which ? reduce_batch(&x, &y) : bcast_batch(&x);
      MPI_Send(&token, 1, MPI_INT, 1 - sender, 9, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, 1 - sender, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_INT, sender, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      which ? reduce_batch(&x, &y) : bcast_batch(&x);
      MPI_Send(&token, 1, MPI_INT, sender, 9, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  int n = argc > 1 ? atoi(argv[1]) : 200;
  if (n < 1) n = 1;
  batches(2, rank, 0, 0); /* warm up: first-touch allocations are not the steady state */
  batches(2, rank, 1, 1);
  batches(n, rank, 0, 0); /* bcast: root 0 sends */
  batches(n, rank, 1, 1); /* reduce to 0: rank 1 sends */
  MPI_Finalize();
  return 0;
}
