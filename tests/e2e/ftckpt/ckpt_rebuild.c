/* ftckpt with REBUILD: killed ranks come back as replacement processes that get their own
 * state back from the survivors.
 *
 *   ckpt_rebuild DF SD SAVES KILLS EXPECT [L4DIR|- L4EVERY [L3GROUP]]
 *
 * KILLS: comma list of RANK@aS (the process at world rank RANK dies right after save S
 * completed), RANK@dS (it dies inside save S, its copies in flight) or RANK@rN (it dies inside
 * its N-th recovery, with the state it sends a replacement in flight). Each kill fires once (a
 * marker file in $PIDDIR), so a replacement that reaches save S again does not die again, but
 * a later kill of the same rank kills the replacement.
 * EXPECT: comma list of K:L - the iteration and level each recovery must return, in order -
 * or "none" when the (first) recovery must be reported unrecoverable, on every process.
 *
 * Every process, original or replacement, protects id 0: LEN(rank) ints whose values encode
 * (rank, save, index), id 1: the save number, id 2: its rank. Survivors repair
 * MPI_COMM_WORLD (MPI_Comm_dup) and call FTCKPT_Recover; a replacement calls FTCKPT_Init and
 * FTCKPT_Protect (local for it), makes the same MPI_Comm_dup and the same FTCKPT_Recover. Then
 * every process checks its own data bit-exactly (a replacement's was set to -1 before), the
 * save number and level against EXPECT, fetches and checks every rank of the recovered save,
 * and the saves go on from there, so copies held by replacements are used by later
 * recoveries. Prints "ckpt_rebuild OK recoveries EXPECT ..." when every process saw every
 * recovery it took part in as EXPECT says and the count matches, or "ckpt_rebuild
 * UNRECOVERABLE as expected". */
#include <ftckpt.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int wrank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int len_of(int rank) { return 1000 + 37 * rank; }
static int value(int rank, int k, int i) { return rank * 1000003 + k * 7919 + i; }

static void marker(char *path, size_t n, int index) {
  const char *dir = getenv("PIDDIR");
  snprintf(path, n, "%s/ckpt_killed.%d", dir ? dir : "/tmp", index);
}

/* Index of the kill spec for (this rank, when, save k) that has not fired yet, else -1. */
static int pending_kill(const char *spec, char when, int k) {
  char buf[512], path[600];
  snprintf(buf, sizeof buf, "%s", spec);
  int index = 0;
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","), index++) {
    int r, s;
    char w;
    if (sscanf(t, "%d@%c%d", &r, &w, &s) != 3 || r != wrank || w != when || s != k) continue;
    marker(path, sizeof path, index);
    if (access(path, F_OK) != 0) return index;
  }
  return -1;
}

static void set_marker(int index, int on) {
  char path[600];
  marker(path, sizeof path, index);
  if (!on) {
    unlink(path);
    return;
  }
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
}

/* Survivors and replacements alike: repair WORLD (a replacement's call is the construction
 * part of the survivors'), then recover; another failure meanwhile means: again. */
static int repair_and_recover(int *k) {
  for (int attempt = 0; attempt < 10; attempt++) {
    MPI_Comm tmp;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &tmp) != MPI_SUCCESS) continue;
    MPI_Comm_free(&tmp);
    int rc = FTCKPT_Recover(k);
    if (rc == MPI_SUCCESS || rc == FTCKPT_ERR_UNRECOVERABLE || rc == FTCKPT_ERR_NO_CHECKPOINT) return rc;
    fprintf(stderr, "rank %d: recover attempt %d: %s\n", wrank, attempt, FTCKPT_Error_string(rc));
  }
  return MPI_ERR_OTHER;
}

/* Fetches and checks every process of the recovered iteration. */
static void check_all(int k) {
  int old_size, old_rank, level, map[256];
  FTCKPT_Recovery_info(&old_size, &old_rank, 256, map, &level);
  CHECK(old_rank == wrank, "Recovery_info says old rank %d", old_rank);
  for (int o = 0; o < old_size; o++) {
    CHECK(map[o] == o, "old rank %d is now rank %d", o, map[o]);
    int orig = -1, rc = FTCKPT_Fetch(o, 2, &orig, 1, MPI_INT);
    CHECK(rc == MPI_SUCCESS && orig == o, "fetch id 2 of old rank %d: %s, %d", o, FTCKPT_Error_string(rc), orig);
    if (rc != MPI_SUCCESS) return;
    int n = len_of(o), *data = malloc(sizeof(int) * n), bad = 0;
    rc = FTCKPT_Fetch(o, 0, data, n, MPI_INT);
    CHECK(rc == MPI_SUCCESS, "fetch id 0 of old rank %d: %s", o, FTCKPT_Error_string(rc));
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) bad += data[i] != value(o, k, i);
    CHECK(bad == 0, "fetched old rank %d: %d wrong values", o, bad);
    free(data);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  if (argc < 6) { fprintf(stderr, "usage: ckpt_rebuild DF SD SAVES KILLS EXPECT [L4DIR|- L4EVERY [L3GROUP]]\n"); return 2; }
  int init_state = FTMPI_INIT_NEW, size = 0;
  FTMPI_Init_state(&init_state);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int restarted = init_state == FTMPI_INIT_RESTARTED;
  FTCKPT_Config cfg;
  FTCKPT_Config_default(&cfg);
  cfg.df = atoi(argv[1]);
  cfg.sd = atoi(argv[2]);
  cfg.verbose = 1;
  int saves = atoi(argv[3]);
  const char *kills = argv[4], *expect = argv[5];
  if (argc > 7 && strcmp(argv[6], "-")) { cfg.l4_dir = argv[6]; cfg.l4_every = atoi(argv[7]); }
  if (argc > 8) cfg.l3_group = atoi(argv[8]);
  int rc = FTCKPT_Init(MPI_COMM_WORLD, &cfg);
  CHECK(rc == MPI_SUCCESS, "init: %s", FTCKPT_Error_string(rc));

  int n = len_of(wrank), *data = malloc(sizeof(int) * n), k = 0, me = wrank;
  FTCKPT_Protect(0, data, n, MPI_INT);
  FTCKPT_Protect(1, &k, 1, MPI_INT);
  FTCKPT_Protect(2, &me, 1, MPI_INT);
  if (restarted) { /* nothing of its own: everything must come from the survivors */
    printf("rank %d: restarted as a replacement\n", wrank);
    fflush(stdout);
    for (int i = 0; i < n; i++) data[i] = -1;
    k = -1;
    me = -1;
    CHECK(FTCKPT_Save() == FTCKPT_ERR_STATE, "a replacement's Save before Recover must be refused");
  }
  int recoveries = 0, need_recovery = restarted;
  while (k < saves || need_recovery) {
    if (!need_recovery) {
      for (int i = 0; i < n; i++) data[i] = value(wrank, k, i);
      int in_save = pending_kill(kills, 'd', k);
      if (in_save >= 0) set_marker(in_save, 1), FTCKPT_Test_kill_in_save(k);
      rc = FTCKPT_Save();
      if (in_save >= 0) set_marker(in_save, 0), FTCKPT_Test_kill_in_save(-1); /* not reached the kill */
      if (rc == MPI_SUCCESS) {
        int after = pending_kill(kills, 'a', k);
        if (after >= 0) set_marker(after, 1), raise(SIGKILL);
        k++;
        if (k == saves) { /* a kill after the last save would go unnoticed: check for it */
          rc = MPI_Barrier(MPI_COMM_WORLD);
          if (rc == MPI_SUCCESS) break;
        } else {
          continue;
        }
      }
    }
    need_recovery = 0;
    for (int i = 0; i < n; i++) data[i] = -2; /* recovery must bring the values back */
    int recovered = -1, in_recover = pending_kill(kills, 'r', recoveries + 1);
    if (in_recover >= 0) set_marker(in_recover, 1), FTCKPT_Test_kill_in_recover(1);
    rc = repair_and_recover(&recovered);
    if (rc == FTCKPT_ERR_UNRECOVERABLE) {
      CHECK(!strcmp(expect, "none"), "recovery failed (%s), expected %s", FTCKPT_Error_string(rc), expect);
      if (!failures) printf("rank %d: ckpt_rebuild UNRECOVERABLE as expected%s\n", wrank, restarted ? " (replacement)" : "");
      FTCKPT_Finalize();
      MPI_Finalize();
      return failures ? 1 : 0;
    }
    CHECK(rc == MPI_SUCCESS, "recover: %s", FTCKPT_Error_string(rc));
    if (rc != MPI_SUCCESS) break;
    /* A replacement does not know how many recoveries came before it: agree on the count. */
    int count = recoveries + 1;
    MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    recoveries = count;
    int level = 0, want_k = -1, want_level = -1;
    FTCKPT_Recovery_info(NULL, NULL, 0, NULL, &level);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", expect);
    int index = 1;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","), index++)
      if (index == recoveries) sscanf(t, "%d:%d", &want_k, &want_level);
    CHECK(recovered == want_k && level == want_level, "recovery %d gave iteration %d level %d, expected %d:%d (%s)",
          recoveries, recovered, level, want_k, want_level, expect);
    CHECK(k == recovered, "save counter restored to %d, recovered %d", k, recovered);
    CHECK(me == wrank, "id 2 restored to %d", me);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += data[i] != value(wrank, recovered, i);
    CHECK(bad == 0, "%d of %d own values not restored", bad, n);
    printf("rank %d: recovery %d: iteration %d level %d, own data %s%s\n", wrank, recoveries, recovered, level,
           bad ? "WRONG" : "bit-exact", restarted ? " (replacement)" : "");
    fflush(stdout);
    check_all(recovered);
    k = recovered + 1;
  }
  int all_failures = 0, n_expect = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (const char *p = expect; *p; p++) n_expect += *p == ':';
  if (wrank == 0) {
    if (recoveries != n_expect) all_failures++, fprintf(stderr, "rank 0: %d recoveries, expected %s\n", recoveries, expect);
    if (!all_failures) printf("ckpt_rebuild OK recoveries %s after %d saves on %d ranks\n", expect, k, size);
    else printf("ckpt_rebuild FAILED: %d check(s)\n", all_failures);
  }
  FTCKPT_Finalize();
  free(data);
  MPI_Finalize();
  return all_failures ? 1 : 0;
}
