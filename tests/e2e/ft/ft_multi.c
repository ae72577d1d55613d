/* More fault-injection scenarios (run under mpirun with a fault-tolerant mode):
 *   successive  ranks 1 and then 3 die in two rounds; each round is repaired (SHRINK or BLANK)
 *   together    ranks 1 and 2 die in the same round
 *   in_repair   rank 1 dies; rank 2 dies instead of joining the repair: the survivors' one
 *               MPI_Comm_dup must fold both failures into the same repair
 *   per_comm    WORLD follows the job mode; a dup is switched to BLANK (or SHRINK if the job is
 *               BLANK); after rank 1 dies both are repaired, each by its own mode
 *   env_mode    checks that MPI_COMM_WORLD's mode is what FTMPI_COMM_MODE says (no mpirun flag)
 * Every survivor checks sizes, ranks and a sum over the repaired communicators. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int wrank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* Sum of the original world ranks of the valid members, with a collective (exercises the
 * collective path after repair, including BLANK gaps). */
static long sum_of_world_ranks(MPI_Comm comm) {
  long mine = wrank, total = -1;
  int rc = MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, comm);
  CHECK(rc == MPI_SUCCESS, "allreduce after repair rc %d", rc);
  return total;
}

/* Blocks until comm notices a failure (a receive nobody sends to, polled with Test). */
static void wait_for_failure(MPI_Comm comm) {
  int state = FTMPI_COMM_OK;
  for (long i = 0; state == FTMPI_COMM_OK && i < 200000; i++) {
    FTMPI_Comm_state(comm, &state);
    if (state == FTMPI_COMM_OK) usleep(100);
  }
  CHECK(state == FTMPI_COMM_DETECTED, "failure noticed (state %d)", state);
}

static void die(void) { raise(SIGKILL); }

static void repair(MPI_Comm *comm, int expect_failed) {
  int n = 0, ranks[16];
  FTMPI_Comm_failed_ranks(*comm, 16, ranks, &n);
  (void)expect_failed;
  MPI_Comm spare;
  int rc = MPI_Comm_dup(*comm, &spare);
  CHECK(rc == MPI_SUCCESS, "repair rc %d", rc);
  if (rc == MPI_SUCCESS) MPI_Comm_free(&spare);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, cmode, mmode;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
  const char *what = argc > 1 ? argv[1] : "successive";
  long all = (long)size * (size - 1) / 2;
  int shrink = cmode == FTMPI_COMM_MODE_SHRINK;

  if (!strcmp(what, "env_mode")) {
    const char *env = getenv("FTMPI_COMM_MODE");
    int want = env && !strcasecmp(env, "blank") ? FTMPI_COMM_MODE_BLANK
             : env && !strcasecmp(env, "shrink") ? FTMPI_COMM_MODE_SHRINK : FTMPI_COMM_MODE_ABORT;
    CHECK(cmode == want, "mode %d from FTMPI_COMM_MODE=%s", cmode, env ? env : "(unset)");
    const char *menv = getenv("FTMPI_MSG_MODE");
    int mwant = menv && !strcasecmp(menv, "cont") ? FTMPI_MSG_MODE_CONT : FTMPI_MSG_MODE_NOP;
    CHECK(mmode == mwant, "msg mode %d from FTMPI_MSG_MODE", mmode);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int c2, m2;
    FTMPI_Comm_get_mode(d, &c2, &m2);
    CHECK(c2 == cmode && m2 == mmode, "a dup inherits the modes");
    MPI_Comm_free(&d);
  } else if (!strcmp(what, "successive")) {
    for (int round = 0; round < 2; round++) {
      int victim = round == 0 ? 1 : 3;
      MPI_Barrier(MPI_COMM_WORLD);
      if (wrank == victim) die();
      wait_for_failure(MPI_COMM_WORLD);
      repair(&(MPI_Comm){MPI_COMM_WORLD}, 1);
      all -= victim;
      CHECK(sum_of_world_ranks(MPI_COMM_WORLD) == all, "sum after round %d", round);
      int n;
      MPI_Comm_size(MPI_COMM_WORLD, &n);
      CHECK(n == (shrink ? size - 1 - round : size), "size after round %d: %d", round, n);
    }
  } else if (!strcmp(what, "together")) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 1 || wrank == 2) die();
    wait_for_failure(MPI_COMM_WORLD);
    /* Let both deaths be reported before repairing, so the set is stable here; the agreement
     * would fold a late one in anyway. */
    for (int i = 0, n = 0; i < 2000 && n < 2; i++) { FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 0, NULL, &n); if (n < 2) usleep(1000); }
    repair(&(MPI_Comm){MPI_COMM_WORLD}, 2);
    CHECK(sum_of_world_ranks(MPI_COMM_WORLD) == all - 3, "sum after two failures");
    int n;
    FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
    CHECK(n == size - 2, "valid size %d", n);
  } else if (!strcmp(what, "in_repair")) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 1) die();
    wait_for_failure(MPI_COMM_WORLD);
    if (wrank == 2) { usleep(20000); die(); } /* never joins the repair */
    repair(&(MPI_Comm){MPI_COMM_WORLD}, 1);
    CHECK(sum_of_world_ranks(MPI_COMM_WORLD) == all - 3, "both failures folded into one repair");
    int n;
    FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
    CHECK(n == size - 2, "valid size after the folded repair %d", n);
  } else if (!strcmp(what, "per_comm")) {
    MPI_Comm other;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    int other_mode = shrink ? FTMPI_COMM_MODE_BLANK : FTMPI_COMM_MODE_SHRINK;
    FTMPI_Comm_set_mode(other, other_mode, mmode);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 1) die();
    wait_for_failure(MPI_COMM_WORLD);
    wait_for_failure(other);
    repair(&(MPI_Comm){MPI_COMM_WORLD}, 1);
    int state;
    FTMPI_Comm_state(other, &state);
    CHECK(state == FTMPI_COMM_DETECTED, "the other communicator stays DETECTED until its own repair (%d)", state);
    repair(&other, 1);
    int nw, no;
    MPI_Comm_size(MPI_COMM_WORLD, &nw);
    MPI_Comm_size(other, &no);
    CHECK(nw == (shrink ? size - 1 : size) && no == (shrink ? size : size - 1), "sizes world %d other %d", nw, no);
    CHECK(sum_of_world_ranks(MPI_COMM_WORLD) == all - 1 && sum_of_world_ranks(other) == all - 1, "sums");
    MPI_Comm_free(&other);
  }
  MPI_Finalize();
  if (failures == 0) printf("rank %d: ft_multi %s OK\n", wrank, what);
  return failures ? 1 : 0;
}
