/* REBUILD: an iterative computation loses ranks and gets them back.
 *   ft_rebuild ITERATIONS KILL...     KILL = RANK@ITERATION[+MS], e.g. 2@3 0@7 2@12 1@3+50
 *                                     (+MS: a thread kills it MS ms after it reached ITERATION)
 *   ft_rebuild ITERATIONS blank KILL...   run with --comm-mode blank: the first repair leaves a
 *                                         gap, which is checked, then MPI_COMM_WORLD is switched
 *                                         to REBUILD and repaired again, which fills it
 * At iteration ITERATION, the process that is then world rank RANK SIGKILLs itself (once per
 * KILL: a marker file in $PIDDIR says it happened, so a replacement does not repeat it).
 * Every iteration is an MPI_Allreduce of (rank + iteration). On an error every survivor calls
 * MPI_Comm_dup(MPI_COMM_WORLD) (repair, then construct); a replacement's MPI_Init returns with
 * FTMPI_INIT_RESTARTED and it calls the same MPI_Comm_dup. Then the process with the most
 * progress hands its state (iteration, accumulated sum) to everybody and all go on. The
 * result is checked against the closed form, sizes/ranks/states are checked after every
 * rebuild, and the survivors' repair time (error return to end of MPI_Comm_dup) is printed. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kill_timer.h"

static int failures, wrank;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void maybe_die(int argc, char **argv, int it) {
  for (int i = 2; i < argc; i++) {
    int r, at, ms = 0;
    if (sscanf(argv[i], "%d@%d+%d", &r, &at, &ms) < 2 || r != wrank || at != it) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/killed.%d", getenv("PIDDIR") ? getenv("PIDDIR") : "/tmp", i);
    if (access(path, F_OK) == 0) continue;
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    kill_timer_start((long)ms * 1000);  /* RANK@ITER+MS: die MS ms later, wherever it is by then */
  }
}

/* Set when a KILL has +MS: a death may then land right after a repair (or while a replacement
 * joins), and the world is seen DETECTED with that rank FAILED until the next repair. */
static int late_deaths;

/* After a rebuild: everybody adopts the state of the process that got furthest. A death that
 * lands after the repair's agreement (late_deaths) makes the resync fail everywhere (ATOMIC
 * collectives), and the caller repairs again; otherwise it must succeed. */
static int resync(MPI_Comm comm, int restarted, int *it, long *acc) {
  struct { int it; int rank; } mine = { restarted ? -1 : *it, wrank }, best;
  int rc = MPI_Allreduce(&mine, &best, 1, MPI_2INT, MPI_MAXLOC, comm);
  CHECK(rc == MPI_SUCCESS || late_deaths, "resync allreduce rc %d", rc);
  if (rc != MPI_SUCCESS) return rc;
  CHECK(best.it >= 0, "nobody has any state");
  long state[2] = { best.it, *acc };
  rc = MPI_Bcast(state, 2, MPI_LONG, best.rank, comm);
  CHECK(rc == MPI_SUCCESS || late_deaths, "resync bcast rc %d", rc);
  if (rc != MPI_SUCCESS) return rc;
  *it = (int)state[0];
  *acc = state[1];
  return MPI_SUCCESS;
}

/* Bytes of /dev/shm this process has mapped (rings and bulk slots of itself and its peers). */
static long shm_mapped_kb(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  long kb = 0;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (strstr(line, "/dev/shm/") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) kb += (long)((hi - lo) >> 10);
  }
  if (f) fclose(f);
  return kb;
}

static void check_world(int n, int expect_restarted) {
  int size, rank, state, s;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(size == n, "world size %d after rebuild, expected %d", size, n);
  CHECK(rank == wrank, "world rank changed from %d to %d", wrank, rank);
  FTMPI_Comm_state(MPI_COMM_WORLD, &state);
  const int newer_failure = late_deaths && state == FTMPI_COMM_DETECTED;
  CHECK(state == FTMPI_COMM_OK || state == FTMPI_COMM_RECOVERED || newer_failure, "world state %d", state);
  int failed = 0;
  for (int r = 0; r < size; r++) {
    FTMPI_Comm_proc_state(MPI_COMM_WORLD, r, &s);
    failed += s == FTMPI_PROC_FAILED;
    CHECK(s == FTMPI_PROC_OK || (newer_failure && s == FTMPI_PROC_FAILED),
          "rank %d has state %d after the rebuild", r, s);
  }
  CHECK(!newer_failure || failed > 0, "world DETECTED without a failed rank");
  FTMPI_Init_state(&s);
  CHECK(s == (expect_restarted ? FTMPI_INIT_RESTARTED : FTMPI_INIT_NEW), "init state %d", s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int iterations = argc > 1 ? atoi(argv[1]) : 20;
  int blank_first = argc > 2 && strcmp(argv[2], "blank") == 0;
  int init_state;
  FTMPI_Init_state(&init_state);
  int restarted = init_state == FTMPI_INIT_RESTARTED;
  /* FT_REBUILD_PACE_MS: a pause per iteration, so that a delayed death (RANK@ITER+MS) lands
   * while the job still runs, e.g. inside the repair of an earlier one. */
  int pace_ms = getenv("FT_REBUILD_PACE_MS") ? atoi(getenv("FT_REBUILD_PACE_MS")) : 0;
  for (int i = 2; i < argc; i++) late_deaths |= strchr(argv[i], '+') != NULL;
  int it = 0, rebuilds = 0;
  long acc = 0;
  double worst_repair = 0;
  if (restarted) {
    printf("rank %d: restarted as a replacement\n", wrank);
    fflush(stdout);
    check_world(n, 1);
    double t0 = mono();
    int rc;
    do {
      MPI_Comm tmp;
      rc = MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
      if (rc != MPI_SUCCESS) continue;  /* another death: repair again */
      rc = resync(tmp, 1, &it, &acc);
      MPI_Comm_free(&tmp);
    } while (rc != MPI_SUCCESS && late_deaths && mono() - t0 < 30);
    CHECK(rc == MPI_SUCCESS, "replacement's MPI_Comm_dup/resync rc %d", rc);
  }
  while (it < iterations) {
    maybe_die(argc, argv, it);
    if (pace_ms > 0) usleep((useconds_t)pace_ms * 1000);
    long v = wrank + it, sum = 0;
    int rc = MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) {
      acc += sum;
      it++;
      continue;
    }
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "allreduce failed with class %d", cls);
    double t0 = mono();
    MPI_Comm tmp;
    if (blank_first) {
      blank_first = 0;
      rc = MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
      CHECK(rc == MPI_SUCCESS, "BLANK repair rc %d", rc);
      int size, valid, gaps = 0, s;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      FTMPI_Comm_valid_size(MPI_COMM_WORLD, &valid);
      for (int r = 0; r < size; r++) {
        FTMPI_Comm_proc_state(MPI_COMM_WORLD, r, &s);
        gaps += s == FTMPI_PROC_FAILED;
      }
      CHECK(size == n && valid == n - 1 && gaps == 1, "after BLANK: size %d valid %d gaps %d", size,
            valid, gaps);
      MPI_Comm_free(&tmp);
      rc = FTMPI_Comm_set_mode(MPI_COMM_WORLD, FTMPI_COMM_MODE_REBUILD, FTMPI_MSG_MODE_NOP);
      CHECK(rc == MPI_SUCCESS, "set_mode rc %d", rc);
      t0 = mono();
    }
    int synced;
    do {
      do {
        rc = MPI_Comm_dup(MPI_COMM_WORLD, &tmp);  /* again if another process died meanwhile */
      } while (rc != MPI_SUCCESS && mono() - t0 < 30);
      CHECK(rc == MPI_SUCCESS, "repair failed: rc %d", rc);
      if (rc != MPI_SUCCESS) break;
      double t = mono() - t0;
      if (t > worst_repair) worst_repair = t;
      rebuilds++;
      check_world(n, restarted);
      synced = resync(tmp, 0, &it, &acc);
      MPI_Comm_free(&tmp);
    } while (synced != MPI_SUCCESS && mono() - t0 < 30);
  }
  long expect = 0;
  for (int i = 0; i < iterations; i++) expect += (long)n * (n - 1) / 2 + (long)n * i;
  CHECK(acc == expect, "sum %ld, expected %ld", acc, expect);
  double all_worst = 0;
  MPI_Reduce(&worst_repair, &all_worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  /* FT_REBUILD_MAX_SHM_KB: the shared memory a process has mapped must stay bounded however
   * many peers were replaced (a dead peer's region is unmapped; 50 repairs once kept 514 MB). */
  long shm_kb = shm_mapped_kb(), max_kb = 0;
  MPI_Reduce(&shm_kb, &max_kb, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (wrank == 0) printf("ft_rebuild: /dev/shm mapped at the end: at most %ld KiB per process\n", max_kb);
  if (getenv("FT_REBUILD_MAX_SHM_KB")) {
    CHECK(shm_kb <= atol(getenv("FT_REBUILD_MAX_SHM_KB")), "%ld KiB of /dev/shm mapped after %d repair(s)",
          shm_kb, rebuilds);
  }
  int bad = 0;
  MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wrank == 0) {
    if (bad == 0) {
      printf("ft_rebuild OK: sum %ld after %d iterations, %d repair(s) seen by rank 0, "
             "slowest repair %.1f ms\n", acc, iterations, rebuilds, all_worst * 1e3);
    } else {
      printf("ft_rebuild FAILED: %d check(s)\n", bad);
    }
  }
  kill_timer_disarm();
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
