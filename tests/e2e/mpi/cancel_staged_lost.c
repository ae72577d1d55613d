/* MPI_Cancel of sends staged in bulk pages whose completion is still queued when the cancel
 * comes (they were posted from the deferred list while the ring to the receiver was full),
 * with that ring full again: the withdraw question cannot go out, and the send must then
 * stand with its own completion. Before the fix (shm_withdraw.cpp: the queued completion is
 * given back) 500+ of these requests never completed: MPI_Wait hung and MPI_Finalize would.
 * Rank 1 sleeps, drains its ring once, sleeps again; every request of rank 0 must complete,
 * cancelled or not, within 20 s. Run with a 32 KiB ring and 16 bulk slots (the defaults run
 * out of bulk pages before the ring fills):
 *   mpirun -n 2 -x FTMPI_SHM_RING_KB=32 -x FTMPI_SHM_BULK_SLOTS=16 cancel_staged_lost */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { N = 1500, LEN = 4096, CTRL = 100000 };

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static char buf[LEN];
  static int flags[N + 1];
  memset(buf, 7, sizeof buf);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    static MPI_Request req[N + 1];
    /* Receiver asleep: ~580 announcements fill the 32 KiB ring (staged, completed), the next
     * one is staged and deferred, the rest deferred. */
    for (int i = 0; i < N; i++) MPI_Isend(buf, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD, &req[i]);
    sleep(4); /* rank 1 drains the ring once (MPI_Iprobe at t=2) and sleeps again */
    /* send() flushes the deferred list first: the staged ones' completions go to the backlog,
     * until the ring is full again. No poll drains the backlog before the cancels. */
    MPI_Isend(buf, LEN, MPI_BYTE, 1, N, MPI_COMM_WORLD, &req[N]);
    for (int i = 0; i < N; i++) MPI_Cancel(&req[i]);
    double deadline = MPI_Wtime() + 20;
    static int idx[N + 1];
    static MPI_Status sts[N + 1];
    int left = N + 1, cancelled = 0, outcount;
    while (left > 0 && MPI_Wtime() < deadline) {
      MPI_Testsome(N + 1, req, &outcount, idx, sts);
      if (outcount == MPI_UNDEFINED) break;
      for (int k = 0; k < outcount; k++) {
        int c;
        MPI_Test_cancelled(&sts[k], &c);
        cancelled += c;
      }
      left -= outcount;
    }
    printf("cancel_staged_lost: %d cancelled, %d not\n", cancelled, N + 1 - left - cancelled);
    if (left > 0) {
      int first = -1;
      for (int i = 0; i <= N; i++) if (req[i] != MPI_REQUEST_NULL) { first = i; break; }
      printf("cancel_staged_lost: FAIL %d request(s) never completed after 20 s (first: #%d)\n", left, first);
      fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Send(flags, N + 1, MPI_INT, 1, CTRL, MPI_COMM_WORLD);
  } else {
    sleep(2);
    int f;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
    sleep(4);
    MPI_Recv(flags, N + 1, MPI_INT, 0, CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Drain whatever came (cancelled or not): it is not what this reproducer checks. */
    static char in[LEN];
    for (;;) {
      MPI_Status st;
      int found = 0;
      double t = MPI_Wtime() + 1;
      while (!found && MPI_Wtime() < t) MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &found, &st);
      if (!found) break;
      MPI_Recv(in, LEN, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("cancel_staged_lost: OK\n");
  MPI_Finalize();
  return 0;
}
