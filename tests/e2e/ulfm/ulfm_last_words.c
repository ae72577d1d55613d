/* What a process did just before it died still counts (run under mpirun --with-ft ulfm).
 *   ulfm_last_words SCENARIO
 * ssend      rank 0 sends synchronously to ranks 1..n-1 in turn; each receives and dies at once
 *            (odd ranks exit(1), even ones SIGKILL). Its receive matched, so the send completed:
 *            rank 0's MPI_Ssend / MPI_Issend + MPI_Wait must return MPI_SUCCESS. The receiver's
 *            ack is in rank 0's queue before the daemon can report the death; rank 0 used to
 *            apply the report first and purge the send (MPICH's ft/multi_isendalive failed so).
 * send       rank 0 has a receive posted from each of ranks 1..n-1; each sends its rank and dies
 *            at once, all together: every receive completes with the data, none with an error.
 * coll       (3 ranks, FTMPI_ASYNC_PROGRESS=0: the progress thread would complete it before
 *            the death) everybody starts an MPI_Iallreduce; rank 2 completes it and dies; rank 1
 *            makes no MPI call until the daemon has surely told its runtime of the death, then
 *            calls MPI_Wait: its answer was already here, so the allreduce succeeded (sum 3),
 *            as at ranks 0 and 2. It used to fail because a member had died meanwhile: one
 *            survivor failing a collective the others completed then ran one collective more
 *            than they did and hung (MPICH's ft/revoke_shrink). Then ranks 0 and 1 agree.
 * Then the survivor acknowledges the failures and checks MPIX_Comm_get_failed lists them all. */
#include <errno.h>
#include <time.h>

#include "ulfm_test.h"

static void victim_dies(void) {
  if (wrank % 2 == 1) exit(EXIT_FAILURE);
  die();
}

static void ssend(void) {
  if (wrank == 0) {
    for (int k = 1; k < wsize; k++) {
      int v = 1000 + k, rc;
      if (k % 2 == 1) {
        rc = MPI_Ssend(&v, 1, MPI_INT, k, 5, MPI_COMM_WORLD);
      } else {
        MPI_Request r;
        rc = MPI_Issend(&v, 1, MPI_INT, k, 5, MPI_COMM_WORLD, &r);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
      CHECK(rc == MPI_SUCCESS, "synchronous send to rank %d, which received it: class %d", k,
            class_of(rc));
    }
    return;
  }
  int v = 0;
  int rc = MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS || v != 1000 + wrank) {
    fprintf(stderr, "rank %d: FAIL: receive class %d, value %d\n", wrank, class_of(rc), v);
    _exit(3);  /* not the expected status 1 / SIGKILL: the run shows it */
  }
  victim_dies();
}

static void send(void) {
  int got[64];
  MPI_Request reqs[64];
  if (wrank == 0) {
    for (int k = 1; k < wsize; k++) {
      got[k] = -1;
      MPI_Irecv(&got[k], 1, MPI_INT, k, 6, MPI_COMM_WORLD, &reqs[k - 1]);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);  /* the receives are posted before anybody sends */
  if (wrank != 0) {
    int v = 2000 + wrank;
    int rc = MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) _exit(3);
    victim_dies();
  }
  for (int k = 1; k < wsize; k++) {
    int rc = MPI_Wait(&reqs[k - 1], MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && got[k] == 2000 + k, "message rank %d sent before it died: class %d, "
          "value %d", k, class_of(rc), got[k]);
  }
}

/* Waits until this process knows of n failures in MPI_COMM_WORLD (the daemon's reports arrive
 * in their own time), then acknowledges them. */
static void ack_failures(int n) {
  int known = 0;
  for (;;) {
    MPI_Group g;
    MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
    MPI_Group_size(g, &known);
    MPI_Group_free(&g);
    if (known >= n) break;
    usleep(1000);
  }
  MPIX_Comm_failure_ack(MPI_COMM_WORLD);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void coll(void) {
  int pid = (int)getpid(), pids[3], one = 1, sum = 0;
  MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Request r;
  int rc = MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
  CHECK(rc == MPI_SUCCESS, "MPI_Iallreduce: class %d", class_of(rc));
  if (wrank == 2) {
    rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || sum != 3) _exit(3);
    die();
  }
  if (wrank == 1) {
    /* No MPI call until the victim is gone (reaped by its daemon, which reports it at once) and
     * the report has had ample time to reach this process's runtime thread. */
    const double start = now();
    while (kill(pids[2], 0) == 0 || errno != ESRCH) {
      CHECK(now() - start < 30, "rank 2 (pid %d) is still there after 30 s", pids[2]);
      if (now() - start >= 30) break;
      usleep(2000);
    }
    usleep(300000);
  }
  rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS && sum == 3, "allreduce the dead rank completed: class %d, sum %d",
        class_of(rc), sum);
  /* The two survivors continue together, once both acknowledged the failure. */
  int flag = wrank == 0 ? 3 : 5;
  ack_failures(1);
  rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
  CHECK(rc == MPI_SUCCESS && flag == 1, "agree after it: class %d, flag %d", class_of(rc), flag);
  if (wrank == 1) {
    MPI_Finalize();  /* rank 0 checks what is left */
    exit(failures == 0 ? 0 : 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char *what = argc > 1 ? argv[1] : "";
  if (wsize < 2 || wsize > 64) {
    fprintf(stderr, "ulfm_last_words: 2 to 64 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(what, "ssend") == 0) {
    ssend();
  } else if (strcmp(what, "send") == 0) {
    send();
  } else if (strcmp(what, "coll") == 0 && wsize == 3) {
    coll();
  } else {
    fprintf(stderr, "usage: ulfm_last_words ssend|send|coll (coll: 3 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Only rank 0 is left (coll: rank 1 may still be finalizing). Every victim is reported
   * once the daemon has told it. */
  ack_failures(strcmp(what, "coll") == 0 ? 1 : wsize - 1);
  MPI_Finalize();
  if (failures == 0) printf("rank 0: ulfm_last_words %s OK\n", what);
  return failures == 0 ? 0 : 1;
}
