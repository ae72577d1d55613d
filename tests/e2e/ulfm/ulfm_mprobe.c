/* Matched probes under ULFM (mpirun --with-ft ulfm), 4 ranks:
 * - rank 1 sends rank 0 a small and a large message, rank 0 matches both (MPI_Mprobe), then
 *   rank 1 is killed; once rank 0 knows of the death, MPI_Mrecv still delivers the small one
 *   (a dead process's last messages are delivered) and the large one completes, delivered or
 *   with MPIX_ERR_PROC_FAILED (its payload may have died with its sender), never hangs;
 * - a probe naming the dead rank fails with MPIX_ERR_PROC_FAILED, and so does an MPI_ANY_SOURCE
 *   Mprobe/Improbe while the failure is not acknowledged (rank 2's message waits meanwhile);
 *   after MPIX_Comm_failure_ack it is matched and received;
 * - on a revoked communicator: a message matched before the revoke is refused by MPI_Mrecv
 *   with MPIX_ERR_REVOKED (and the handle is spent); an MPI_Imrecv started before the revoke
 *   completes as a pending MPI_Irecv would (delivered, or MPIX_ERR_REVOKED);
 * - MPI_Isendrecv naming the dead rank completes with MPIX_ERR_PROC_FAILED at MPI_Wait. */
#include "ulfm_test.h"

enum { kLarge = 262144 }; /* ints: 1 MiB */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm rc_comm;  /* the one revoked later */
  MPI_Comm_dup(MPI_COMM_WORLD, &rc_comm);
  int *big = malloc(sizeof(int) * kLarge);
  for (int i = 0; i < kLarge; i++) big[i] = i * 3 + 1;
  MPI_Status st;
  MPI_Message m;
  int flag = 0, go = 0;
  if (wrank == 1) {
    int small[3] = {11, 12, 13};
    MPI_Request r;
    MPI_Send(small, 3, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Isend(big, kLarge, MPI_INT, 0, 2, MPI_COMM_WORLD, &r);
    MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* both matched */
    die();
  }
  if (wrank == 2) {
    int v = 222;
    MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
  }
  if (wrank == 3) {
    int v = 333;
    MPI_Request r;
    MPI_Send(&v, 1, MPI_INT, 0, 6, rc_comm);
    MPI_Isend(big, kLarge, MPI_INT, 0, 7, rc_comm, &r);
    int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS || class_of(rc) == MPIX_ERR_REVOKED, "large send on rc_comm: %d", rc);
  }
  if (wrank == 0) {
    MPI_Message small_m, big_m;
    MPI_Mprobe(1, 1, MPI_COMM_WORLD, &small_m, &st);
    MPI_Mprobe(1, 2, MPI_COMM_WORLD, &big_m, &st);
    MPI_Send(&go, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    /* Learn of the death: a receive only rank 1 could satisfy fails once it is known. */
    int rc = MPI_Recv(&go, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &st);
    CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED, "receive from the dead rank: %d", class_of(rc));
    int small[3] = {0};
    rc = MPI_Mrecv(small, 3, MPI_INT, &small_m, &st);
    CHECK(rc == MPI_SUCCESS && small[0] == 11 && small[2] == 13 && st.MPI_SOURCE == 1,
          "a dead rank's matched small message is delivered: rc %d, %d %d", class_of(rc), small[0], small[2]);
    int *got = calloc(kLarge, sizeof(int));
    rc = MPI_Mrecv(got, kLarge, MPI_INT, &big_m, &st);
    CHECK(rc == MPI_SUCCESS ? got[kLarge - 1] == (kLarge - 1) * 3 + 1 : class_of(rc) == MPIX_ERR_PROC_FAILED,
          "the large one: delivered or MPIX_ERR_PROC_FAILED, got class %d", class_of(rc));
    printf("rank 0: large message of the dead rank: %s\n", rc == MPI_SUCCESS ? "delivered" : "failed");
    rc = MPI_Improbe(1, 1, MPI_COMM_WORLD, &flag, &m, &st);
    CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED, "Improbe of the dead rank: class %d", class_of(rc));
    rc = MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &m, &st);
    CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED, "wildcard Mprobe, failure unacknowledged: class %d", class_of(rc));
    rc = MPI_Improbe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &m, &st);
    CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED, "wildcard Improbe, failure unacknowledged: class %d", class_of(rc));
    MPIX_Comm_failure_ack(MPI_COMM_WORLD);
    rc = MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &m, &st);
    int v = 0;
    if (rc == MPI_SUCCESS) rc = MPI_Mrecv(&v, 1, MPI_INT, &m, &st);
    CHECK(rc == MPI_SUCCESS && v == 222 && st.MPI_SOURCE == 2, "after the ack: rc %d v %d", class_of(rc), v);
    /* MPI_Isendrecv with the dead rank: an error at completion, as MPI_Isend/MPI_Irecv. */
    MPI_Request r;
    rc = MPI_Isendrecv(&v, 1, MPI_INT, 1, 8, &go, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &r);
    CHECK(rc == MPI_SUCCESS, "Isendrecv with the dead rank starts: %d", class_of(rc));
    if (rc == MPI_SUCCESS) {
      rc = MPI_Wait(&r, &st);
      CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED, "Isendrecv with the dead rank: class %d", class_of(rc));
    }
    /* Revoke: a matched message is refused, a started Imrecv ends as a pending Irecv does. */
    MPI_Comm_set_errhandler(rc_comm, MPI_ERRORS_RETURN);
    MPI_Message early, pending_m;
    MPI_Mprobe(3, 6, rc_comm, &early, &st);
    MPI_Mprobe(3, 7, rc_comm, &pending_m, &st);
    MPI_Request pending;
    MPI_Imrecv(got, kLarge, MPI_INT, &pending_m, &pending);
    MPIX_Comm_revoke(rc_comm);
    rc = MPI_Mrecv(&v, 1, MPI_INT, &early, &st);
    CHECK(class_of(rc) == MPIX_ERR_REVOKED && early == MPI_MESSAGE_NULL, "Mrecv after the revoke: class %d",
          class_of(rc));
    rc = MPI_Wait(&pending, &st);
    CHECK(rc == MPI_SUCCESS || class_of(rc) == MPIX_ERR_REVOKED, "Imrecv across the revoke: class %d", class_of(rc));
    printf("rank 0: Imrecv across the revoke: %s\n", rc == MPI_SUCCESS ? "delivered first" : "revoked");
    rc = MPI_Improbe(3, 6, rc_comm, &flag, &m, &st);
    CHECK(class_of(rc) == MPIX_ERR_REVOKED, "Improbe on a revoked communicator: class %d", class_of(rc));
    free(got);
  }
  /* Everybody alive meets again on a shrunk world (rank 3 learns of the revoke meanwhile). */
  MPI_Comm shrunk;
  MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk);
  MPI_Barrier(shrunk);
  MPI_Comm_free(&shrunk);
  MPI_Comm_free(&rc_comm);
  free(big);
  MPI_Finalize();
  if (failures == 0) printf("rank %d: ulfm_mprobe OK\n", wrank);
  return failures ? 1 : 0;
}
