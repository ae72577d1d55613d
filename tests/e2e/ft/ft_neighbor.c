/* Neighbourhood collectives under failure:  ft_neighbor ROUNDS [relaxed]
 * Each round the survivors build a periodic ring (MPI_Cart_create) on the current communicator
 * and exchange with MPI_Neighbor_alltoall, then MPI_Ineighbor_allgather, in a loop; one rank
 * (never rank 0) SIGKILLs itself after the first exchange. Every successful exchange must carry
 * the neighbours' values of that iteration (no success with wrong data). The victim's two
 * neighbours cannot complete and must fail; every survivor must leave the loop with the mode's
 * failure class (MPI_ERR_OTHER in the FT-MPI modes, MPIX_ERR_PROC_FAILED in ULFM mode: the
 * others learn of the failure), and nobody may hang. Then
 * they repair (MPI_Comm_dup in SHRINK, MPIX_Comm_shrink in ULFM mode) and check
 * one exchange on a ring over the repaired communicator. "relaxed": FTMPI_COLL_MODE_RELAXED
 * (no outcome agreement, so survivors may fail at different iterations). */
#include <mpi.h>
#include <mpi-ext.h>
#include <ftmpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbc_check.h"

/* One exchange on the ring: blocking alltoall, then (nbc) a nonblocking allgather. Checks the
 * data of a successful one; returns the first error. */
static int exchange(MPI_Comm ring, int iter, int nbc) {
  int rank, size, left, right;
  MPI_Comm_rank(ring, &rank);
  MPI_Comm_size(ring, &size);
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  int send[2] = {rank * 1000 + iter * 10 + 0, rank * 1000 + iter * 10 + 1}, recv[2] = {-1, -1};
  int rc = MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, ring);
  if (rc != MPI_SUCCESS) return rc;
  /* the left neighbour sent me its block 1, the right one its block 0 */
  CHECK(recv[0] == left * 1000 + iter * 10 + (left == right ? 0 : 1) &&
        recv[1] == right * 1000 + iter * 10 + (left == right ? 1 : 0),
        "iteration %d: alltoall got %d %d from %d %d", iter, recv[0], recv[1], left, right);
  if (!nbc) return MPI_SUCCESS;
  int me = rank + 100 * iter, got[2] = {-1, -1};
  MPI_Request q;
  rc = MPI_Ineighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, ring, &q);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  CHECK(got[0] == left + 100 * iter && got[1] == right + 100 * iter,
        "iteration %d: allgather got %d %d", iter, got[0], got[1]);
  return MPI_SUCCESS;
}

static MPI_Comm make_ring(MPI_Comm comm) {
  int size, periods = 1;
  MPI_Comm_size(comm, &size);
  MPI_Comm ring = MPI_COMM_NULL;
  int rc = MPI_Cart_create(comm, 1, &size, &periods, 0, &ring);
  CHECK(rc == MPI_SUCCESS && ring != MPI_COMM_NULL, "ring over %d processes: %d", size, rc);
  if (ring != MPI_COMM_NULL) MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  return ring;
}

int main(int argc, char **argv) {
  const struct ft_start s = ft_start(&argc, &argv);
  const int rounds = s.rounds, ulfm = s.ulfm, expected = s.expected;
  MPI_Comm comm = s.comm;
  const int relaxed = argc > 2 && strcmp(argv[2], "relaxed") == 0;
  if (relaxed) FTMPI_Comm_set_coll_mode(comm, FTMPI_COLL_MODE_RELAXED);
  /* ATOMIC: the blocking exchange's outcome is agreed, so every survivor leaves the loop at the
   * same iteration; a nonblocking one in the loop (never agreed) would let some go on alone
   * into the next blocking one's vote. There the nonblocking form runs after the repair. */
  const int nbc_in_loop = relaxed || ulfm;
  for (int round = 0; round < rounds; round++) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 3) break;
    const int victim = 1 + round % (size - 1);
    MPI_Comm ring = make_ring(comm);
    if (ring == MPI_COMM_NULL) break;
    int rc = exchange(ring, 0, nbc_in_loop);
    CHECK(rc == MPI_SUCCESS, "round %d: first exchange gave %d", round, rc);
    /* The victim dies once every survivor is through the ring's construction and the first
     * exchange (each tells it so): a death during them could fail those at some survivors. */
    int token = round;
    if (rank == victim) {
      for (int i = 0; i < size - 1; i++) MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 99, comm, MPI_STATUS_IGNORE);
      raise(SIGKILL);
    }
    (void)MPI_Send(&token, 1, MPI_INT, victim, 99, comm);
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int iter = 1;
    for (; iter < 1000000 && rc == MPI_SUCCESS; iter++) rc = exchange(ring, iter, nbc_in_loop);
    CHECK(rc != MPI_SUCCESS, "round %d: %d exchanges without the victim %d", round, iter, victim);
    CHECK(error_class(rc) == expected, "round %d: class %d after %d exchanges (%s neighbour)", round,
          error_class(rc), iter, left == victim || right == victim ? "a" : "not a");
    MPI_Comm repaired;
    const int rrc = ulfm ? MPIX_Comm_shrink(comm, &repaired) : MPI_Comm_dup(comm, &repaired);
    CHECK(rrc == MPI_SUCCESS, "round %d: repair gave %d", round, rrc);
    MPI_Comm_free(&ring);
    if (rrc != MPI_SUCCESS) break;
    MPI_Comm_free(&comm);
    comm = repaired;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    ring = make_ring(comm);
    if (ring == MPI_COMM_NULL) break;
    rc = exchange(ring, 7, 1);
    CHECK(rc == MPI_SUCCESS, "round %d: exchange after the repair gave %d", round, rc);
    MPI_Comm_free(&ring);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, comm);
  if (world_rank == 0) printf(total == 0 ? "rank 0: ft_neighbor OK\n" : "rank 0: ft_neighbor %d failures\n", total);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return total != 0;
}
