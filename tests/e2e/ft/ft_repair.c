/* Fault injection + repair, for the mode given by mpirun --comm-mode/--msg-mode.
 *   ft_repair VICTIM WHERE
 * WHERE: recv (survivors block in MPI_Recv from the victim), anysource (MPI_ANY_SOURCE
 * receive), ring (survivors block receiving from their left neighbour; only the victim's right
 * neighbour depends on it directly).
 * The victim records the kill time (CLOCK_MONOTONIC) in $PIDDIR/killtime and SIGKILLs itself.
 * Survivors check: the blocked call returns MPI_ERR_OTHER, the error string names the victim,
 * the queries report the failure, MPI_Comm_dup repairs MPI_COMM_WORLD as the mode says, and a
 * sum over the repaired communicator is right. Prints detection and repair times. */
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

/* Sum of original ranks over comm by passing a token around the valid members. */
static long ring_sum(MPI_Comm comm, int me_value) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int valid[1024], nvalid = 0, state;
  if (size > 1024) {
    CHECK(0, "ring_sum: %d members, at most 1024 supported", size);
    return -1;
  }
  for (int r = 0; r < size; r++) {
    FTMPI_Comm_proc_state(comm, r, &state);
    if (state != FTMPI_PROC_FAILED) valid[nvalid++] = r;
  }
  /* The caller is alive, so it must be among the valid members; a library that says otherwise
   * is a failure of the test, not an out-of-bounds read. */
  int pos = 0;
  while (pos < nvalid && valid[pos] != rank) pos++;
  if (pos == nvalid) {
    CHECK(0, "ring_sum: rank %d not among the %d valid members", rank, nvalid);
    return -1;
  }
  int next = valid[(pos + 1) % nvalid], prev = valid[(pos + nvalid - 1) % nvalid];
  long total = me_value;
  if (nvalid == 1) return total;
  if (pos == 0) {
    MPI_Send(&total, 1, MPI_LONG, next, 1, comm);
    MPI_Recv(&total, 1, MPI_LONG, prev, 1, comm, MPI_STATUS_IGNORE);
    MPI_Send(&total, 1, MPI_LONG, next, 2, comm);
  } else {
    long t;
    MPI_Recv(&t, 1, MPI_LONG, prev, 1, comm, MPI_STATUS_IGNORE);
    t += me_value;
    MPI_Send(&t, 1, MPI_LONG, next, 1, comm);
    MPI_Recv(&total, 1, MPI_LONG, prev, 2, comm, MPI_STATUS_IGNORE);
    if (pos != nvalid - 1) MPI_Send(&total, 1, MPI_LONG, next, 2, comm);
  }
  return total;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, cmode, mmode;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int victim = argc > 1 ? atoi(argv[1]) : 1;
  const char *where = argc > 2 ? argv[2] : "recv";
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "WORLD returns errors in a fault-tolerant mode");

  /* A healthy round first: everything works before the failure. */
  long before = ring_sum(MPI_COMM_WORLD, wrank);
  CHECK(before == (long)size * (size - 1) / 2, "sum before failure %ld", before);

  if (wrank == victim) {
    usleep(200000); /* let the survivors block first */
    write_killtime();
    raise(SIGKILL);
  }

  int v = 0, rc, learned_by_query = 0;
  MPI_Status st;
  if (!strcmp(where, "anysource")) {
    rc = MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
  } else if (!strcmp(where, "ring")) {
    int left = (wrank + size - 1) % size;
    if (left == victim) {
      rc = MPI_Recv(&v, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &st);
    } else {
      /* Not directly affected: in NOP mode the pending receive still fails; in CONT it
       * would wait for a message that never comes, so poll the state instead. */
      MPI_Request r;
      MPI_Irecv(&v, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r);
      int done = 0, state = FTMPI_COMM_OK;
      rc = MPI_SUCCESS;
      while (!done && state == FTMPI_COMM_OK) {
        rc = MPI_Test(&r, &done, &st);
        FTMPI_Comm_state(MPI_COMM_WORLD, &state);
        if (!done) usleep(100);
      }
      if (mmode == FTMPI_MSG_MODE_NOP) {
        if (!done) rc = MPI_Wait(&r, &st);
      } else {
        /* CONT: a receive from a live neighbour is not affected and stays pending; this rank
         * learned of the failure from the query above. */
        learned_by_query = 1;
        CHECK(!done, "CONT: the receive from a live neighbour must stay pending");
      }
    }
  } else {
    rc = MPI_Recv(&v, 1, MPI_INT, victim, 5, MPI_COMM_WORLD, &st);
  }
  double detected = mono();
  int cls;
  if (!learned_by_query) {
    MPI_Error_class(rc, &cls);
    CHECK(rc == MPI_ERR_OTHER, "blocked call returned %d (class %d), not exactly MPI_ERR_OTHER (SPEC 4.7)", rc, cls);
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    char want[32];
    snprintf(want, sizeof want, "rank %d", victim);
    CHECK(strstr(text, want) != NULL, "error string names the victim: %s", text);
  }

  int state, n, ranks[8];
  FTMPI_Comm_state(MPI_COMM_WORLD, &state);
  CHECK(state == FTMPI_COMM_DETECTED, "comm state %d", state);
  FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 8, ranks, &n);
  CHECK(n == 1 && ranks[0] == victim, "failed ranks n=%d first=%d", n, ranks[0]);
  FTMPI_Comm_proc_state(MPI_COMM_WORLD, victim, &state);
  CHECK(state == FTMPI_PROC_FAILED, "victim state %d", state);
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
  CHECK(n == size - 1, "valid size %d", n);
  int *attr, flag;
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &attr, &flag);
  CHECK(flag && *attr == 1, "FTMPI_NUM_FAILED_PROCS attribute %d", flag ? *attr : -1);
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COMM_STATE, &attr, &flag);
  CHECK(flag && *attr == FTMPI_COMM_DETECTED, "FTMPI_COMM_STATE attribute %d", flag ? *attr : -1);
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COMM_MODE, &attr, &flag);
  CHECK(flag && *attr == cmode, "FTMPI_COMM_MODE attribute");
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_MSG_MODE, &attr, &flag);
  CHECK(flag && *attr == mmode, "FTMPI_MSG_MODE attribute");
  if (mmode == FTMPI_MSG_MODE_NOP) {
    int next = (wrank + 1) % size == victim ? (wrank + 2) % size : (wrank + 1) % size;
    rc = MPI_Send(&v, 1, MPI_INT, next, 9, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "NOP: send to a survivor before repair fails at once (class %d)", cls);
  }

  double t0 = mono();
  MPI_Comm newcomm;
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &newcomm);
  double repaired = mono();
  CHECK(rc == MPI_SUCCESS, "MPI_Comm_dup repairs (rc %d)", rc);
  int nsize, nrank;
  MPI_Comm_size(MPI_COMM_WORLD, &nsize);
  MPI_Comm_rank(MPI_COMM_WORLD, &nrank);
  FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 8, ranks, &n);
  CHECK(n == 0, "no unrepaired failures after repair (%d)", n);
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &attr, &flag);
  CHECK(flag && *attr == 0, "FTMPI_NUM_FAILED_PROCS after repair %d", flag ? *attr : -1);
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
  CHECK(n == size - 1, "valid size after repair %d", n);
  if (cmode == FTMPI_COMM_MODE_SHRINK) {
    CHECK(nsize == size - 1, "SHRINK size %d", nsize);
    CHECK(nrank == (wrank < victim ? wrank : wrank - 1), "SHRINK renumbering: %d -> %d", wrank, nrank);
  } else {
    CHECK(nsize == size && nrank == wrank, "BLANK keeps size and rank (%d, %d)", nsize, nrank);
    rc = MPI_Send(&v, 1, MPI_INT, victim, 9, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "BLANK: send to a gap gives MPI_ERR_RANK (class %d)", cls);
  }
  long expect = (long)size * (size - 1) / 2 - victim;
  long after = ring_sum(MPI_COMM_WORLD, wrank);
  CHECK(after == expect, "sum over repaired WORLD %ld, expected %ld", after, expect);
  long after2 = ring_sum(newcomm, wrank);
  CHECK(after2 == expect, "sum over the new communicator %ld, expected %ld", after2, expect);
  FTMPI_Comm_state(MPI_COMM_WORLD, &state);
  CHECK(state == FTMPI_COMM_OK, "state after a successful operation %d", state);
  MPI_Comm_free(&newcomm);

  double kill_t = read_killtime(1000);
  printf("rank %d: detection %.3f ms, repair %.3f ms\n", wrank, 1e3 * (detected - kill_t),
         1e3 * (repaired - t0));
  MPI_Finalize();
  if (failures == 0) printf("rank %d: ft_repair OK\n", wrank);
  return failures ? 1 : 0;
}
