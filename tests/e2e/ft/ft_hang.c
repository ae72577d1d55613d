/* The hang windows of issue 16 item 2, one case per run (tests/stress/ft_hang_windows.sh loops
 * them with random timings):
 *   ft_hang init VICTIM DELAY_US   the process that will be rank VICTIM SIGKILLs itself DELAY_US
 *                                  after it started (0: before MPI_Init), from a thread, so the
 *                                  death lands anywhere in MPI_Init or just after it. Survivors
 *                                  (SHRINK or BLANK) must get out of MPI_Init and go on without it.
 *   ft_hang loop ITERS KILL...     an allreduce loop; KILL = RANK@ITER+MS: the process that is
 *                                  world rank RANK at iteration ITER starts a thread that
 *                                  SIGKILLs it MS ms later (so deaths land inside collectives
 *                                  and repairs). On an error every survivor repairs with
 *                                  MPI_Comm_dup(MPI_COMM_WORLD) (again if it fails) and goes on.
 *   ft_hang truncate ROOT          ATOMIC MPI_Gather whose root's receive count is too small: the
 *                                  root gets MPI_ERR_TRUNCATE before moving any data, the others
 *                                  must not wait for it forever (they get an error too, the same
 *                                  outcome everywhere), and the communicator works afterwards.
 * Every survivor checks the allreduce sums against the live membership; rank 0 of the final
 * world prints "ft_hang <case> OK". A hang is caught by the mpirun watchdog / ctest TIMEOUT. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kill_timer.h"

static int failures, wrank = -1;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Repairs MPI_COMM_WORLD (SHRINK/BLANK: in place), again while another death interrupts it. */
static void repair(double deadline) {
  int rc;
  MPI_Comm tmp;
  do {
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
  } while (rc != MPI_SUCCESS && mono() < deadline);
  CHECK(rc == MPI_SUCCESS, "repair failed: rc %d", rc);
  if (rc == MPI_SUCCESS) MPI_Comm_free(&tmp);
}

/* One allreduce of 1 per live member. Returns 1 when it worked (and checks the sum). */
static int count_members(void) {
  int one = 1, sum = 0, size, valid;
  int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "allreduce failed with class %d (rc %d)", cls, rc);
    return 0;
  }
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &valid);
  CHECK(sum == valid || sum == size, "allreduce sum %d, world size %d, valid %d", sum, size, valid);
  return 1;
}

static int live_members(void) {
  int valid;
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &valid);
  return valid;
}

static int case_init(int n, int victim) {
  /* Go on until the victim's death was seen and repaired: n - 1 live members, and an
   * allreduce over them worked. */
  const double deadline = mono() + 30;
  while (mono() < deadline) {
    int state;
    if (count_members()) {
      FTMPI_Comm_state(MPI_COMM_WORLD, &state);
      if (live_members() == n - 1 && state != FTMPI_COMM_DETECTED) return 1;
      usleep(1000);
      continue;
    }
    repair(deadline);
  }
  CHECK(0, "the death of rank %d was not seen and repaired within 30 s (valid size %d)", victim,
        live_members());
  return 0;
}

static int case_loop(int argc, char **argv, int iters) {
  const double deadline = mono() + 60;
  int checked = -1;  /* the iteration whose kills were looked at (first arrival only: a retry
                     * after a repair must not pick new victims among renumbered ranks) */
  for (int it = 0; it < iters && mono() < deadline;) {
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int i = 3; i < argc && checked < it; i++) {
      int r, at, ms = 0;
      if (sscanf(argv[i], "%d@%d+%d", &r, &at, &ms) < 2 || r != me || at != it) continue;
      kill_timer_start((long)ms * 1000);
    }
    checked = it;
    if (count_members()) {
      it++;
      usleep(2000);  /* paced, so that the delayed deaths land in later collectives and repairs */
    } else {
      repair(deadline);
    }
  }
  /* Every death must be seen and repaired in the end. */
  int expect = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &expect);
  while (mono() < deadline) {
    if (count_members()) {
      int state;
      FTMPI_Comm_state(MPI_COMM_WORLD, &state);
      if (state != FTMPI_COMM_DETECTED) break;
    }
    repair(deadline);
  }
  CHECK(mono() < deadline, "loop not finished within 60 s");
  return 1;
}

static int case_truncate(int n, int root) {
  int mine[2] = { wrank, wrank }, *all = malloc(sizeof(int) * 2 * (size_t)n);
  /* The root's receive count (1) is smaller than what each member sends (2). */
  int rc = MPI_Gather(mine, 2, MPI_INT, all, wrank == root ? 1 : 2, MPI_INT, root, MPI_COMM_WORLD);
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  if (wrank == root) {
    CHECK(cls == MPI_ERR_TRUNCATE, "root: MPI_Gather class %d, expected MPI_ERR_TRUNCATE", cls);
  } else {
    CHECK(rc != MPI_SUCCESS, "non-root: MPI_Gather succeeded although the root refused it");
  }
  /* The communicator is still usable, and nothing of the refused gather is left over to
   * match the next one (new values: a stale block would show). */
  CHECK(count_members(), "allreduce after the refused gather failed");
  int next[2] = { wrank + 100, wrank + 200 };
  int ok = MPI_Gather(next, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD);
  CHECK(ok == MPI_SUCCESS, "a correct gather after the refused one failed: rc %d", ok);
  if (ok == MPI_SUCCESS && wrank == root) {
    for (int r = 0; r < n; r++) {
      CHECK(all[2 * r] == r + 100 && all[2 * r + 1] == r + 200, "gathered[%d] = %d %d", r,
            all[2 * r], all[2 * r + 1]);
    }
  }
  free(all);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: ft_hang init VICTIM DELAY_US | loop ITERS RANK@ITER+MS... | truncate ROOT\n");
    return 2;
  }
  const char *what = argv[1];
  if (getenv("PIDDIR") != NULL) {  /* for the checks that no process and no /dev/shm segment is left */
    char path[512];
    snprintf(path, sizeof path, "%s/rank.%ld", getenv("PIDDIR"), (long)getpid());
    FILE *f = fopen(path, "w");
    if (f) { fprintf(f, "%ld\n", (long)getpid()); fclose(f); }
  }
  if (strcmp(what, "init") == 0 && argc > 3) {
    const char *r = getenv("PMIX_RANK");
    if (r != NULL && atoi(r) == atoi(argv[2])) kill_timer_start(atol(argv[3]));
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (strcmp(what, "init") == 0) {
    case_init(n, atoi(argv[2]));
  } else if (strcmp(what, "loop") == 0) {
    case_loop(argc, argv, atoi(argv[2]));
  } else if (strcmp(what, "truncate") == 0) {
    case_truncate(n, atoi(argv[2]));
  } else {
    fprintf(stderr, "ft_hang: unknown case %s\n", what);
    return 2;
  }
  /* Tally over the final world (repair it once more if a death is still being reported). */
  int bad = 0, rc;
  const double deadline = mono() + 30;
  while ((rc = MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) != MPI_SUCCESS &&
         mono() < deadline) {
    repair(deadline);
  }
  int me, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (me == 0) {
    if (rc == MPI_SUCCESS && bad == 0) {
      printf("ft_hang %s OK: %d of %d ranks left\n", what, live_members(), n);
    } else {
      printf("ft_hang %s FAILED: %d check(s), rc %d\n", what, bad, rc);
    }
  }
  kill_timer_disarm();
  MPI_Finalize();
  return rc == MPI_SUCCESS && bad == 0 ? 0 : 1;
}
