/* ftckpt end to end: save, kill, repair, recover, check every restored byte.
 *
 *   ckpt_restore DF SD SAVES KILLS EXPECT [L4DIR|- L4EVERY [L3GROUP [SEARCH]]]
 *
 * KILLS: comma list of RANK@aS (die right after save S completed) or RANK@dS (die inside save
 * S, copies in flight); ranks are MPI_COMM_WORLD ranks at start. EXPECT: the iteration
 * recovery must return, or "none" when the failures must be reported unrecoverable.
 * Each rank protects id 0: LEN(rank) ints whose values encode (rank, save, index) - sizes
 * differ per rank - id 1: the save number, id 2: its start rank. After recovery every
 * survivor checks its own rolled-back data and fetches every process of the recovered
 * iteration (lost ones from their holders), then saves once more on the repaired
 * communicator. L3GROUP > 0 turns on XOR groups (level 3); SEARCH 1 makes Recover validate
 * level by level with allreduce rounds (FTCKPT_Test_level_search) instead of using the
 * failure topology; the result must be the same. Prints "ckpt_restore OK iteration K level L" or
 * "ckpt_restore UNRECOVERABLE as expected". */
#include <ftckpt.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", wrank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int len_of(int orig) { return 1000 + 37 * orig; }
static int value(int orig, int k, int i) { return orig * 1000003 + k * 7919 + i; }

/* 'a' or 'd' when this rank must die at save k, else 0. */
static char kill_point(const char *spec, int k) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    int r, s;
    char when;
    if (sscanf(t, "%d@%c%d", &r, &when, &s) == 3 && r == wrank && s == k) return when;
  }
  return 0;
}

/* Every survivor repairs WORLD, then recovers; another failure meanwhile means: again. */
static int repair_and_recover(int *k) {
  for (int attempt = 0; attempt < 10; attempt++) {
    MPI_Comm tmp;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &tmp) != MPI_SUCCESS) continue;
    MPI_Comm_free(&tmp);
    int rc = FTCKPT_Recover(k);
    if (rc == MPI_SUCCESS || rc == FTCKPT_ERR_UNRECOVERABLE || rc == FTCKPT_ERR_NO_CHECKPOINT) return rc;
  }
  return MPI_ERR_OTHER;
}

/* Fetches and checks every process of the recovered iteration. */
static void check_all(int k) {
  int old_size, old_rank, level, map[256];
  FTCKPT_Recovery_info(&old_size, &old_rank, 256, map, &level);
  for (int o = 0; o < old_size; o++) {
    int orig = -1, rc = FTCKPT_Fetch(o, 2, &orig, 1, MPI_INT);
    CHECK(rc == MPI_SUCCESS && orig >= 0, "fetch id 2 of old rank %d: %s", o, FTCKPT_Error_string(rc));
    if (rc != MPI_SUCCESS) return;
    int n = len_of(orig), *data = malloc(sizeof(int) * n), bad = 0;
    rc = FTCKPT_Fetch(o, 0, data, n, MPI_INT);
    CHECK(rc == MPI_SUCCESS, "fetch id 0 of old rank %d: %s", o, FTCKPT_Error_string(rc));
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) bad += data[i] != value(orig, k, i);
    CHECK(bad == 0, "old rank %d (start rank %d, now %d): %d wrong values", o, orig, map[o], bad);
    free(data);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  if (argc < 6) { fprintf(stderr, "usage: ckpt_restore DF SD SAVES KILLS EXPECT [L4DIR|- L4EVERY [L3GROUP [SEARCH]]]\n"); return 2; }
  FTCKPT_Config cfg;
  FTCKPT_Config_default(&cfg);
  cfg.df = atoi(argv[1]);
  cfg.sd = atoi(argv[2]);
  cfg.verbose = 1;
  int saves = atoi(argv[3]);
  const char *kills = argv[4];
  int expect = strcmp(argv[5], "none") ? atoi(argv[5]) : -1;
  if (argc > 7 && strcmp(argv[6], "-")) { cfg.l4_dir = argv[6]; cfg.l4_every = atoi(argv[7]); }
  if (argc > 8) cfg.l3_group = atoi(argv[8]);
  int rounds_mode = argc > 9 ? atoi(argv[9]) : 0;
  FTCKPT_Test_level_search(rounds_mode);
  int rc = FTCKPT_Init(MPI_COMM_WORLD, &cfg);
  CHECK(rc == MPI_SUCCESS, "init: %s", FTCKPT_Error_string(rc));

  int n = len_of(wrank), *data = malloc(sizeof(int) * n), k = 0, orig = wrank;
  FTCKPT_Protect(0, data, n, MPI_INT);
  FTCKPT_Protect(1, &k, 1, MPI_INT);
  FTCKPT_Protect(2, &orig, 1, MPI_INT);
  for (k = 0; k < saves && rc == MPI_SUCCESS; k++) {
    for (int i = 0; i < n; i++) data[i] = value(wrank, k, i);
    if (kill_point(kills, k) == 'd') FTCKPT_Test_kill_in_save(k);
    rc = FTCKPT_Save();
    if (rc == MPI_SUCCESS && kill_point(kills, k) == 'a') raise(SIGKILL);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Barrier(MPI_COMM_WORLD); /* a kill after the last save */
  CHECK(rc != MPI_SUCCESS, "the kill was not noticed");

  for (int i = 0; i < n; i++) data[i] = -1; /* recovery must bring the values back */
  int recovered = -1;
  rc = repair_and_recover(&recovered);
  if (rc == FTCKPT_ERR_UNRECOVERABLE) {
    CHECK(expect < 0, "recovery failed (%s), expected iteration %d", FTCKPT_Error_string(rc), expect);
  } else {
    CHECK(rc == MPI_SUCCESS, "recover: %s", FTCKPT_Error_string(rc));
    CHECK(recovered == expect, "recovered iteration %d, expected %d", recovered, expect);
    CHECK(k == recovered, "own save counter restored to %d", k);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += data[i] != value(wrank, recovered, i);
    CHECK(bad == 0, "%d own values not rolled back", bad);
    check_all(recovered);
    int level = 0, tol = 0, size, rounds = -1;
    double select_s = -1;
    FTCKPT_Recovery_info(NULL, NULL, 0, NULL, &level);
    FTCKPT_Test_last_selection(&select_s, &rounds);
    CHECK(rounds_mode ? rounds >= 1 : rounds == 0, "%d validation rounds for level %d", rounds, level);
    CHECK(select_s >= 0, "selection time %g", select_s);
    FTCKPT_Tolerated(&tol);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rc = FTCKPT_Save(); /* the library works on the repaired communicator */
    CHECK(rc == MPI_SUCCESS, "save after recovery: %s", FTCKPT_Error_string(rc));
    rc = MPI_Barrier(MPI_COMM_WORLD);
    if (!failures) printf("rank %d: ckpt_restore OK iteration %d level %d (now %d ranks, tolerates %d, "
                          "%d validation rounds)\n", wrank, recovered, level, size, tol, rounds);
  }
  if (!failures && rc == FTCKPT_ERR_UNRECOVERABLE) printf("rank %d: ckpt_restore UNRECOVERABLE as expected\n", wrank);
  FTCKPT_Finalize();
  free(data);
  MPI_Finalize();
  return failures ? 1 : 0;
}
