/* Helpers shared by the ULFM tests of this folder: checks that count failures, the victim's
 * death (kill time recorded for the latency numbers), and a uniformity check built only from
 * MPIX_Comm_agree. */
#pragma once

#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ft/killtime.h"

static int failures, wrank, wsize;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static inline int class_of(int rc) {
  int cls = -1;
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* Ends this process the way a crash does: no MPI_Finalize, no cleanup. */
static inline void die(void) {
  write_killtime();
  raise(SIGKILL);
}

/* The loop programs' start: MPI_Init, wrank/wsize, errors returned on MPI_COMM_WORLD, and
 * their "MODE ITERATIONS [R@I ...]" arguments after argv[0]: *mode, *iters, and the iteration
 * this rank dies at (-1: none). 0 when a victim argument is malformed. */
static inline int loop_init(int argc, char **argv, const char **mode, int *iters, int *die_at) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  *mode = argc > 1 ? argv[1] : "";
  *iters = argc > 2 ? atoi(argv[2]) : 0;
  *die_at = -1;
  for (int a = 3; a < argc; a++) {
    int r, i;
    if (sscanf(argv[a], "%d@%d", &r, &i) != 2) { fprintf(stderr, "bad victim '%s'\n", argv[a]); return 0; }
    if (r == wrank) *die_at = i;
  }
  return 1;
}

/* Iteration i's revoke of x by member i % size, and the barrier every member then sees fail
 * (revoked, or a failed process; the latter revokes too, so nobody stays in the barrier). */
static inline void revoke_by_turn(MPI_Comm x, int i) {
  int me, n;
  MPI_Comm_rank(x, &me);
  MPI_Comm_size(x, &n);
  if (me == i % n) MPIX_Comm_revoke(x);
  int rc = MPI_Barrier(x);
  CHECK(rc != MPI_SUCCESS, "iteration %d: a barrier on a revoked communicator succeeded", i);
  if (class_of(rc) == MPIX_ERR_PROC_FAILED) MPIX_Comm_revoke(x);
  CHECK(class_of(rc) == MPIX_ERR_REVOKED || class_of(rc) == MPIX_ERR_PROC_FAILED,
        "iteration %d: barrier: class %d", i, class_of(rc));
}

/* The end of a loop iteration that shrank *cur's copy into *s: if somebody died the shrunk one
 * carries on as *cur (the old one freed unless it is MPI_COMM_WORLD), else *s is freed. */
static inline void carry_on(MPI_Comm *cur, MPI_Comm *s) {
  int ns, nc;
  MPI_Comm_size(*s, &ns);
  MPI_Comm_size(*cur, &nc);
  if (ns < nc) {
    if (*cur != MPI_COMM_WORLD) MPI_Comm_free(cur);
    *cur = *s;
  } else {
    MPI_Comm_free(s);
  }
}

/* The MPI_COMM_WORLD ranks of comm's members, in comm's order, hashed (FNV-1a). */
static inline int members_hash(MPI_Comm comm) {
  MPI_Group g, wg;
  int n;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_size(g, &n);
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; i++) {
    int w;
    MPI_Group_translate_ranks(g, 1, &i, wg, &w);
    h = (h ^ (uint32_t)w) * 16777619u;
  }
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  return (int)(h & 0x7fffffff);
}

/* True when every live member of comm passed the same value: AND(v) == v and AND(~v) == ~v
 * hold everywhere only if nobody differs. Failures are acknowledged first so the agreements
 * themselves cannot fail on them. */
static inline int same_everywhere(MPI_Comm comm, int v) {
  int a = v, b = ~v;
  MPIX_Comm_failure_ack(comm);
  int rc1 = MPIX_Comm_agree(comm, &a);
  int rc2 = MPIX_Comm_agree(comm, &b);
  CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "uniformity agreements failed: %d %d",
        class_of(rc1), class_of(rc2));
  return a == v && b == ~v;
}

/* The world ranks in a group, for messages and checks. */
static inline int group_world_ranks(MPI_Group g, int *out, int max) {
  MPI_Group wg;
  int n;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_size(g, &n);
  for (int i = 0; i < n && i < max; i++) MPI_Group_translate_ranks(g, 1, &i, wg, &out[i]);
  MPI_Group_free(&wg);
  return n;
}
