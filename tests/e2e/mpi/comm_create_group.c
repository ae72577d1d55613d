/* MPI_Comm_create_group (MPI-3.1 6.4.2): collective over the group only.
 * - the even and the odd world ranks each make their communicator at the same time (same tag),
 *   the group in reverse world order (new rank = the group's order);
 * - non-members take no part: world rank 0, outside the group of the others, blocks in a
 *   receive that a member sends only after its MPI_Comm_create_group returned;
 * - a group of one; a bad tag (MPI_ERR_TAG); the new communicators work (allreduce, p2p).
 * With the argument "kill" (run with --comm-mode shrink, at least 3 ranks): the last world rank
 * dies; a group that holds it fails in every survivor (MPI_ERR_OTHER) and none hangs; a group
 * without it still works. "kill late": world rank 0, the groups' leader, knows of the failure
 * before it calls (the others call at once, most often before they know): it must still take
 * part, or they wait for it for ever where no purge of the parent's requests ends their waits
 * (--msg-mode cont, ULFM). "ulfm" after it: the failure's class is MPIX_ERR_PROC_FAILED. */
#include <mpi-ext.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int wrank, wsize, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* The group of world ranks [from, to] stepping by step (negative: descending). */
static MPI_Group world_range(int from, int to, int step) {
  MPI_Group world, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int range[1][3] = {{from, to, step}};
  MPI_Group_range_incl(world, 1, range, &g);
  MPI_Group_free(&world);
  return g;
}

/* The members' sum of world ranks through the new communicator, and its order. */
static void check_comm(MPI_Comm c, const int *members, int n, const char *what) {
  int size = -1, rank = -1;
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &rank);
  CHECK(size == n, "%s: size %d, expected %d", what, size, n);
  CHECK(rank >= 0 && rank < n && members[rank] == wrank, "%s: rank %d", what, rank);
  long mine = wrank, sum = -1, expect = 0;
  for (int i = 0; i < n; i++) expect += members[i];
  CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c) == MPI_SUCCESS, "%s: allreduce", what);
  CHECK(sum == expect, "%s: allreduce %ld, expected %ld", what, sum, expect);
  int token = -1, next = (rank + 1) % n, prev = (rank + n - 1) % n;
  MPI_Sendrecv(&wrank, 1, MPI_INT, next, 3, &token, 1, MPI_INT, prev, 3, c, MPI_STATUS_IGNORE);
  CHECK(token == members[prev], "%s: ring token %d, expected %d", what, token, members[prev]);
}

static void basic(void) {
  /* even and odd ranks at once, each group in descending world order */
  const int parity = wrank % 2, top = (wsize - 1 - parity) / 2 * 2 + parity;
  MPI_Group g = world_range(top, parity, -2);
  int members[64], n = 0;
  for (int r = top; r >= parity; r -= 2) members[n++] = r;
  MPI_Comm c = MPI_COMM_NULL;
  CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 17, &c) == MPI_SUCCESS, "create_group parity");
  if (c != MPI_COMM_NULL) {
    check_comm(c, members, n, "parity");
    MPI_Comm_free(&c);
  }
  MPI_Group_free(&g);
  /* world rank 0 stays out and waits for a member, which sends only after its call returned */
  if (wsize >= 3) {
    if (wrank == 0) {
      int got = -1;
      MPI_Recv(&got, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(got == 4242, "non-member woken with %d", got);
    } else {
      g = world_range(1, wsize - 1, 1);
      for (n = 0; n < wsize - 1; n++) members[n] = n + 1;
      int *tag_ub = NULL, flag = 0;  /* the largest tag */
      MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
      CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, *tag_ub, &c) == MPI_SUCCESS,
            "create_group without rank 0");
      if (wrank == 1) {
        int v = 4242;
        MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
      }
      check_comm(c, members, n, "without rank 0");
      MPI_Comm_free(&c);
      MPI_Group_free(&g);
    }
  }
  /* a group of one: myself */
  g = world_range(wrank, wrank, 1);
  CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c) == MPI_SUCCESS, "create_group self");
  check_comm(c, &wrank, 1, "self");
  MPI_Comm_free(&c);
  int cls = -1;
  MPI_Error_class(MPI_Comm_create_group(MPI_COMM_WORLD, g, -1, &c), &cls);
  CHECK(cls == MPI_ERR_TAG, "negative tag: class %d", cls);
  MPI_Group_free(&g);
}

static void killed(int leader_late, int failed_class) {
  const int victim = wsize - 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == victim) raise(SIGKILL);
  if (leader_late && wrank == 0) usleep(300 * 1000);  /* detection takes a few ms */
  MPI_Comm c = MPI_COMM_NULL;
  /* every world rank: the victim is a member (the last one; the leader is rank 0) */
  MPI_Group g = world_range(0, wsize - 1, 1);
  int rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, 1, &c), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == failed_class && c == MPI_COMM_NULL, "create_group with a dead member: class %d", cls);
  MPI_Group_free(&g);
  /* the victim as the leader of a group in descending order */
  g = world_range(wsize - 1, 0, -1);
  rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, 2, &c);
  MPI_Error_class(rc, &cls);
  CHECK(cls == failed_class, "create_group led by a dead member: class %d", cls);
  MPI_Group_free(&g);
  /* the survivors only: works, though MPI_COMM_WORLD itself has a failure */
  int members[64];
  for (int i = 0; i < wsize - 1; i++) members[i] = i;
  g = world_range(0, wsize - 2, 1);
  rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, 3, &c);
  CHECK(rc == MPI_SUCCESS, "create_group of the survivors: rc %d", rc);
  if (rc == MPI_SUCCESS) {
    check_comm(c, members, wsize - 1, "survivors");
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, c);
    if (wrank == 0) printf(total == 0 ? "comm_create_group kill: OK\n" : "comm_create_group kill: %d failures\n", total);
    failures = total;
    MPI_Comm_free(&c);
  }
  MPI_Group_free(&g);
  MPI_Finalize();
  exit(failures != 0);
}

/* Half the ranks call MPI_Comm_create_group then MPI_Comm_idup, the other half the reverse
 * (MPICH's comm_create_group_idup): the pending idup must not keep create_group from choosing
 * its context id (it hung: the idup held the process's only offer). */
static void crossed_idup(void) {
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int round = 0; round < 5; round++) {
    MPI_Comm group_comm = MPI_COMM_NULL, dup = MPI_COMM_NULL;
    MPI_Request req;
    if (wrank % 2 == 0) {
      MPI_Comm_create_group(MPI_COMM_WORLD, world, round, &group_comm);
      MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    } else {
      MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
      MPI_Comm_create_group(MPI_COMM_WORLD, world, round, &group_comm);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int a = 1, b = 1, sa = 0, sb = 0;
    MPI_Allreduce(&a, &sa, 1, MPI_INT, MPI_SUM, dup);
    MPI_Allreduce(&b, &sb, 1, MPI_INT, MPI_SUM, group_comm);
    CHECK(sa == wsize && sb == wsize, "crossed idup round %d: sums %d %d", round, sa, sb);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&group_comm);
  }
  MPI_Group_free(&world);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (wsize > 64) {
    if (wrank == 0) printf("comm_create_group: at most 64 ranks\n");
    MPI_Finalize();
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "kill") == 0) {
    const int late = argc > 2 && strcmp(argv[2], "late") == 0;
    const int ulfm = strcmp(argv[argc - 1], "ulfm") == 0;
    killed(late, ulfm ? MPIX_ERR_PROC_FAILED : MPI_ERR_OTHER);
  }
  basic();
  crossed_idup();
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wrank == 0) printf(total == 0 ? "comm_create_group: OK\n" : "comm_create_group: %d failures\n", total);
  MPI_Finalize();
  return total != 0;
}
