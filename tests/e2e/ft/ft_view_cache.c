/* The collectives' cached view of the members (ftmpi/src/proc_states.h) sees every failure at
 * once. A communicator keeps its members' view between collectives and rebuilds it only when a
 * process state changed; a stale view would run the next collective over a dead member
 * (a hang or a wrong sum). Two rounds, each:
 *   - 50 rounds of 8 B MPI_Bcast (root 0 and the last rank) and MPI_Reduce warm the cache;
 *   - a victim SIGKILLs itself after a barrier; the survivors wait for the notice;
 *   - the very next MPI_Bcast and MPI_Reduce must return MPI_ERR_OTHER at every survivor;
 *   - the repair (MPI_Comm_dup), then at once MPI_Bcast and MPI_Reduce over the repaired
 *     communicator, whose sums must leave the victims out.
 * Run with 5 ranks in SHRINK or BLANK mode (victims: ranks 2, then 3 of MPI_COMM_WORLD as it
 * was at start). Prints "ft_view_cache OK" at rank 0. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int start_rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", start_rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void wait_for_failure(void) {
  int state = FTMPI_COMM_OK;
  for (long i = 0; state == FTMPI_COMM_OK && i < 200000; i++) {
    FTMPI_Comm_state(MPI_COMM_WORLD, &state);
    if (state == FTMPI_COMM_OK) usleep(100);
  }
  CHECK(state == FTMPI_COMM_DETECTED, "failure noticed (state %d)", state);
}

/* One 8 B broadcast from `root` and one 8 B sum of start ranks to `root`; `alive_sum` is the
 * sum of the start ranks of the live members. */
static void bcast_and_reduce(int root, long alive_sum, const char *when) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long v = rank == root ? 1000 + root : -1;
  int rc = MPI_Bcast(&v, 1, MPI_LONG, root, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS && v == 1000 + root, "%s: bcast from %d rc %d value %ld", when, root, rc, v);
  long mine = start_rank, sum = -1;
  rc = MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "%s: reduce to %d rc %d", when, root, rc);
  CHECK(rank != root || sum == alive_sum, "%s: reduce to %d: sum %ld, expected %ld", when, root, sum,
        alive_sum);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &start_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 5) {
    if (start_rank == 0) fprintf(stderr, "ft_view_cache: run with 5 ranks\n");
    MPI_Finalize();
    return 2;
  }
  long alive_sum = (long)size * (size - 1) / 2;
  const int victims[2] = {2, 3};
  for (int round = 0; round < 2; round++) {
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 0; i < 50; i++) {
      bcast_and_reduce(0, alive_sum, "warm-up");
      bcast_and_reduce(n - 1, alive_sum, "warm-up");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (start_rank == victims[round]) raise(SIGKILL);
    wait_for_failure();
    /* Right after the notice: refused everywhere, never run over the old members. */
    long v = 7, w = 0;
    int rc = MPI_Bcast(&v, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_ERR_OTHER, "round %d: first bcast after the notice rc %d", round, rc);
    rc = MPI_Reduce(&v, &w, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_ERR_OTHER, "round %d: first reduce after the notice rc %d", round, rc);
    MPI_Comm d;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &d);
    CHECK(rc == MPI_SUCCESS, "round %d: repair rc %d", round, rc);
    if (rc == MPI_SUCCESS) MPI_Comm_free(&d);
    alive_sum -= victims[round];
    /* Right after the repair: the view must be the repaired one (BLANK: a gap; SHRINK: fewer
     * ranks, renumbered). The last rank is never a victim, so it is a valid root in both. */
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    bcast_and_reduce(n - 1, alive_sum, "after repair");
    bcast_and_reduce(0, alive_sum, "after repair");
  }
  MPI_Finalize();
  if (failures == 0 && start_rank == 0) printf("ft_view_cache OK\n");
  return failures ? 1 : 0;
}
