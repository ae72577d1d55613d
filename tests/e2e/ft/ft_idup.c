/* MPI_Comm_idup under failure (issue 19):  ft_idup ROUNDS
 * Each round the survivors start three MPI_Comm_idup of an intracommunicator, two of an
 * intercommunicator (its halves) and an MPI_Ibarrier, then tell the victim, which SIGKILLs
 * itself before taking part in any of them. Nothing may hang, and the outcome is the same at
 * every survivor:
 * - intercommunicator duplications fail (intercommunicators are not repaired);
 * - the intracommunicator's: in ULFM mode each fails with MPIX_ERR_PROC_FAILED (constructors
 *   do not repair); in BLANK mode the first repairs the parent in place and all succeed, with
 *   working duplicates of the survivors (an allreduce over each counts them);
 * - the barrier fails.
 * Then the survivors go on with the repaired communicator (MPIX_Comm_shrink in ULFM mode). The
 * victim of round r is rank r + 1 of the current communicator, alternately the upper half's
 * first rank (its leader in the intercommunicator) and another one. */
#include <mpi.h>
#include <mpi-ext.h>
#include <ftmpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

enum { kIntra = 3, kInter = 2 };

static int world_rank, bad;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "world rank %d: FAIL line %d: ", world_rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad++; } } while (0)

static int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  const int rounds = argc > 1 ? atoi(argv[1]) : 1;
  int mode = 0, msg = 0;
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &mode, &msg);
  const int ulfm = mode == FTMPI_COMM_MODE_ULFM;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  for (int round = 0; round < rounds; round++) {
    int rank, size, valid = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    FTMPI_Comm_valid_size(comm, &valid);
    if (valid < 4) break;
    /* The halves by rank; a BLANK gap (a victim of an earlier round) sits in the lower half. */
    const int upper_first = size / 2;
    const int victim = round % 2 == 0 ? upper_first : upper_first + 1;
    MPI_Comm half, ic;
    const int upper = rank >= upper_first;
    int rc = MPI_Comm_split(comm, upper, rank, &half);
    CHECK(rc == MPI_SUCCESS, "round %d: split gave %d", round, rc);
    if (rc == MPI_SUCCESS) rc = MPI_Intercomm_create(half, 0, comm, upper ? 0 : upper_first, 11, &ic);
    CHECK(rc == MPI_SUCCESS, "round %d: intercomm create gave %d", round, rc);
    if (rc != MPI_SUCCESS) break;
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int token = round;
    if (rank == victim) {
      for (int i = 0; i < valid - 1; i++) MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 99, comm, MPI_STATUS_IGNORE);
      raise(SIGKILL);
    }
    MPI_Comm intra[kIntra], inter[kInter];
    MPI_Request q[kIntra + kInter + 1];
    int n = 0, start[kIntra + kInter + 1];
    for (int j = 0; j < kIntra; j++) {
      start[n] = MPI_Comm_idup(comm, &intra[j], &q[n]);
      n++;
      if (j < kInter) {
        start[n] = MPI_Comm_idup(ic, &inter[j], &q[n]);
        n++;
      }
    }
    start[n] = MPI_Ibarrier(comm, &q[n]);
    n++;
    (void)MPI_Send(&token, 1, MPI_INT, victim, 99, comm);  /* may see the death: ignored */
    int done[kIntra + kInter + 1];
    for (int i = 0; i < n; i++) {
      CHECK(start[i] == MPI_SUCCESS, "round %d: start %d gave %d", round, i, start[i]);
      done[i] = start[i] == MPI_SUCCESS ? MPI_Wait(&q[i], MPI_STATUS_IGNORE) : start[i];
    }
    /* q order: intra0 inter0 intra1 inter1 intra2 barrier */
    const int intra_at[kIntra] = {0, 2, 4}, inter_at[kInter] = {1, 3};
    for (int j = 0; j < kInter; j++) {
      CHECK(done[inter_at[j]] != MPI_SUCCESS, "round %d: intercomm idup %d succeeded", round, j);
      if (done[inter_at[j]] == MPI_SUCCESS) MPI_Comm_free(&inter[j]);
    }
    CHECK(done[n - 1] != MPI_SUCCESS, "round %d: Ibarrier succeeded without the victim", round);
    for (int j = 0; j < kIntra; j++) {
      const int r = done[intra_at[j]];
      if (ulfm) {
        CHECK(error_class(r) == MPIX_ERR_PROC_FAILED, "round %d: idup %d gave class %d", round, j, error_class(r));
        if (r == MPI_SUCCESS) MPI_Comm_free(&intra[j]);
        continue;
      }
      CHECK(r == MPI_SUCCESS, "round %d: idup %d gave class %d", round, j, error_class(r));
      if (r != MPI_SUCCESS) continue;
      int one = 1, sum = 0, dvalid = 0;
      MPI_Comm_set_errhandler(intra[j], MPI_ERRORS_RETURN);
      FTMPI_Comm_valid_size(intra[j], &dvalid);
      int arc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, intra[j]);
      CHECK(arc == MPI_SUCCESS && sum == valid - 1 && dvalid == valid - 1,
            "round %d: duplicate %d: allreduce %d, sum %d, valid %d, expected %d", round, j, arc, sum, dvalid, valid - 1);
      MPI_Comm_free(&intra[j]);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    if (ulfm) {
      MPI_Comm shrunk;
      rc = MPIX_Comm_shrink(comm, &shrunk);
      CHECK(rc == MPI_SUCCESS, "round %d: shrink gave %d", round, rc);
      if (rc != MPI_SUCCESS) break;
      MPI_Comm_free(&comm);
      comm = shrunk;
      MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    }
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, comm);
  if (world_rank == 0) printf(total == 0 ? "rank 0: ft_idup OK\n" : "rank 0: ft_idup %d failures\n", total);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return total != 0;
}
