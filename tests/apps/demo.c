/* ftmpi demo: an iterative computation that loses a process and finishes anyway.
 *
 * Each step sums f(i) = 1/(i+1)^2 over a block of indices shared out over the ranks of
 * MPI_COMM_WORLD and combines the partial sums with MPI_Allreduce. At step KILL_STEP the rank
 * VICTIM kills itself with SIGKILL. The survivors' MPI_Allreduce returns MPI_ERR_OTHER; they
 * repair MPI_COMM_WORLD with MPI_Comm_dup (SHRINK: renumbered, smaller), redo the step on the
 * repaired communicator and finish. The result is checked against a serial sum.
 *
 *   mpirun -n 6 --comm-mode shrink demo [VICTIM [KILL_STEP]]
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define STEPS 40
#define BLOCK 200000

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* one clock for every process on this host */
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double step_sum(int step, int rank, int size) {
  double s = 0;
  for (long i = (long)step * BLOCK + rank; i < (long)(step + 1) * BLOCK; i += size) s += 1.0 / ((double)(i + 1) * (i + 1));
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrank, size, rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rank = wrank;
  int me = rank, nvalid = size; /* my index among the valid ranks, and how many there are */
  int victim = argc > 1 ? atoi(argv[1]) : size / 2;
  int kill_step = argc > 2 ? atoi(argv[2]) : STEPS / 2;
  /* The victim leaves its kill time here for the survivors' "detected ... after the kill".
   * One file per job (named by world rank 0's pid), in $TMPDIR, removed at the end: a fixed
   * /tmp name was shared by concurrent demos and left behind by every run. */
  long pid0 = (long)getpid();
  MPI_Bcast(&pid0, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const char *tmpdir = getenv("TMPDIR");
  char killfile[4096];
  snprintf(killfile, sizeof killfile, "%s/ftmpi-demo-killtime.%ld", tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp", pid0);
  int cmode, mmode;
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
  if (rank == 0) {
    printf("demo: %d ranks, %d steps; rank %d will be killed at step %d; comm mode %s\n", size,
           STEPS, victim, kill_step, cmode == FTMPI_COMM_MODE_SHRINK ? "SHRINK" : cmode == FTMPI_COMM_MODE_BLANK ? "BLANK" : "other");
    fflush(stdout);
  }
  double total = 0, t_kill = 0;
  int failures_seen = 0;
  for (int step = 0; step < STEPS;) {
    if (wrank == victim && step == kill_step) {
      FILE *f = fopen(killfile, "w");
      if (f) { fprintf(f, "%.9f\n", now()); fclose(f); }
      raise(SIGKILL);
    }
    double part = step_sum(step, me, nvalid), sum = 0;
    int rc = MPI_Allreduce(&part, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
      double t_detect = now();
      int failed[8], n = 0;
      FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 8, failed, &n);
      MPI_Comm fresh;
      rc = MPI_Comm_dup(MPI_COMM_WORLD, &fresh); /* repairs MPI_COMM_WORLD in place */
      double t_repaired = now();
      if (rc != MPI_SUCCESS) { fprintf(stderr, "rank %d: repair failed\n", wrank); MPI_Abort(MPI_COMM_WORLD, 3); }
      MPI_Comm_free(&fresh);
      int old_rank = rank;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      /* SHRINK: no gaps, me == rank. BLANK: failed ranks stay as gaps, so share the work
       * among the valid ones. */
      FTMPI_Comm_valid_size(MPI_COMM_WORLD, &nvalid);
      me = 0;
      for (int r = 0; r < rank; r++) {
        int st;
        FTMPI_Comm_proc_state(MPI_COMM_WORLD, r, &st);
        if (st != FTMPI_PROC_FAILED) me++;
      }
      if (t_kill == 0) {
        FILE *f = fopen(killfile, "r");
        if (f) { if (fscanf(f, "%lf", &t_kill) != 1) t_kill = 0; fclose(f); }
      }
      failures_seen++;
      printf("rank %d -> %d: step %d failed (rank %d lost), detected %.2f ms after the kill, "
             "repaired in %.2f ms; now %d ranks (%d valid)\n", old_rank, rank, step, n > 0 ? failed[0] : -1,
             t_kill > 0 ? 1e3 * (t_detect - t_kill) : -1.0, 1e3 * (t_repaired - t_detect), size, nvalid);
      fflush(stdout);
      continue; /* redo this step on the repaired communicator */
    }
    total += sum;
    step++;
  }
  double expect = 0;
  for (long i = 0; i < (long)STEPS * BLOCK; i++) expect += 1.0 / ((double)(i + 1) * (i + 1));
  int ok = (total - expect) < 1e-12 && (expect - total) < 1e-12;
  if (me == 0) {
    unlink(killfile); /* every survivor read it when it met the failure, before this step */
    printf("demo: result %.15f, serial %.15f: %s (%d failure%s survived)\n", total, expect,
           ok ? "CORRECT" : "WRONG", failures_seen, failures_seen == 1 ? "" : "s");
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
