/* Intercommunicators: MPI_Intercomm_create over two splits of MPI_COMM_WORLD (even/odd ranks, and
 * one rank against the rest with a non-zero local leader), local and remote groups, point-to-point
 * across in both directions (specific and wildcard sources, nonblocking, probe, sendrecv), dup
 * (its own context), compare, merge with every high combination, unsupported collectives refused, argument
 * errors with their classes. Needs at least 2 ranks.
 * With the argument "kill" (run with --comm-mode shrink): world rank 1 dies while everybody else
 * waits on the even/odd intercommunicator; the waits and every later call on it must return
 * MPI_ERR_OTHER (intercommunicators are not repaired), and MPI_COMM_WORLD still repairs.
 * With "outsider" (5 ranks, --comm-mode shrink): world rank 4, in neither group, dies; one leader
 * creates the intercommunicator over MPI_COMM_WORLD at once, the other 200 ms later, so the first
 * one's exchange is pending when the failure is noticed: it must still succeed everywhere (the
 * failure does not concern it; the NOP purge of MPI_COMM_WORLD's messages must not cut it). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

static int wrank, wsize, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int cls(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

static int mentions(int rc, const char *word) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(rc, s, &n);
  return strstr(s, word) != NULL;
}

/* One split: world ranks of each group, in local rank order. */
struct split {
  const char *name;
  int color;                 /* my group: 0 or 1 */
  int n[2], *members[2];     /* world ranks of group 0 and group 1 */
  int leader[2];             /* local leader (local rank) of each group */
};

static void make_split(struct split *s, const char *name, int (*color_of)(int), int leader1_last) {
  s->name = name;
  s->n[0] = s->n[1] = 0;
  s->members[0] = malloc(sizeof(int) * wsize);
  s->members[1] = malloc(sizeof(int) * wsize);
  for (int r = 0; r < wsize; r++) {
    int c = color_of(r);
    s->members[c][s->n[c]++] = r;
  }
  s->color = color_of(wrank);
  s->leader[0] = 0;
  s->leader[1] = leader1_last ? s->n[1] - 1 : 0;
}

static int even_odd(int r) { return r % 2; }
static int one_vs_rest(int r) { return r == 0 ? 0 : 1; }

static int my_local_rank(const struct split *s) {
  for (int i = 0; i < s->n[s->color]; i++) {
    if (s->members[s->color][i] == wrank) return i;
  }
  return -1;
}

static void check_groups(const struct split *s, MPI_Comm ic) {
  int me = s->color, other = 1 - s->color;
  int flag = -1, lsize = -1, lrank = -1, rsize = -1;
  MPI_Comm_test_inter(ic, &flag);
  CHECK(flag == 1, "%s: test_inter %d", s->name, flag);
  MPI_Comm_size(ic, &lsize);
  MPI_Comm_rank(ic, &lrank);
  MPI_Comm_remote_size(ic, &rsize);
  CHECK(lsize == s->n[me], "%s: local size %d, expected %d", s->name, lsize, s->n[me]);
  CHECK(lrank == my_local_rank(s), "%s: local rank %d, expected %d", s->name, lrank, my_local_rank(s));
  CHECK(rsize == s->n[other], "%s: remote size %d, expected %d", s->name, rsize, s->n[other]);

  MPI_Group world, remote, local;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_remote_group(ic, &remote);
  MPI_Comm_group(ic, &local);
  int *ranks = malloc(sizeof(int) * wsize), *in_world = malloc(sizeof(int) * wsize);
  for (int i = 0; i < wsize; i++) ranks[i] = i;
  MPI_Group_translate_ranks(remote, s->n[other], ranks, world, in_world);
  for (int i = 0; i < s->n[other]; i++) {
    CHECK(in_world[i] == s->members[other][i], "%s: remote rank %d is world %d, expected %d",
          s->name, i, in_world[i], s->members[other][i]);
  }
  MPI_Group_translate_ranks(local, s->n[me], ranks, world, in_world);
  for (int i = 0; i < s->n[me]; i++) {
    CHECK(in_world[i] == s->members[me][i], "%s: local rank %d is world %d, expected %d",
          s->name, i, in_world[i], s->members[me][i]);
  }
  int grank = 0, gsize = 0;
  MPI_Group_rank(remote, &grank);
  MPI_Group_size(remote, &gsize);
  CHECK(grank == MPI_UNDEFINED && gsize == s->n[other], "%s: remote group rank %d size %d",
        s->name, grank, gsize);
  free(ranks);
  free(in_world);
  MPI_Group_free(&remote);
  MPI_Group_free(&local);
  MPI_Group_free(&world);
}

/* Payload: sender's world rank, sender's local rank, the remote rank it was sent to, a marker. */
static void check_msg(const struct split *s, const int *m, int src, const char *what) {
  int other = 1 - s->color, me = my_local_rank(s);
  CHECK(m[0] == s->members[other][src] && m[1] == src && m[2] == me,
        "%s %s: from remote %d got {%d,%d,%d}, expected {%d,%d,%d}", s->name, what, src, m[0],
        m[1], m[2], s->members[other][src], src, me);
}

static void p2p(const struct split *s, MPI_Comm ic) {
  int other = 1 - s->color, me = my_local_rank(s), rsize = s->n[other];
  MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * rsize);
  MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * rsize);
  int (*out)[4] = malloc(sizeof(int[4]) * rsize), (*in)[4] = malloc(sizeof(int[4]) * rsize);
  for (int j = 0; j < rsize; j++) {
    out[j][0] = wrank, out[j][1] = me, out[j][2] = j, out[j][3] = 0;
  }

  /* Specific sources, one tag per sender. */
  for (int j = 0; j < rsize; j++) MPI_Isend(out[j], 3, MPI_INT, j, 10 + me, ic, &req[j]);
  for (int j = 0; j < rsize; j++) {
    MPI_Status status;
    int count = -1;
    int rc = MPI_Recv(in[j], 4, MPI_INT, j, 10 + j, ic, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    CHECK(rc == MPI_SUCCESS && status.MPI_SOURCE == j && status.MPI_TAG == 10 + j && count == 3,
          "%s recv: rc %d source %d tag %d count %d (from %d)", s->name, rc, status.MPI_SOURCE,
          status.MPI_TAG, count, j);
    check_msg(s, in[j], j, "recv");
  }
  MPI_Waitall(rsize, req, MPI_STATUSES_IGNORE);

  /* Wildcards: MPI_SOURCE must be the remote rank. The barriers keep other phases' messages
   * away from the MPI_ANY_TAG receives. */
  MPI_Barrier(MPI_COMM_WORLD);
  for (int j = 0; j < rsize; j++) MPI_Isend(out[j], 3, MPI_INT, j, 50, ic, &req[j]);
  char *seen = calloc((size_t)rsize, 1);
  for (int k = 0; k < rsize; k++) {
    MPI_Status status;
    int m[4];
    MPI_Recv(m, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &status);
    int src = status.MPI_SOURCE;
    CHECK(src >= 0 && src < rsize && !seen[src] && status.MPI_TAG == 50,
          "%s any-source: source %d tag %d", s->name, src, status.MPI_TAG);
    if (src >= 0 && src < rsize) {
      seen[src] = 1;
      check_msg(s, m, src, "any-source");
    }
  }
  free(seen);
  MPI_Waitall(rsize, req, MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Nonblocking both ways, completed together. */
  for (int j = 0; j < rsize; j++) MPI_Irecv(in[j], 4, MPI_INT, j, 60, ic, &req[j]);
  for (int j = 0; j < rsize; j++) MPI_Isend(out[j], 3, MPI_INT, j, 60, ic, &req[rsize + j]);
  int rc = MPI_Waitall(2 * rsize, req, st);
  CHECK(rc == MPI_SUCCESS, "%s waitall rc %d", s->name, rc);
  for (int j = 0; j < rsize; j++) {
    CHECK(st[j].MPI_SOURCE == j && st[j].MPI_TAG == 60, "%s irecv status source %d tag %d",
          s->name, st[j].MPI_SOURCE, st[j].MPI_TAG);
    check_msg(s, in[j], j, "irecv");
  }

  /* Probe: every process sends 1 + its local rank ints to remote rank 0. */
  int probe_msg[64];
  for (int i = 0; i < 64; i++) probe_msg[i] = wrank;
  MPI_Request pr;
  MPI_Isend(probe_msg, 1 + me, MPI_INT, 0, 77, ic, &pr);
  if (me == 0) {
    for (int k = 0; k < rsize; k++) {
      MPI_Status status;
      int count = -1, m[64];
      MPI_Probe(MPI_ANY_SOURCE, 77, ic, &status);
      MPI_Get_count(&status, MPI_INT, &count);
      int src = status.MPI_SOURCE;
      CHECK(src >= 0 && src < rsize && count == 1 + src, "%s probe: source %d count %d", s->name,
            src, count);
      if (src < 0 || src >= rsize) break;
      MPI_Recv(m, 64, MPI_INT, src, 77, ic, &status);
      CHECK(status.MPI_SOURCE == src && m[0] == s->members[other][src] && m[count - 1] == m[0],
            "%s probed recv: source %d value %d", s->name, status.MPI_SOURCE, m[0]);
    }
  }
  MPI_Wait(&pr, MPI_STATUS_IGNORE);

  /* Sendrecv with the partner of the same rank on the other side. */
  if (me < rsize) {
    int got = -1;
    MPI_Status status;
    MPI_Sendrecv(&wrank, 1, MPI_INT, me, 90, &got, 1, MPI_INT, me, 90, ic, &status);
    CHECK(got == s->members[other][me] && status.MPI_SOURCE == me, "%s sendrecv got %d from %d",
          s->name, got, status.MPI_SOURCE);
  }

  /* Ranks are remote ranks: the remote size is the bound, whatever the local size. */
  int dummy = 0;
  rc = MPI_Send(&dummy, 1, MPI_INT, rsize, 1, ic);
  CHECK(cls(rc) == MPI_ERR_RANK, "%s send to rank %d (remote size): class %d", s->name, rsize, cls(rc));
  rc = MPI_Recv(&dummy, 1, MPI_INT, rsize, 1, ic, MPI_STATUS_IGNORE);
  CHECK(cls(rc) == MPI_ERR_RANK, "%s recv from rank %d: class %d", s->name, rsize, cls(rc));
  rc = MPI_Send(&dummy, 1, MPI_INT, MPI_PROC_NULL, 1, ic);
  CHECK(rc == MPI_SUCCESS, "%s send to MPI_PROC_NULL rc %d", s->name, rc);

  free(req);
  free(st);
  free(out);
  free(in);
}

/* A message on the dup must not match a receive on the original, and the reverse. */
static void dup_isolation(const struct split *s, MPI_Comm ic) {
  MPI_Comm d;
  int rc = MPI_Comm_dup(ic, &d);
  CHECK(rc == MPI_SUCCESS, "%s dup rc %d", s->name, rc);
  int flag = 0, cmp = -1, rsize = -1;
  MPI_Comm_test_inter(d, &flag);
  MPI_Comm_remote_size(d, &rsize);
  CHECK(flag == 1 && rsize == s->n[1 - s->color], "%s dup: inter %d remote size %d", s->name, flag, rsize);
  MPI_Comm_compare(ic, d, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "%s compare with dup %d", s->name, cmp);
  MPI_Comm_compare(ic, ic, &cmp);
  CHECK(cmp == MPI_IDENT, "%s compare with itself %d", s->name, cmp);
  MPI_Comm_compare(ic, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == MPI_UNEQUAL, "%s compare with world %d", s->name, cmp);

  int me = my_local_rank(s);
  if (me == 0) {
    int a = 1000 + wrank, b = 2000 + wrank, got = 0;
    MPI_Request r[2];
    MPI_Isend(&a, 1, MPI_INT, 0, 5, ic, &r[0]);  /* original first ... */
    MPI_Isend(&b, 1, MPI_INT, 0, 5, d, &r[1]);   /* ... then the dup, same tag */
    int peer = s->members[1 - s->color][0];
    MPI_Recv(&got, 1, MPI_INT, 0, 5, d, MPI_STATUS_IGNORE); /* the dup's message first */
    CHECK(got == 2000 + peer, "%s dup recv got %d, expected %d", s->name, got, 2000 + peer);
    MPI_Recv(&got, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE);
    CHECK(got == 1000 + peer, "%s original recv got %d, expected %d", s->name, got, 1000 + peer);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
  /* The dup of a dup works too, and names stick. */
  MPI_Comm dd;
  MPI_Comm_dup(d, &dd);
  MPI_Comm_set_name(dd, "inter-dd");
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Comm_get_name(dd, name, &len);
  CHECK(strcmp(name, "inter-dd") == 0, "%s name %s", s->name, name);
  int other = 1 - s->color;
  if (me < s->n[other]) {
    int y = -1;
    MPI_Status status;
    MPI_Sendrecv(&wrank, 1, MPI_INT, me, 6, &y, 1, MPI_INT, MPI_ANY_SOURCE, 6, dd, &status);
    CHECK(y == s->members[other][me] && status.MPI_SOURCE == me, "%s dup-of-dup got %d from %d",
          s->name, y, status.MPI_SOURCE);
  }
  MPI_Comm_free(&dd);
  MPI_Comm_free(&d);
  CHECK(d == MPI_COMM_NULL && dd == MPI_COMM_NULL, "%s free sets MPI_COMM_NULL", s->name);
}

/* Merge with the given high values; returns the world ranks in merged order via Allgather. */
static void merge(const struct split *s, MPI_Comm ic, int high0, int high1) {
  int high = s->color == 0 ? high0 : high1;
  MPI_Comm m;
  int rc = MPI_Intercomm_merge(ic, high, &m);
  CHECK(rc == MPI_SUCCESS, "%s merge(%d,%d) rc %d", s->name, high0, high1, rc);
  if (rc != MPI_SUCCESS) return;
  int flag = -1, size = -1, rank = -1;
  MPI_Comm_test_inter(m, &flag);
  MPI_Comm_size(m, &size);
  MPI_Comm_rank(m, &rank);
  CHECK(flag == 0 && size == wsize, "%s merged: inter %d size %d", s->name, flag, size);
  int *order = malloc(sizeof(int) * wsize);
  MPI_Allgather(&wrank, 1, MPI_INT, order, 1, MPI_INT, m);
  CHECK(order[rank] == wrank, "%s merged rank %d holds world %d", s->name, rank, order[rank]);
  /* high=0 first; equal values: either order, but one group after the other, in local order. */
  int first = high0 == high1 ? (order[0] == s->members[0][0] ? 0 : 1) : (high0 ? 1 : 0);
  int i = 0;
  for (int g = first, k = 0; k < 2; g = 1 - g, k++) {
    for (int j = 0; j < s->n[g]; j++, i++) {
      CHECK(order[i] == s->members[g][j], "%s merge(%d,%d): position %d is world %d, expected %d",
            s->name, high0, high1, i, order[i], s->members[g][j]);
    }
  }
  int sum = -1;
  MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, m);
  CHECK(sum == wsize * (wsize - 1) / 2, "%s merged allreduce %d", s->name, sum);
  /* Point-to-point on the merged communicator is by merged rank. */
  int to = (rank + 1) % size, from = (rank + size - 1) % size, got = -1;
  MPI_Sendrecv(&wrank, 1, MPI_INT, to, 3, &got, 1, MPI_INT, from, 3, m, MPI_STATUS_IGNORE);
  CHECK(got == order[from], "%s merged ring got %d, expected %d", s->name, got, order[from]);
  free(order);
  MPI_Comm_free(&m);
}

static void errors(const struct split *s, MPI_Comm local, MPI_Comm ic) {
  int me = s->color, lsize = s->n[me];
  int remote_leader = s->members[1 - me][s->leader[1 - me]];
  MPI_Comm x = MPI_COMM_NULL;
  int rc, flag, n;
  MPI_Group g;

  /* Checked everywhere, before any communication. */
  rc = MPI_Intercomm_create(local, lsize, MPI_COMM_WORLD, remote_leader, 7, &x);
  CHECK(cls(rc) == MPI_ERR_RANK && mentions(rc, "local_leader"), "local_leader = size: class %d", cls(rc));
  rc = MPI_Intercomm_create(local, -1, MPI_COMM_WORLD, remote_leader, 7, &x);
  CHECK(cls(rc) == MPI_ERR_RANK, "local_leader = -1: class %d", cls(rc));
  rc = MPI_Intercomm_create(local, s->leader[me], MPI_COMM_WORLD, remote_leader, -1, &x);
  CHECK(cls(rc) == MPI_ERR_TAG && mentions(rc, "tag"), "tag -1: class %d", cls(rc));
  rc = MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, remote_leader, 7, &x);
  CHECK(cls(rc) == MPI_ERR_COMM, "local_comm NULL: class %d", cls(rc));
  rc = MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, remote_leader, 7, &x);
  CHECK(cls(rc) == MPI_ERR_COMM && mentions(rc, "intercommunicator"), "local_comm inter: class %d", cls(rc));
  rc = MPI_Intercomm_create(local, s->leader[me], MPI_COMM_WORLD, remote_leader, 7, NULL);
  CHECK(cls(rc) == MPI_ERR_ARG, "NULL newintercomm: class %d", cls(rc));
  CHECK(x == MPI_COMM_NULL, "output untouched on error");

  /* Checked at the leaders only; their groups learn the error from them. */
  rc = MPI_Intercomm_create(local, s->leader[me], MPI_COMM_WORLD, wsize, 7, &x);
  CHECK(cls(rc) == MPI_ERR_RANK && mentions(rc, "remote_leader"), "remote_leader = size: class %d", cls(rc));
  rc = MPI_Intercomm_create(local, s->leader[me], MPI_COMM_WORLD, s->members[me][s->leader[me]], 7, &x);
  CHECK(cls(rc) == MPI_ERR_RANK && mentions(rc, "local leader itself"), "remote_leader = self: class %d", cls(rc));
  rc = MPI_Intercomm_create(local, s->leader[me], MPI_COMM_NULL, remote_leader, 7, &x);
  CHECK(cls(rc) == MPI_ERR_COMM && mentions(rc, "peer_comm"), "peer_comm NULL: class %d", cls(rc));
  CHECK(x == MPI_COMM_NULL, "output untouched on error");

  /* Inconsistent high in a group of two or more: both groups refuse, with MPI_ERR_ARG. */
  int high = s->color == 0 ? 0 : my_local_rank(s) % 2;
  rc = MPI_Intercomm_merge(ic, high, &x);
  if (s->n[1] >= 2) {
    CHECK(cls(rc) == MPI_ERR_ARG && mentions(rc, "high"), "mixed high: class %d", cls(rc));
  } else {
    CHECK(rc == MPI_SUCCESS, "consistent high: rc %d", rc);
    MPI_Comm_free(&x);
  }

  rc = MPI_Intercomm_merge(local, 0, &x);
  CHECK(cls(rc) == MPI_ERR_COMM, "merge of an intracommunicator: class %d", cls(rc));
  rc = MPI_Intercomm_merge(MPI_COMM_NULL, 0, &x);
  CHECK(cls(rc) == MPI_ERR_COMM, "merge of MPI_COMM_NULL: class %d", cls(rc));
  rc = MPI_Intercomm_merge(ic, 0, NULL);
  CHECK(cls(rc) == MPI_ERR_ARG, "merge to NULL: class %d", cls(rc));

  rc = MPI_Comm_remote_size(local, &n);
  CHECK(cls(rc) == MPI_ERR_COMM, "remote_size of an intracommunicator: class %d", cls(rc));
  rc = MPI_Comm_remote_size(MPI_COMM_NULL, &n);
  CHECK(cls(rc) == MPI_ERR_COMM, "remote_size of MPI_COMM_NULL: class %d", cls(rc));
  rc = MPI_Comm_remote_size(ic, NULL);
  CHECK(cls(rc) == MPI_ERR_ARG, "remote_size NULL: class %d", cls(rc));
  rc = MPI_Comm_remote_group(local, &g);
  CHECK(cls(rc) == MPI_ERR_COMM, "remote_group of an intracommunicator: class %d", cls(rc));
  rc = MPI_Comm_remote_group(ic, NULL);
  CHECK(cls(rc) == MPI_ERR_ARG, "remote_group NULL: class %d", cls(rc));
  rc = MPI_Comm_test_inter(MPI_COMM_NULL, &flag);
  CHECK(cls(rc) == MPI_ERR_COMM, "test_inter of MPI_COMM_NULL: class %d", cls(rc));
  rc = MPI_Comm_test_inter(ic, NULL);
  CHECK(cls(rc) == MPI_ERR_ARG, "test_inter NULL: class %d", cls(rc));
  rc = MPI_Comm_test_inter(local, &flag);
  CHECK(rc == MPI_SUCCESS && flag == 0, "test_inter of an intracommunicator: %d", flag);

  /* Collectives MPI does not define on intercommunicators (intercomm_coll.c and
   * intercomm_vcoll.c test those it does, and split and create); a v-collective with
   * MPI_PROC_NULL as root has nothing to do here. */
  int v = 1, counts[64] = {0}, displs[64] = {0};
  rc = MPI_Gatherv(&v, 1, MPI_INT, &v, counts, displs, MPI_INT, MPI_PROC_NULL, ic);
  CHECK(rc == MPI_SUCCESS, "gatherv with MPI_PROC_NULL: class %d", cls(rc));
  rc = MPI_Scan(&v, &counts[0], 1, MPI_INT, MPI_SUM, ic);
  CHECK(cls(rc) == MPI_ERR_COMM && mentions(rc, "no scan on intercommunicators"), "scan: class %d", cls(rc));
  rc = MPI_Exscan(&v, &counts[0], 1, MPI_INT, MPI_SUM, ic);
  CHECK(cls(rc) == MPI_ERR_COMM, "exscan: class %d", cls(rc));
  /* MPI_Comm_create on an intercommunicator takes a subgroup of the local group only */
  MPI_Comm_group(MPI_COMM_WORLD, &g);
  rc = wsize > lsize ? MPI_Comm_create(ic, g, &x) : MPI_ERR_GROUP;
  CHECK(cls(rc) == MPI_ERR_GROUP, "create with remote processes: class %d", cls(rc));
  MPI_Group_free(&g);
}

static void run(struct split *s) {
  int me = s->color;
  MPI_Comm local, ic;
  MPI_Comm_split(MPI_COMM_WORLD, me, wrank, &local);
  int remote_leader = s->members[1 - me][s->leader[1 - me]];
  int rc = MPI_Intercomm_create(local, s->leader[me], MPI_COMM_WORLD, remote_leader, 42, &ic);
  CHECK(rc == MPI_SUCCESS, "%s create rc %d", s->name, rc);
  if (rc != MPI_SUCCESS) return;
  check_groups(s, ic);
  p2p(s, ic);
  dup_isolation(s, ic);
  merge(s, ic, 0, 1);
  merge(s, ic, 1, 0);
  merge(s, ic, 0, 0);
  merge(s, ic, 1, 1);
  errors(s, local, ic);
  /* Still usable after all the refused calls. */
  p2p(s, ic);
  MPI_Comm_free(&ic);
  MPI_Comm_free(&local);
  CHECK(ic == MPI_COMM_NULL, "%s free", s->name);
}

static void failure(void) {
  struct split s;
  make_split(&s, "even/odd", even_odd, 0);
  MPI_Comm local, ic, x;
  MPI_Comm_split(MPI_COMM_WORLD, s.color, wrank, &local);
  int rc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, s.members[1 - s.color][0], 42, &ic);
  CHECK(rc == MPI_SUCCESS, "create rc %d", rc);
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == 1) raise(SIGKILL);
  int buf = 0;
  /* Nobody sends: only the failure can end these. */
  rc = MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, ic, MPI_STATUS_IGNORE);
  CHECK(cls(rc) == MPI_ERR_OTHER, "wildcard receive across a failure: class %d", cls(rc));
  MPI_Request r;
  rc = MPI_Irecv(&buf, 1, MPI_INT, 0, 0, ic, &r);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(cls(rc) == MPI_ERR_OTHER, "receive on the failed intercommunicator: class %d", cls(rc));
  rc = MPI_Send(&buf, 1, MPI_INT, 0, 0, ic);
  CHECK(cls(rc) == MPI_ERR_OTHER, "send on the failed intercommunicator: class %d", cls(rc));
  rc = MPI_Comm_dup(ic, &x);
  CHECK(cls(rc) == MPI_ERR_OTHER && mentions(rc, "not repaired"), "dup: class %d", cls(rc));
  rc = MPI_Intercomm_merge(ic, s.color, &x);
  CHECK(cls(rc) == MPI_ERR_OTHER, "merge: class %d", cls(rc));
  MPI_Comm_free(&ic);
  MPI_Comm_free(&local);
  /* MPI_COMM_WORLD itself is repaired (SHRINK) as usual. */
  MPI_Comm w;
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &w);
  CHECK(rc == MPI_SUCCESS, "world repair rc %d", rc);
  int one = 1, n = 0;
  MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, w);
  CHECK(n == wsize - 1, "survivors %d", n);
  MPI_Comm_free(&w);
  free(s.members[0]);
  free(s.members[1]);
  MPI_Finalize();
  if (failures == 0 && wrank == 0) printf("rank 0: intercomm failure OK\n");
  exit(failures ? 1 : 0);
}

static void outsider(void) {
  const int color = wrank < 2 ? 0 : wrank < 4 ? 1 : MPI_UNDEFINED;
  MPI_Comm local = MPI_COMM_NULL, ic = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == 4) raise(SIGKILL);
  if (color == 1) usleep(200 * 1000);
  int rc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 2 : 0, 7, &ic);
  CHECK(rc == MPI_SUCCESS, "create beside a dead outsider: rc %d", rc);
  if (rc == MPI_SUCCESS) {
    int lrank = -1, mine = wrank, theirs = -1;
    MPI_Comm_rank(local, &lrank);
    rc = MPI_Sendrecv(&mine, 1, MPI_INT, lrank, 0, &theirs, 1, MPI_INT, lrank, 0, ic,
                      MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && theirs == (color == 0 ? wrank + 2 : wrank - 2),
          "across: rc %d, got %d", rc, theirs);
    MPI_Comm_free(&ic);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, local);
  MPI_Comm_free(&local);
  MPI_Finalize();
  if (wrank == 0 && total == 0) printf("rank 0: intercomm outsider OK\n");
  exit(failures ? 1 : 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) {
    if (wrank == 0) fprintf(stderr, "intercomm: needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (argc > 1 && strcmp(argv[1], "kill") == 0) failure();
  if (argc > 1 && strcmp(argv[1], "outsider") == 0) {
    if (wsize != 5) {
      if (wrank == 0) fprintf(stderr, "intercomm outsider: needs 5 ranks\n");
      MPI_Finalize();
      return 1;
    }
    outsider();
  }
  struct split s[2];
  make_split(&s[0], "even/odd", even_odd, 0);
  make_split(&s[1], "one/rest", one_vs_rest, 1);
  for (int i = 0; i < 2; i++) {
    run(&s[i]);
    free(s[i].members[0]);
    free(s[i].members[1]);
  }
  /* Every process's verdict decides. */
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (wrank == 0 && total == 0) printf("intercomm: OK on %d ranks\n", wsize);
  return failures ? 1 : 0;
}
