/* One sealed failure event naming several processes (a lost host: PMIX_EVENT_AFFECTED_PROCS)
 * is marked in ONE transition, so the application repairs once.
 *
 * Rank 0 plays the daemon: it sends PMIX_ERR_PROC_ABORTED with the job's real seal (the rank's
 * FTMPI_EVENT_SEAL) naming ranks 2 and 3 in PMIX_EVENT_AFFECTED_PROCS, and PMIX_EVENT_AFFECTED_PROC
 * = rank 2 only (what an old reader sees), plus names that are no process of the job (ignored). Ranks 2 and 3 stay alive, away from MPI, for a while
 * (3 s and 5 s) and then SIGKILL themselves, so until then nothing but this one event can tell
 * the survivors about them. Each survivor checks:
 *   - it notices the failure within 2 s (the event, not the real deaths),
 *   - at the FIRST moment its communicator is DETECTED, both ranks are already failed (a
 *     library that took only AFFECTED_PROC, or marked them one event at a time, shows 1),
 *   - one MPI_Comm_dup repairs both (SHRINK: size n-2; BLANK: valid size n-2), and sums over
 *     the repaired communicator are right; no second failure surfaces afterwards.
 * Arguments: none. Prints "rank R: ft_one_event OK" on each survivor. */
#include <mpi.h>
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int wrank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The event ftmpid sends for a lost host, sent by rank 0 with the job's seal. */
static void announce_deaths(const int *dead, int ndead) {
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
    fprintf(stderr, "ft_one_event: PMIx_Init failed\n");
    exit(2);
  }
  const char *seal = getenv("FTMPI_EVENT_SEAL");
  if (seal == NULL) {
    fprintf(stderr, "ft_one_event: no FTMPI_EVENT_SEAL (not started by ftmpi's mpirun?)\n");
    exit(2);
  }
  /* Impossible names among them are ignored one by one: a wildcard, an index beyond any job,
   * a process of another namespace. */
  pmix_proc_t procs[11], first;
  int n = 0; /* PMIX_LOAD_PROCID evaluates its first argument twice: no n++ inside */
  PMIX_LOAD_PROCID(&procs[n], me.nspace, PMIX_RANK_WILDCARD);
  n++;
  for (int i = 0; i < ndead && i < 8; i++, n++) PMIX_LOAD_PROCID(&procs[n], me.nspace, (pmix_rank_t)dead[i]);
  PMIX_LOAD_PROCID(&procs[n], me.nspace, 70000);
  n++;
  PMIX_LOAD_PROCID(&procs[n], "another-namespace", 1);
  n++;
  PMIX_LOAD_PROCID(&first, me.nspace, (pmix_rank_t)dead[0]);
  pmix_data_array_t darray = {.type = PMIX_PROC, .size = (size_t)n, .array = procs};
  pmix_info_t info[3];
  PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &first, PMIX_PROC);
  PMIx_Info_load(&info[1], PMIX_EVENT_AFFECTED_PROCS, &darray, PMIX_DATA_ARRAY);
  PMIx_Info_load(&info[2], "ftmpi.seal", seal, PMIX_STRING);
  pmix_status_t rc = PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &me, PMIX_RANGE_NAMESPACE, info, 3, NULL, NULL);
  if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
    fprintf(stderr, "ft_one_event: PMIx_Notify_event: %s\n", PMIx_Error_string(rc));
    exit(2);
  }
  for (int i = 0; i < 3; i++) PMIX_INFO_DESTRUCT(&info[i]);
  PMIx_Finalize(NULL, 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, cmode, mmode;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
  if (size < 5 || cmode == FTMPI_COMM_MODE_ABORT) {
    if (wrank == 0) fprintf(stderr, "ft_one_event: needs -n >= 5 and a SHRINK or BLANK job\n");
    MPI_Finalize();
    return 2;
  }
  const int dead[2] = {2, 3};
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == 2 || wrank == 3) {
    /* Alive but silent: the survivors can learn of us only from the event. */
    sleep(wrank == 2 ? 3 : 5);
    raise(SIGKILL);
  }
  const double t0 = now();
  if (wrank == 0) announce_deaths(dead, 2);

  int state = FTMPI_COMM_OK;
  while (state == FTMPI_COMM_OK && now() - t0 < 10) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* progress */
    FTMPI_Comm_state(MPI_COMM_WORLD, &state);
    if (state == FTMPI_COMM_OK) usleep(200);
  }
  const double noticed = now() - t0;
  int nfailed = 0;
  FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 0, NULL, &nfailed);
  CHECK(state == FTMPI_COMM_DETECTED, "failure noticed (state %d)", state);
  CHECK(noticed < 2.0, "noticed after %.3f s: not through the event", noticed);
  CHECK(nfailed == 2, "%d failed rank(s) when the failure was first seen: not one transition", nfailed);

  MPI_Comm spare;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &spare); /* the one repair */
  CHECK(rc == MPI_SUCCESS, "repair rc %d", rc);
  if (rc == MPI_SUCCESS) MPI_Comm_free(&spare);
  int n = 0, valid = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &valid);
  CHECK(n == (cmode == FTMPI_COMM_MODE_SHRINK ? size - 2 : size), "size %d after one repair", n);
  CHECK(valid == size - 2, "valid size %d after one repair", valid);
  long all = (long)size * (size - 1) / 2 - 2 - 3;
  for (int it = 0; it < 10; it++) {
    long mine = wrank, total = -1;
    rc = MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && total == all, "allreduce %d after the repair: rc %d sum %ld of %ld", it, rc,
          total, all);
  }
  MPI_Finalize();
  if (failures == 0) printf("rank %d: ft_one_event OK\n", wrank);
  return failures ? 1 : 0;
}
