/* Matched probes and MPI_Isendrecv in the FT-MPI modes (run with --comm-mode shrink or blank,
 * message mode as the test sets it). The last rank sends rank 0 a message, rank 0 matches it
 * (MPI_Mprobe), then the last rank is killed. Once rank 0 knows of the death (a receive from
 * the dead rank fails with MPI_ERR_OTHER):
 * - MPI_Mrecv still delivers the matched message (a dead process's last message);
 * - an MPI_ANY_SOURCE MPI_Mprobe fails with MPI_ERR_OTHER, as MPI_Probe does in that state;
 * - an MPI_Isendrecv with the dead rank fails with MPI_ERR_OTHER;
 * then MPI_Comm_dup repairs MPI_COMM_WORLD and a matched probe works on the repaired world.
 * Every survivor prints "ft_mprobe OK". */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int class_of(int rc) {
  int cls = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  return cls;
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int victim = size - 1;
  int go = 0;
  if (rank == victim) {
    int last[2] = {7, 8};
    MPI_Send(last, 2, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    raise(SIGKILL);
  }
  if (rank == 0) {
    MPI_Message m;
    MPI_Status st;
    MPI_Mprobe(victim, 1, MPI_COMM_WORLD, &m, &st);
    MPI_Send(&go, 1, MPI_INT, victim, 2, MPI_COMM_WORLD);
    int rc = MPI_Recv(&go, 1, MPI_INT, victim, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(class_of(rc) == MPI_ERR_OTHER, "receive from the dead rank: class %d", class_of(rc));
    int last[2] = {0, 0};
    rc = MPI_Mrecv(last, 2, MPI_INT, &m, &st);
    CHECK(rc == MPI_SUCCESS && last[0] == 7 && last[1] == 8 && st.MPI_SOURCE == victim,
          "the dead rank's matched message: class %d, %d %d", class_of(rc), last[0], last[1]);
    rc = MPI_Mprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &m, &st);
    CHECK(class_of(rc) == MPI_ERR_OTHER, "wildcard Mprobe after the failure: class %d", class_of(rc));
    MPI_Request r;
    rc = MPI_Isendrecv(&go, 1, MPI_INT, victim, 5, &go, 1, MPI_INT, victim, 5, MPI_COMM_WORLD, &r);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(class_of(rc) == MPI_ERR_OTHER, "Isendrecv with the dead rank: class %d", class_of(rc));
  }
  /* Repair, then every survivor sends rank 0 a message it takes with a matched probe. */
  MPI_Comm spare;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &spare);
  if (rc != MPI_SUCCESS) rc = MPI_Comm_dup(MPI_COMM_WORLD, &spare); /* a failure seen late */
  CHECK(rc == MPI_SUCCESS, "repair: class %d", class_of(rc));
  int wrank;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  if (wrank != 0) {
    MPI_Send(&wrank, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
  } else {
    for (int k = 0; k < size - 2; k++) {  /* the survivors but rank 0 (BLANK keeps the gap) */
      int v = -1;
      MPI_Message m;
      MPI_Status st;
      rc = MPI_Mprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &m, &st);
      if (rc == MPI_SUCCESS) rc = MPI_Mrecv(&v, 1, MPI_INT, &m, &st);
      CHECK(rc == MPI_SUCCESS && v == st.MPI_SOURCE, "after the repair: class %d v %d", class_of(rc), v);
      if (rc != MPI_SUCCESS) break;
    }
  }
  MPI_Comm_free(&spare);
  MPI_Finalize();
  if (failures == 0) printf("ft_mprobe OK on rank %d\n", rank);
  return failures ? 1 : 0;
}
