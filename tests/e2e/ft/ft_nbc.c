/* Nonblocking collectives under failure (issue 19 item 2):  ft_nbc ROUNDS
 * Each round: a barrier, then one rank (never rank 0) SIGKILLs itself once the others have
 * started an MPI_Iallreduce, an MPI_Ibarrier and an MPI_Ibcast from rank 0; they compute, polling with
 * MPI_Test (even rounds) or blocking in MPI_Wait (odd rounds). The victim never contributes, so
 * the allreduce and the barrier must end with an error at every survivor (MPI_ERR_OTHER in the
 * FT-MPI modes, MPIX_ERR_PROC_FAILED in ULFM mode), and nothing may hang; the bcast may succeed,
 * then with rank 0's data (SPEC 4.4). The survivors repair (MPI_Comm_dup in SHRINK/BLANK,
 * MPIX_Comm_shrink in ULFM mode) and check an MPI_Iallreduce on the repaired communicator. */
#include <mpi.h>
#include <mpi-ext.h>
#include <ftmpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "nbc_check.h"

int main(int argc, char **argv) {
  const struct ft_start s = ft_start(&argc, &argv);
  const int rounds = s.rounds, mode = s.mode, ulfm = s.ulfm, expected = s.expected;
  MPI_Comm comm = s.comm;
  for (int round = 0; round < rounds; round++) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2) break;
    /* BLANK keeps the ranks: the victim is the round-th rank after 0 that is still valid */
    const int victim = mode == FTMPI_COMM_MODE_BLANK ? 1 + round : 1 + round % (size - 1);
    int src = MPI_Barrier(comm), valid = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (src != MPI_SUCCESS) MPI_Error_string(src, text, &len);
    CHECK(src == MPI_SUCCESS, "barrier before round %d: %s", round, text);
    /* The victim dies once every survivor has left the barrier and started its collectives
     * (each tells it so): a death right after the barrier could fail the barrier itself at
     * the survivors, with every survivor alike (ATOMIC), and the round would test nothing. */
    FTMPI_Comm_valid_size(comm, &valid);
    int token = round;
    if (rank == victim) {
      for (int i = 0; i < valid - 1; i++) MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 99, comm, MPI_STATUS_IGNORE);
      raise(SIGKILL);
    }
    long mine = world_rank + 1, sum = -1;
    long b = rank == 0 ? 1000 + round : -1;
    MPI_Request q[3];
    int rc[3];
    rc[0] = MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm, &q[0]);
    rc[1] = MPI_Ibarrier(comm, &q[1]);
    rc[2] = MPI_Ibcast(&b, 1, MPI_LONG, 0, comm, &q[2]);
    (void)MPI_Send(&token, 1, MPI_INT, victim, 99, comm);  /* may see the death: ignored */
    for (int i = 0; i < 3; i++) {
      CHECK(rc[i] == MPI_SUCCESS, "round %d: start %d gave %d", round, i, rc[i]);
      if (rc[i] == MPI_SUCCESS) rc[i] = complete(&q[i], round % 2 == 0);
    }
    CHECK(rc[0] != MPI_SUCCESS, "round %d: Iallreduce succeeded (sum %ld) without the victim", round, sum);
    CHECK(rc[1] != MPI_SUCCESS, "round %d: Ibarrier succeeded without the victim", round);
    /* The first call that sees the failure gets the failure class; later ones may see it again */
    CHECK(error_class(rc[0]) == expected, "round %d: Iallreduce class %d", round, error_class(rc[0]));
    CHECK(error_class(rc[1]) == expected, "round %d: Ibarrier class %d", round, error_class(rc[1]));
    CHECK(rc[2] != MPI_SUCCESS || b == 1000 + round, "round %d: Ibcast succeeded with %ld", round, b);
    MPI_Comm repaired;
    int rrc = ulfm ? MPIX_Comm_shrink(comm, &repaired) : MPI_Comm_dup(comm, &repaired);
    CHECK(rrc == MPI_SUCCESS, "round %d: repair gave %d", round, rrc);
    if (rrc != MPI_SUCCESS) break;
    MPI_Comm_free(&comm);
    comm = repaired;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* the survivors' world ranks + 1, summed: every world rank but the victims */
    long expect = 0, one = 1, n = 0;
    MPI_Request q2[2];
    MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm, &q2[0]);
    MPI_Iallreduce(&one, &n, 1, MPI_LONG, MPI_SUM, comm, &q2[1]);
    CHECK(MPI_Waitall(2, q2, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "round %d: after repair", round);
    FTMPI_Comm_valid_size(comm, &valid);
    CHECK(n == valid, "round %d: %ld members after repair, %d valid", round, n, valid);
    /* every member's value (a BLANK gap's slot stays 0) */
    MPI_Comm_size(comm, &size);
    long *all = calloc((size_t)size, sizeof(long));
    MPI_Allgather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, comm);
    for (int i = 0; i < size; i++) expect += all[i];
    CHECK(sum == expect, "round %d: sum %ld after repair, expected %ld", round, sum, expect);
    free(all);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, comm);
  if (world_rank == 0) printf(total == 0 ? "rank 0: ft_nbc OK\n" : "rank 0: ft_nbc %d failures\n", total);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return total != 0;
}
