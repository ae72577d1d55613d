/* MPIX_Comm_agree is uniform: once any process returned a result from it, every survivor
 * returns the same one, even if every process that returned first dies the next instant
 * (the coordinator among them, before its decision reached anybody else).
 *   ulfm_agree_uniform ROUNDS R,R,...
 * Each round, every member of the current communicator agrees on its bit (flag = all ones but
 * bit world rank); the members at the listed communicator ranks then SIGKILL themselves right
 * after their agreement returned success. Every survivor must have returned success with the
 * AND of all members' flags: the victims' own contributions included. The survivors then
 * shrink the victims away and go on with the next round. ftckpt's commit (FTCKPT_Save) relies
 * on exactly this; ftckpt.shrink.killing_set failed in CI when it did not hold. */
#include "ulfm_test.h"

#define MAX_VICTIMS 16

static int expected_and(MPI_Comm comm) {
  MPI_Group g;
  MPI_Comm_group(comm, &g);
  int ranks[64], n = group_world_ranks(g, ranks, 64), v = ~0;
  MPI_Group_free(&g);
  for (int i = 0; i < n; i++) v &= ~(1 << ranks[i]);
  return v;
}

/* Waits (blocked in a barrier the victims never join, no spinning) until the victims' deaths
 * are known, then shrinks them away; again if one of them was still alive at the shrink. */
static MPI_Comm without_victims(MPI_Comm comm, int want_size) {
  while (1) {
    int rc = MPI_Barrier(comm), size;
    CHECK(rc != MPI_SUCCESS, "a barrier with dead members succeeded");
    MPI_Comm next;
    rc = MPIX_Comm_shrink(comm, &next);
    CHECK(rc == MPI_SUCCESS, "shrink failed: class %d", class_of(rc));
    if (rc != MPI_SUCCESS) exit(1);
    MPI_Comm_free(&comm);
    comm = next;
    MPI_Comm_size(comm, &size);
    if (size == want_size) return comm;
    CHECK(size > want_size, "shrunk to %d members, want %d", size, want_size);
    if (size < want_size) exit(1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  int rounds = argc > 2 ? atoi(argv[1]) : 0, victims[MAX_VICTIMS], nvictims = 0;
  for (char *t = argc > 2 ? strtok(argv[2], ",") : NULL; t != NULL && nvictims < MAX_VICTIMS;
       t = strtok(NULL, ",")) {
    char *end;
    long r = strtol(t, &end, 10);
    if (*end != '\0' || r < 0 || r >= wsize) {
      nvictims = 0;
      break;
    }
    victims[nvictims++] = (int)r;
  }
  if (rounds < 1 || rounds > 16 || nvictims < 1 || wsize > 30) {
    if (wrank == 0) fprintf(stderr, "usage: ulfm_agree_uniform ROUNDS R,R,... (at most 30 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int done = 0;
  for (int round = 0; round < rounds; round++) {
    int me, size, victim = 0, left;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    left = size;
    for (int i = 0; i < nvictims; i++) {
      if (victims[i] < size) left--;
      if (victims[i] == me) victim = 1;
    }
    if (left < 1) break;
    int flag = ~(1 << wrank);
    const int want = expected_and(comm);
    int rc = MPIX_Comm_agree(comm, &flag);
    if (victim && rc == MPI_SUCCESS) raise(SIGKILL);  /* at once: no file written first */
    CHECK(rc == MPI_SUCCESS, "round %d: agreement returned class %d at a %s", round, class_of(rc),
          victim ? "victim" : "survivor");
    CHECK(flag == want, "round %d: flag %#x, want %#x (the victims' contributions are part of it)",
          round, (unsigned)flag, (unsigned)want);
    if (failures) break;
    comm = without_victims(comm, left);
    done++;
  }
  if (failures == 0) {
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    if (me == 0) printf("ulfm_agree_uniform OK: %d rounds, %d survivors\n", done, size);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return failures ? 1 : 0;
}
