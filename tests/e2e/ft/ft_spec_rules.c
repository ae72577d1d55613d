/* SPEC 4.2/4.7's precise rules, one case per run (the victim SIGKILLs itself):
 *   ft_spec_rules append        --comm-mode rebuild_append, -n 4, victim 1: survivors are
 *                               renumbered in order, the replacement is appended as the last rank
 *   ft_spec_rules blank_gaps    --comm-mode blank, -n 5, victim 2: after the repair collectives
 *                               run over the valid processes and leave the gap's slots of
 *                               gather/allgather/alltoall buffers untouched; point-to-point with
 *                               the gap is MPI_ERR_RANK; a communicator made before the failure
 *                               stays DETECTED and MPI_Comm_free on it succeeds
 *   ft_spec_rules cont_renumber --comm-mode shrink --msg-mode cont, -n 4, victim 1: a message a
 *                               survivor sent before the failure matches a receive naming its
 *                               new rank after the repair, and the status shows the new rank
 *   ft_spec_rules repair_split  any mode but REBUILD, victim 1: MPI_Comm_split on the communicator in
 *                               error repairs it, then splits the repaired one (SPEC 4.5)
 *   ft_spec_rules repair_create likewise with MPI_Comm_create (an empty group first: the repair
 *                               still happens, the result is MPI_COMM_NULL; then the repaired
 *                               world's group)
 *   ft_spec_rules no_repair     any non-ABORT mode: survivors learn of the failure and go
 *                               straight to MPI_Finalize (never hangs, job exits 0)
 *   ft_spec_rules abort_trap [dup]  ABORT mode with MPI_ERRORS_RETURN installed: the failure
 *                               cannot be trapped (prints TRAPPED if a survivor's call ever
 *                               returns); with "dup", a duplicate of MPI_COMM_WORLD is switched
 *                               to SHRINK first, which must not save MPI_COMM_WORLD (still ABORT)
 *   ft_spec_rules switch_mode   launched in ABORT mode (no --comm-mode), every process switches
 *                               MPI_COMM_WORLD to SHRINK with FTMPI_Comm_set_mode: its default
 *                               handler now returns errors, a death is survived and repaired
 * Prints "ft_spec_rules CASE OK" once per process that passed. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, wrank;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int class_of(int rc) {
  int c;
  MPI_Error_class(rc, &c);
  return c;
}

/* The victim dies once the others are (about to be) blocked in a receive from it; they get
 * exactly MPI_ERR_OTHER (SPEC 4.7). */
static void kill_and_learn(int victim) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == victim) {
    usleep(100000);
    raise(SIGKILL);
  }
  int v, rc = MPI_Recv(&v, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_ERR_OTHER, "receive from the dead rank returned %d, not MPI_ERR_OTHER", rc);
}

static void case_append(int size) {
  const int victim = 1;
  int init_state, cmode, mmode;
  FTMPI_Init_state(&init_state);
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
  CHECK(cmode == FTMPI_COMM_MODE_REBUILD_APPEND, "world mode %d", cmode);
  int old_rank = wrank;
  if (init_state == FTMPI_INIT_NEW) kill_and_learn(victim);
  MPI_Comm nc;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &nc);
  CHECK(rc == MPI_SUCCESS, "repairing dup rc %d", rc);
  int nrank, nsize, crank, csize;
  MPI_Comm_rank(MPI_COMM_WORLD, &nrank);
  MPI_Comm_size(MPI_COMM_WORLD, &nsize);
  MPI_Comm_rank(nc, &crank);
  MPI_Comm_size(nc, &csize);
  wrank = nrank;
  CHECK(nsize == size && csize == size, "sizes after the repair: world %d dup %d", nsize, csize);
  CHECK(crank == nrank, "dup rank %d, world rank %d", crank, nrank);
  if (init_state == FTMPI_INIT_NEW)
    CHECK(nrank == (old_rank < victim ? old_rank : old_rank - 1), "survivor %d renumbered to %d", old_rank, nrank);
  else
    CHECK(nrank == size - 1, "the replacement is appended: rank %d", nrank);
  /* Who is where: survivors' old ranks in order, then the replacement (-1). */
  int mine = init_state == FTMPI_INIT_NEW ? old_rank : -1, all[64];
  rc = MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, nc);
  CHECK(rc == MPI_SUCCESS, "allgather rc %d", rc);
  for (int r = 0, old = 0; r < size && rc == MPI_SUCCESS; r++, old++) {
    if (old == victim) old++;
    int want = r == size - 1 ? -1 : old;
    CHECK(all[r] == want, "slot %d holds %d, expected %d", r, all[r], want);
  }
  int n;
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
  CHECK(n == size, "valid size %d", n);
  MPI_Comm_free(&nc);
}

static void case_blank_gaps(int size) {
  const int victim = 2, sentinel = -7;
  MPI_Comm before;
  MPI_Comm_dup(MPI_COMM_WORLD, &before);
  kill_and_learn(victim);
  MPI_Comm nc;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &nc), state, n, ranks[8], *attr, flag;
  CHECK(rc == MPI_SUCCESS, "repairing dup rc %d", rc);
  int nrank, nsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &nrank);
  MPI_Comm_size(MPI_COMM_WORLD, &nsize);
  CHECK(nrank == wrank && nsize == size, "BLANK keeps rank %d and size %d", nrank, nsize);
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
  CHECK(n == size - 1, "valid size %d", n);
  FTMPI_Comm_proc_state(MPI_COMM_WORLD, victim, &state);
  CHECK(state == FTMPI_PROC_FAILED, "the gap's state %d", state);
  FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 8, ranks, &n);
  CHECK(n == 0, "failed ranks after the repair: %d", n);
  MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &attr, &flag);
  CHECK(flag && *attr == 0, "FTMPI_NUM_FAILED_PROCS after the repair %d", flag ? *attr : -1);
  /* The communicator made before the failure was not repaired: still DETECTED; freeing works. */
  FTMPI_Comm_state(before, &state);
  CHECK(state == FTMPI_COMM_DETECTED, "unrepaired communicator state %d", state);
  /* "First" is per communicator (SPEC 4.7): its first call returns exactly MPI_ERR_OTHER too. */
  rc = MPI_Barrier(before);
  CHECK(rc == MPI_ERR_OTHER, "first call on the unrepaired communicator returned %d", rc);
  rc = MPI_Comm_free(&before);
  CHECK(rc == MPI_SUCCESS && before == MPI_COMM_NULL, "MPI_Comm_free of a DETECTED communicator rc %d", rc);

  int one = 10 + wrank, got[16], all[16];
  for (int i = 0; i < 16; i++) got[i] = all[i] = sentinel;
  rc = MPI_Gather(&one, 1, MPI_INT, got, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "gather rc %d", rc);
  if (wrank == 0)
    for (int r = 0; r < size; r++) CHECK(got[r] == (r == victim ? sentinel : 10 + r), "gather slot %d: %d", r, got[r]);
  rc = MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "allgather rc %d", rc);
  for (int r = 0; r < size; r++) CHECK(all[r] == (r == victim ? sentinel : 10 + r), "allgather slot %d: %d", r, all[r]);
  int out[16], in[16];
  for (int r = 0; r < size; r++) {
    out[r] = 100 * wrank + r;
    in[r] = sentinel;
  }
  rc = MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "alltoall rc %d", rc);
  for (int r = 0; r < size; r++)
    CHECK(in[r] == (r == victim ? sentinel : 100 * r + wrank), "alltoall slot %d: %d", r, in[r]);
  for (int r = 0; r < size; r++) out[r] = 20 + r;
  int piece = sentinel;
  rc = MPI_Scatter(out, 1, MPI_INT, &piece, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS && piece == 20 + wrank, "scatter rc %d piece %d", rc, piece);
  long sum = -1, mine = wrank, expect = (long)size * (size - 1) / 2 - victim;
  rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS && sum == expect, "allreduce rc %d sum %ld, expected %ld", rc, sum, expect);
  rc = MPI_Scan(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  expect = (long)wrank * (wrank + 1) / 2 - (wrank >= victim ? victim : 0);
  CHECK(rc == MPI_SUCCESS && sum == expect, "scan rc %d sum %ld, expected %ld", rc, sum, expect);
  rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, nc);
  CHECK(rc == MPI_SUCCESS, "allreduce on the new communicator rc %d", rc);

  /* Point-to-point with the gap: MPI_ERR_RANK, in every form. */
  MPI_Request req;
  int v = 0;
  CHECK(class_of(MPI_Send(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD)) == MPI_ERR_RANK, "send to the gap");
  CHECK(class_of(MPI_Recv(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) == MPI_ERR_RANK,
        "receive from the gap");
  CHECK(class_of(MPI_Isend(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, &req)) == MPI_ERR_RANK, "isend to the gap");
  CHECK(class_of(MPI_Irecv(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, &req)) == MPI_ERR_RANK, "irecv from the gap");
  MPI_Comm_free(&nc);
}

static void case_cont_renumber(int size) {
  const int victim = 1;
  /* Before the failure, old ranks 2 and 3 each send rank 0 one message it does not receive yet. */
  int v = 0;
  if (wrank == 3) MPI_Send(&(int){333}, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  if (wrank == 2) MPI_Send(&(int){222}, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
  kill_and_learn(victim);
  MPI_Comm nc;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &nc), nrank;
  CHECK(rc == MPI_SUCCESS, "repairing dup rc %d", rc);
  MPI_Comm_rank(MPI_COMM_WORLD, &nrank);
  CHECK(nrank == (wrank < victim ? wrank : wrank - 1), "renumbered %d -> %d", wrank, nrank);
  if (nrank == 0) {
    MPI_Status st;
    rc = MPI_Recv(&v, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, &st);  /* old rank 3 is now 2 */
    CHECK(rc == MPI_SUCCESS && v == 333 && st.MPI_SOURCE == 2, "pre-failure message from old 3: rc %d v %d source %d",
          rc, v, st.MPI_SOURCE);
    rc = MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st);  /* old rank 2 is now 1 */
    CHECK(rc == MPI_SUCCESS && v == 222 && st.MPI_SOURCE == 1, "pre-failure message from old 2: rc %d v %d source %d",
          rc, v, st.MPI_SOURCE);
  }
  rc = MPI_Barrier(nc);
  CHECK(rc == MPI_SUCCESS, "barrier rc %d", rc);
  (void)size;
  MPI_Comm_free(&nc);
}

static void case_switch_mode(int size) {
  const int victim = size - 2;
  int cmode, mmode;
  MPI_Errhandler eh;
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(cmode == FTMPI_COMM_MODE_ABORT && eh == MPI_ERRORS_ARE_FATAL, "launched in ABORT: mode %d", cmode);
  int rc = FTMPI_Comm_set_mode(MPI_COMM_WORLD, FTMPI_COMM_MODE_SHRINK, FTMPI_MSG_MODE_NOP);
  CHECK(rc == MPI_SUCCESS, "FTMPI_Comm_set_mode rc %d", rc);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "MPI_COMM_WORLD's default handler follows its mode");
  MPI_Comm child;
  MPI_Comm_dup(MPI_COMM_WORLD, &child);
  FTMPI_Comm_get_mode(child, &cmode, &mmode);
  CHECK(cmode == FTMPI_COMM_MODE_SHRINK, "a new communicator inherits its parent's mode (%d)", cmode);
  MPI_Comm_free(&child);
  kill_and_learn(victim);
  MPI_Comm nc;
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &nc);
  CHECK(rc == MPI_SUCCESS, "repairing dup rc %d", rc);
  int nsize, nrank;
  MPI_Comm_size(MPI_COMM_WORLD, &nsize);
  MPI_Comm_rank(MPI_COMM_WORLD, &nrank);
  CHECK(nsize == size - 1 && nrank == (wrank < victim ? wrank : wrank - 1), "SHRINK: size %d rank %d", nsize, nrank);
  long mine = wrank, sum = -1;
  rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, nc);
  CHECK(rc == MPI_SUCCESS && sum == (long)size * (size - 1) / 2 - victim, "allreduce rc %d sum %ld", rc, sum);
  MPI_Comm_free(&nc);
}

/* After the repair: the survivors' old ranks in the order of MPI_COMM_WORLD's new ranks. */
static int expected_new_rank(int old, int victim, int cmode) {
  return cmode == FTMPI_COMM_MODE_SHRINK && old > victim ? old - 1 : old;
}

static void case_repair_by(const char *how, int size) {
  const int victim = 1;
  int cmode, mmode, rc, nrank, n;
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
  kill_and_learn(victim);
  MPI_Comm nc = MPI_COMM_NULL;
  if (!strcmp(how, "split")) {
    /* Colour by old parity, key reversing the order. */
    rc = MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, size - wrank, &nc);
    CHECK(rc == MPI_SUCCESS, "repairing split rc %d", rc);
    int want_size = 0, want_rank = 0;
    for (int r = 0; r < size; r++) {
      if (r == victim || r % 2 != wrank % 2) continue;
      want_size++;
      if (r > wrank) want_rank++;
    }
    int ns = -1, nr = -1;
    if (rc == MPI_SUCCESS) {
      MPI_Comm_size(nc, &ns);
      MPI_Comm_rank(nc, &nr);
    }
    CHECK(ns == want_size && nr == want_rank, "split: size %d rank %d, expected %d %d", ns, nr, want_size, want_rank);
  } else {
    rc = MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &nc);
    CHECK(rc == MPI_SUCCESS && nc == MPI_COMM_NULL, "repairing create (empty group) rc %d", rc);
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    rc = MPI_Comm_create(MPI_COMM_WORLD, g, &nc);
    CHECK(rc == MPI_SUCCESS && nc != MPI_COMM_NULL, "create on the repaired world rc %d", rc);
    MPI_Group_free(&g);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &nrank);
  CHECK(nrank == expected_new_rank(wrank, victim, cmode), "world rank after the repair %d", nrank);
  FTMPI_Comm_valid_size(MPI_COMM_WORLD, &n);
  CHECK(n == size - 1, "valid size %d", n);
  if (nc != MPI_COMM_NULL) {
    long mine = wrank, sum = -1;
    rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && sum == (long)size * (size - 1) / 2 - victim, "allreduce rc %d sum %ld", rc, sum);
    rc = MPI_Barrier(nc);
    CHECK(rc == MPI_SUCCESS, "barrier on the constructed communicator rc %d", rc);
    MPI_Comm_free(&nc);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *what = argc > 1 ? argv[1] : "";
  if (size > 16) {
    CHECK(0, "at most 16 processes");
  } else if (!strcmp(what, "append") && size >= 3) {
    case_append(size);
  } else if (!strcmp(what, "blank_gaps") && size >= 4) {
    case_blank_gaps(size);
  } else if (!strcmp(what, "cont_renumber") && size == 4) {
    case_cont_renumber(size);
  } else if (!strcmp(what, "repair_split") && size >= 3) {
    case_repair_by("split", size);
  } else if (!strcmp(what, "repair_create") && size >= 3) {
    case_repair_by("create", size);
  } else if (!strcmp(what, "no_repair") && size >= 2) {
    kill_and_learn(size - 1);
  } else if (!strcmp(what, "switch_mode") && size >= 3) {
    case_switch_mode(size);
  } else if (!strcmp(what, "abort_trap") && size >= 2) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm dup = MPI_COMM_NULL;
    if (argc > 2 && !strcmp(argv[2], "dup")) {
      MPI_Comm_dup(MPI_COMM_WORLD, &dup);
      FTMPI_Comm_set_mode(dup, FTMPI_COMM_MODE_SHRINK, FTMPI_MSG_MODE_NOP);
    }
    kill_and_learn(size - 1);
    printf("rank %d: TRAPPED\n", wrank); /* ABORT must never let this line run */
    fflush(stdout);
    sleep(3);
  } else {
    CHECK(0, "unknown case '%s' for %d processes", what, size);
  }
  MPI_Finalize();
  if (failures == 0) printf("rank %d: ft_spec_rules %s OK\n", wrank, what);
  return failures ? 1 : 0;
}
