/* An MPI job that loses a whole host (hostfail_hosts.sh kills it once every rank wrote
 * $FTMPI_TEST_DIR/ready.R). Every iteration is an MPI_Allreduce over MPI_COMM_WORLD; at the first
 * error a survivor checks that ALL the ranks of the lost host are already failed (they came in
 * one event: EXPECT of them), repairs once with MPI_Comm_dup and goes on:
 *   SHRINK   size - EXPECT ranks remain      BLANK   the size stays, EXPECT gaps
 *   REBUILD  replacements (started by mpirun on the surviving hosts) take the lost ranks
 *   ULFM     MPIX_Comm_revoke + MPIX_Comm_shrink: a new communicator of size - EXPECT
 * The job ends (collectively) once every process has done 10 iterations after the repair.
 * Prints "rank R: host_loss_mpi OK repairs 1 size S valid V on HOST".
 * Usage: host_loss_mpi EXPECT [shrink|ulfm]: the program itself switches MPI_COMM_WORLD to that
 * mode right after MPI_Init (a job launched in ABORT mode leaves it: SPEC 4.2). */
#include <mpi.h>
#include <mpi-ext.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int wrank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void touch_ready(void) {
  const char *dir = getenv("FTMPI_TEST_DIR");
  if (dir == NULL) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/ready.%d", dir, wrank);
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
}

int main(int argc, char **argv) {
  const int expect = argc > 1 ? atoi(argv[1]) : 1;
  int rc = MPI_Init(&argc, &argv), init_state;
  FTMPI_Init_state(&init_state);
  const int restarted = init_state == FTMPI_INIT_RESTARTED;
  if (argc > 2) /* before anything else: from here on a failure no longer ends the job */
    FTMPI_Comm_set_mode(MPI_COMM_WORLD, strcmp(argv[2], "ulfm") == 0 ? FTMPI_COMM_MODE_ULFM : FTMPI_COMM_MODE_SHRINK,
                        FTMPI_MSG_MODE_NOP);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  int size0, cmode, mmode;
  MPI_Comm_size(MPI_COMM_WORLD, &size0);
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
  const int ulfm = cmode == FTMPI_COMM_MODE_ULFM;
  MPI_Comm comm = MPI_COMM_WORLD; /* ULFM: the shrunk communicator after the repair */
  int repairs = 0, after = 0;
  if (restarted) { /* a REBUILD replacement joins the survivors' repair */
    MPI_Comm spare;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &spare);
    CHECK(rc == MPI_SUCCESS, "replacement's join rc %d", rc);
    if (rc == MPI_SUCCESS) MPI_Comm_free(&spare);
    repairs = 1;
  }
  for (int it = 0; it < 100000; it++) {
    int mine[2] = {1, repairs > 0 && after >= 10}, sum[2] = {0, 0};
    rc = MPI_Allreduce(mine, sum, 2, MPI_INT, MPI_SUM, comm);
    if (rc != MPI_SUCCESS && ulfm) {
      /* Collectives are not uniform in ULFM mode: a survivor whose allreduce completed fails
       * the next one (the failure is known, or the others revoked): every survivor gets here. */
      MPI_Group failed;
      int nfailed = 0, eclass;
      MPI_Error_class(rc, &eclass);
      MPIX_Comm_get_failed(comm, &failed);
      MPI_Group_size(failed, &nfailed);
      MPI_Group_free(&failed);
      /* Another survivor's revoke may come before this process's failure event. */
      CHECK(nfailed == expect || (nfailed == 0 && eclass == MPIX_ERR_REVOKED),
            "%d rank(s) failed at the first error (class %d), expected the host's %d at once", nfailed, eclass, expect);
      MPIX_Comm_revoke(comm);
      MPI_Comm shrunk;
      rc = MPIX_Comm_shrink(comm, &shrunk);
      CHECK(rc == MPI_SUCCESS, "shrink rc %d", rc);
      if (rc != MPI_SUCCESS) break;
      MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
      comm = shrunk;
      repairs++;
      continue;
    }
    if (rc != MPI_SUCCESS) {
      int nfailed = 0;
      FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 0, NULL, &nfailed);
      CHECK(nfailed == expect, "%d rank(s) failed at the first error, expected the host's %d at once", nfailed,
            expect);
      MPI_Comm spare;
      rc = MPI_Comm_dup(MPI_COMM_WORLD, &spare);
      CHECK(rc == MPI_SUCCESS, "repair rc %d", rc);
      if (rc == MPI_SUCCESS) MPI_Comm_free(&spare);
      repairs++;
      continue;
    }
    if (sum[1] == sum[0]) break; /* everybody is done */
    if (repairs > 0) after++;
    if (it == 2) touch_ready();
    usleep(20000);
  }
  int size, valid;
  MPI_Comm_size(comm, &size);
  if (ulfm) valid = size;
  else FTMPI_Comm_valid_size(comm, &valid);
  const int want_size = cmode == FTMPI_COMM_MODE_SHRINK || ulfm ? size0 - expect : size0;
  const int want_valid = cmode == FTMPI_COMM_MODE_REBUILD ? size0 : size0 - expect;
  CHECK(repairs == 1, "%d repairs (one host lost: one repair)", repairs);
  CHECK(size == want_size && valid == want_valid, "size %d valid %d, expected %d and %d", size, valid, want_size,
        want_valid);
  long one = 1, total = 0;
  rc = MPI_Allreduce(&one, &total, 1, MPI_LONG, MPI_SUM, comm);
  CHECK(rc == MPI_SUCCESS && total == want_valid, "final allreduce rc %d total %ld", rc, total);
  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  char host[MPI_MAX_PROCESSOR_NAME];
  int len;
  MPI_Get_processor_name(host, &len);
  MPI_Finalize();
  if (failures == 0)
    printf("rank %d: host_loss_mpi OK repairs %d size %d valid %d on %s%s\n", wrank, repairs, size, valid, host,
           restarted ? " (replacement)" : "");
  return failures ? 1 : 0;
}
