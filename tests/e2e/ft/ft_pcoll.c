/* Persistent collectives under failure:  ft_pcoll ROUNDS
 * Each round makes an MPI_Allreduce_init, MPI_Barrier_init and MPI_Bcast_init (root 0) on the
 * current communicator, starts them twice with new data (checked), then one rank (never rank
 * 0) SIGKILLs itself:
 *  - even rounds, between starts: once every survivor has completed its runs and told it so;
 *    the survivors' next start then runs without it;
 *  - odd rounds, mid-run: once every survivor has started its next runs and told it so.
 * The victim never contributes to that third run, so the allreduce and the barrier must end
 * with an error at every survivor (MPI_ERR_OTHER in SHRINK mode, MPIX_ERR_PROC_FAILED in ULFM
 * mode) whether it completes them with MPI_Wait (rounds 0, 1 mod 4) or MPI_Test polling;
 * nothing may hang; the bcast may succeed, then with rank 0's data (SPEC 4.4). Every request
 * is inactive again after its failed run: it is freed. In ULFM mode the survivors then revoke
 * the communicator and one more start must end with MPIX_ERR_REVOKED. They repair
 * (MPI_Comm_dup in SHRINK, MPIX_Comm_shrink in ULFM) and the next round uses the new one. */
#include <mpi.h>
#include <mpi-ext.h>
#include <ftmpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "nbc_check.h"

/* Starts the three and completes them; returns their codes in rc[]. */
static void run(MPI_Request *q, int *rc, int poll) {
  for (int i = 0; i < 3; i++) rc[i] = MPI_Start(&q[i]);
  for (int i = 0; i < 3; i++) {
    if (rc[i] == MPI_SUCCESS) rc[i] = complete(&q[i], poll);
  }
}

int main(int argc, char **argv) {
  const struct ft_start s = ft_start(&argc, &argv);
  const int rounds = s.rounds, ulfm = s.ulfm, expected = s.expected;
  MPI_Comm comm = s.comm;
  for (int round = 0; round < rounds; round++) {
    int rank, size, valid = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2) break;
    const int victim = 1 + round % (size - 1);
    const int between = round % 2 == 0, poll = round % 4 >= 2;
    long mine = 0, sum = -1, b = -1;
    MPI_Request q[3];
    MPI_Allreduce_init(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &q[0]);
    MPI_Barrier_init(comm, MPI_INFO_NULL, &q[1]);
    MPI_Bcast_init(&b, 1, MPI_LONG, 0, comm, MPI_INFO_NULL, &q[2]);
    int rc[3];
    long w1 = world_rank + 1, base = 0;  /* the members' world ranks + 1, summed */
    MPI_Allreduce(&w1, &base, 1, MPI_LONG, MPI_SUM, comm);
    for (int k = 1; k <= 2; k++) {  /* two good runs, new data each */
      mine = (long)(world_rank + 1) * k;
      b = rank == 0 ? 1000 * round + k : -1;
      run(q, rc, poll);
      for (int i = 0; i < 3; i++) CHECK(rc[i] == MPI_SUCCESS, "round %d run %d: call %d gave %d", round, k, i, rc[i]);
      CHECK(sum == base * k, "round %d run %d: sum %ld != %ld", round, k, sum, base * k);
      CHECK(b == 1000 * round + k, "round %d run %d: bcast %ld", round, k, b);
    }
    /* The victim dies once every survivor has told it (after its runs: between starts; after
     * its next start: mid-run). */
    FTMPI_Comm_valid_size(comm, &valid);
    int token = round;
    if (rank == victim) {
      for (int i = 0; i < valid - 1; i++) MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 99, comm, MPI_STATUS_IGNORE);
      raise(SIGKILL);
    }
    mine = world_rank + 1;
    b = rank == 0 ? 1000 * round + 3 : -1;
    if (between) {
      (void)MPI_Send(&token, 1, MPI_INT, victim, 99, comm);
      run(q, rc, poll);
    } else {
      for (int i = 0; i < 3; i++) rc[i] = MPI_Start(&q[i]);
      (void)MPI_Send(&token, 1, MPI_INT, victim, 99, comm);  /* may see the death: ignored */
      for (int i = 0; i < 3; i++) {
        if (rc[i] == MPI_SUCCESS) rc[i] = complete(&q[i], poll);
      }
    }
    CHECK(rc[0] != MPI_SUCCESS, "round %d: allreduce run succeeded (sum %ld) without the victim", round, sum);
    CHECK(rc[1] != MPI_SUCCESS, "round %d: barrier run succeeded without the victim", round);
    CHECK(error_class(rc[0]) == expected, "round %d: allreduce class %d", round, error_class(rc[0]));
    CHECK(error_class(rc[1]) == expected, "round %d: barrier class %d", round, error_class(rc[1]));
    CHECK(rc[2] != MPI_SUCCESS || b == 1000 * round + 3, "round %d: bcast succeeded with %ld", round, b);
    if (ulfm) {  /* a start on a revoked communicator */
      /* every survivor has checked its runs first: an early revoke would turn another's
       * MPIX_ERR_PROC_FAILED into MPIX_ERR_REVOKED */
      int flag = 1;
      (void)MPIX_Comm_agree(comm, &flag);
      MPIX_Comm_revoke(comm);
      int r0 = MPI_Start(&q[0]);
      if (r0 == MPI_SUCCESS) r0 = MPI_Wait(&q[0], MPI_STATUS_IGNORE);
      CHECK(error_class(r0) == MPIX_ERR_REVOKED, "round %d: start on a revoked comm: class %d", round, error_class(r0));
    }
    for (int i = 0; i < 3; i++) {
      CHECK(MPI_Request_free(&q[i]) == MPI_SUCCESS && q[i] == MPI_REQUEST_NULL, "round %d: free %d", round, i);
    }
    MPI_Comm repaired;
    int rrc = ulfm ? MPIX_Comm_shrink(comm, &repaired) : MPI_Comm_dup(comm, &repaired);
    CHECK(rrc == MPI_SUCCESS, "round %d: repair gave %d", round, rrc);
    if (rrc != MPI_SUCCESS) break;
    MPI_Comm_free(&comm);
    comm = repaired;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* a persistent allreduce on the repaired communicator: the survivors' world ranks + 1 */
    long one = 1, n = 0;
    MPI_Request p;
    MPI_Allreduce_init(&one, &n, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &p);
    CHECK(MPI_Start(&p) == MPI_SUCCESS && MPI_Wait(&p, MPI_STATUS_IGNORE) == MPI_SUCCESS, "round %d: after repair", round);
    FTMPI_Comm_valid_size(comm, &valid);
    CHECK(n == valid, "round %d: %ld members after repair, %d valid", round, n, valid);
    MPI_Request_free(&p);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, comm);
  if (world_rank == 0) printf(total == 0 ? "rank 0: ft_pcoll OK\n" : "rank 0: ft_pcoll %d failures\n", total);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return total != 0;
}
