/* A transport error on a connection to a dead peer marks it suspected before the runtime's report
 * (SPEC 4.6, 4.7): FTMPI_PROC_UNAVAILABLE, then FTMPI_PROC_FAILED once the daemon confirms.
 *   ft_suspect early|idle|any DELAY_MS [BYTES]
 * Run in SHRINK mode with FTMPI_TEST_DELAY_FAILURE_EVENTS_MS=DELAY_MS, which holds the daemon's
 * failure events back that long. The victim (last rank) SIGKILLs itself (recording the kill
 * time in $PIDDIR/killtime); rank 0 sends BYTES (default 4096: eager, and above the inject size,
 * so that each send has a completion the provider can fail) to it until a send fails. (Not a
 * rendezvous size: tcp;ofi_rxm 1.17 leaves a rendezvous send whose receiver died pending when the
 * connection breaks, so only the daemon's report ends it.)
 *   early: (tcp;ofi_rxm, which reports the broken connection) the send fails with MPI_ERR_OTHER
 *          well before the delay is over; at that moment the victim is UNAVAILABLE in
 *          MPI_COMM_WORLD and in a duplicate of it, the communicators are still OK with no
 *          failed ranks and the victim still counts in FTMPI_Comm_valid_size.
 *   idle:  as early, but rank 0 sends nothing until the victim is dead and its broken connection
 *          has been seen (300 ms of MPI_Iprobe): with no send in flight when the connection
 *          broke, tcp;ofi_rxm only reconnects, is refused, and says so in its log; the send must
 *          still fail early (the transport sees the stalled peer's process gone).
 *   any:   (shm, which has no connection to break) the send may only fail when the daemon's
 *          report lands; whenever it fails, the class is MPI_ERR_OTHER and the victim is
 *          UNAVAILABLE or FAILED.
 * Then every survivor waits for FAILED (not before the delay is over: the report really was held
 * back), sees the communicator DETECTED with the victim as its failed rank, repairs with
 * MPI_Comm_dup and checks the repaired size with an allreduce. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "killtime.h"

static int failures, wrank;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int proc_state(MPI_Comm comm, int rank) {
  int s = -1;
  int rc = FTMPI_Comm_proc_state(comm, rank, &s);
  CHECK(rc == MPI_SUCCESS, "FTMPI_Comm_proc_state returned %d", rc);
  return s;
}

static int comm_state(MPI_Comm comm) {
  int s = -1;
  CHECK(FTMPI_Comm_state(comm, &s) == MPI_SUCCESS, "FTMPI_Comm_state failed");
  return s;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: ft_suspect early|idle|any DELAY_MS [BYTES]\n");
    return 2;
  }
  const int idle = strcmp(argv[1], "idle") == 0;
  const int early = idle || strcmp(argv[1], "early") == 0;
  const double delay = atof(argv[2]) / 1000.0;
  const long bytes = argc > 3 ? atol(argv[3]) : 4096;
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int victim = size - 1;
  char *buf = malloc((size_t)bytes);
  memset(buf, wrank + 1, (size_t)bytes);
  MPI_Comm other;  /* a second communicator holding the victim: marked too */
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  if (wrank == 0) unlink(killtime_path());

  /* Rank 0 and the victim talk first, so a connection exists that the death breaks. */
  if (wrank == 0 || wrank == victim) {
    int peer = wrank == 0 ? victim : 0;
    MPI_Sendrecv_replace(buf, (int)bytes, MPI_BYTE, peer, 1, peer, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == victim) {
    write_killtime();
    raise(SIGKILL);
  }

  double killed = 0;
  if (wrank == 0) {
    if (idle) {  /* the victim is dead, its connection broken and noticed, before any send */
      CHECK(read_killtime(5000) > 0, "the victim recorded no kill time");
      const double t0 = mono();
      while (mono() - t0 < 0.3) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        usleep(1000);
      }
    }
    /* Until a send fails, or the daemon's report would have been long delivered. */
    const double start = mono();
    int rc = MPI_SUCCESS, sends = 0;
    while (rc == MPI_SUCCESS && mono() - start < delay + 10) {
      rc = MPI_Send(buf, (int)bytes, MPI_BYTE, victim, 2, MPI_COMM_WORLD);
      ++sends;
    }
    const double failed_at = mono();
    killed = read_killtime(2000);
    CHECK(killed > 0, "no kill time recorded");
    const int s_world = proc_state(MPI_COMM_WORLD, victim);
    const int s_other = proc_state(other, victim);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
    printf("ft_suspect: send %d failed %.3f s after the kill (class %d: %s); victim state %d\n",
           sends, failed_at - killed, cls, text, s_world);
    CHECK(rc != MPI_SUCCESS, "every send to the dead rank succeeded");
    CHECK(cls == MPI_ERR_OTHER, "the failed send returned class %d, expected MPI_ERR_OTHER", cls);
    if (early) {
      CHECK(failed_at - killed < delay / 2,
            "the send failed only %.3f s after the kill (delay %.3f s): no transport error?",
            failed_at - killed, delay);
      CHECK(s_world == FTMPI_PROC_UNAVAILABLE, "victim state %d in MPI_COMM_WORLD, expected UNAVAILABLE", s_world);
      CHECK(s_other == FTMPI_PROC_UNAVAILABLE, "victim state %d in the duplicate, expected UNAVAILABLE", s_other);
      /* Only suspected: nothing has been declared. */
      CHECK(comm_state(MPI_COMM_WORLD) == FTMPI_COMM_OK, "MPI_COMM_WORLD left OK on a suspicion");
      CHECK(comm_state(other) == FTMPI_COMM_OK, "the duplicate left OK on a suspicion");
      int n = -1, ranks[4];
      FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 4, ranks, &n);
      CHECK(n == 0, "%d failed ranks reported on a suspicion", n);
      FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
      CHECK(n == size, "valid size %d on a suspicion, expected %d", n, size);
      for (int r = 0; r < victim; r++) {
        CHECK(proc_state(MPI_COMM_WORLD, r) == FTMPI_PROC_OK, "survivor %d not OK", r);
      }
      CHECK(mono() - killed < delay - 0.5, "the checks ran too late to tell UNAVAILABLE from FAILED");
    } else {
      CHECK(s_world == FTMPI_PROC_UNAVAILABLE || s_world == FTMPI_PROC_FAILED,
            "victim state %d after a failed send", s_world);
    }
  }

  /* Every survivor: the daemon's report (held back by the test hook) makes the victim FAILED. */
  int state = -1;
  const double wait_start = mono();
  while ((state = proc_state(MPI_COMM_WORLD, victim)) != FTMPI_PROC_FAILED &&
         mono() - wait_start < delay + 20) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    usleep(1000);
  }
  const double confirmed = mono();
  CHECK(state == FTMPI_PROC_FAILED, "victim state %d, never FAILED", state);
  if (killed == 0) killed = read_killtime(2000);
  /* The daemon reports the death after the kill, so FAILED comes at least `delay` after it
   * (0.25 s of slack for clock reads and scheduling). */
  CHECK(confirmed - killed > delay - 0.25, "FAILED %.3f s after the kill: the delay hook did not hold "
        "the report back for %.3f s", confirmed - killed, delay);
  CHECK(proc_state(other, victim) == FTMPI_PROC_FAILED, "victim not FAILED in the duplicate");
  CHECK(comm_state(MPI_COMM_WORLD) == FTMPI_COMM_DETECTED, "MPI_COMM_WORLD not DETECTED");
  int n = -1, ranks[4] = {-1};
  FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 4, ranks, &n);
  CHECK(n == 1 && ranks[0] == victim, "failed ranks: %d (first %d)", n, ranks[0]);
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
  CHECK(n == size - 1, "valid size %d after the report, expected %d", n, size - 1);
  if (wrank == 0) printf("ft_suspect: FAILED %.3f s after the kill\n", confirmed - killed);

  MPI_Comm repaired;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &repaired);
  CHECK(rc == MPI_SUCCESS, "MPI_Comm_dup returned %d", rc);
  int rsize = -1, total = -1;
  MPI_Comm_size(repaired, &rsize);
  CHECK(rsize == size - 1, "repaired size %d, expected %d", rsize, size - 1);
  rc = MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, repaired);
  if (rc != MPI_SUCCESS) total = failures + 1;
  if (wrank == 0) printf(total == 0 ? "ft_suspect OK (%s)\n" : "ft_suspect FAILED (%s)\n", argv[1]);
  MPI_Comm_free(&repaired);
  MPI_Comm_free(&other);
  free(buf);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
