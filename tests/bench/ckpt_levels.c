/* ckpt_levels.c — recovery latency when the level is chosen from the failure topology
 * (ftckpt's way, seed 001) against trying levels in turn with a validation round each.
 *
 * 4 ranks, DF=1, SD=1, XOR groups of 2 ({0,1} {2,3}), level-4 files at every save, V bytes
 * per rank (-m MiB, default 64). After SAVES saves (default 3) one failure pattern is
 * injected (--pattern):
 *   L1  nobody dies; the application rolls back anyway (level 1: own memory)
 *   L2  rank 3 dies: its copy on rank 0 survives (level 2)
 *   L3  ranks 1 and 2 die: 1's only copy was on 2; each XOR group lost one (level 3)
 *   L4  ranks 0 and 1 die: one group lost both and 0's copy was on 1 (level 4: files)
 * The survivors repair (SHRINK), then FTCKPT_Recover with the level chosen from the topology
 * (--rounds 0) or validated level by level (--rounds 1, FTCKPT_Test_level_search), then
 * every lost rank's data is fetched by one survivor (lost rank i by survivor i mod the
 * survivors, as replacements would get it). Every restored and fetched word is checked.
 * Rank 0 of the survivors prints one line (the slowest survivor's times):
 *   ckpt_levels: pattern L3 rounds 0 level 3 validation_rounds 0 select_us 4.1 recover_ms ...
 *     fetch_ms ... total_ms ...
 * One recovery per run; tests/bench/ckpt_levels.sh repeats runs and prints the table.
 *
 *   mpirun -n 4 --comm-mode shrink ftmpi-ckpt-levels --pattern L3 [--rounds 1] [-m MiB]
 *          [--dir DIR] [--saves N] */
#define _DEFAULT_SOURCE
#include "ckpt_pattern.h"
#include <dirent.h>
#include <ftckpt.h>
#include <ftmpi.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank;

static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "ftckpt-", 7)) continue;
        char f[1024];
        snprintf(f, sizeof f, "%s/%s", path, e->d_name);
        unlink(f);
    }
    closedir(d);
    rmdir(path);
}

static double max_over(double t)
{
    double m = t;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *pattern = "L2", *dir = "/tmp/ftmpi-ckpt-levels";
    int mib = 64, rounds = 0, saves = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pattern") && i + 1 < argc) pattern = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) mib = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "--saves") && i + 1 < argc) saves = atoi(argv[++i]);
        else {
            if (rank == 0) fprintf(stderr, "usage: %s --pattern L1|L2|L3|L4 [--rounds 0|1] [-m MiB] [--dir D] [--saves N]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    /* The victims of each pattern (ranks at start). */
    int victims[2] = {-1, -1}, expect_level = 0;
    if (!strcmp(pattern, "L1")) expect_level = 1;
    else if (!strcmp(pattern, "L2")) victims[0] = 3, expect_level = 2;
    else if (!strcmp(pattern, "L3")) victims[0] = 1, victims[1] = 2, expect_level = 3;
    else if (!strcmp(pattern, "L4")) victims[0] = 0, victims[1] = 1, expect_level = 4;
    int comm_mode = FTMPI_COMM_MODE_ABORT, msg_mode;
    FTMPI_Comm_get_mode(MPI_COMM_WORLD, &comm_mode, &msg_mode);
    if (!expect_level || np != 4 || mib < 1 || saves < 1 ||
        (expect_level > 1 && comm_mode != FTMPI_COMM_MODE_SHRINK)) {
        if (rank == 0) fprintf(stderr, "ckpt_levels: needs -n 4, --comm-mode shrink and a pattern L1..L4\n");
        MPI_Finalize();
        return 2;
    }

    const size_t bytes = (size_t)mib << 20, words = bytes / 8;
    uint64_t *data = malloc(bytes), *taken = malloc(bytes);
    if (!data || !taken) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(taken, 0, bytes);
    char path[512];
    int tag_pid = (int)getpid(); /* one directory per job: rank 0's pid */
    MPI_Bcast(&tag_pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s-%d", dir, tag_pid);
    FTCKPT_Config cfg;
    FTCKPT_Config_default(&cfg);
    cfg.df = 1;
    cfg.sd = 1;
    cfg.l3_group = 2;
    cfg.l4_dir = path;
    cfg.l4_every = 1;
    int rc = FTCKPT_Init(MPI_COMM_WORLD, &cfg);
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    FTCKPT_Test_level_search(rounds);
    FTCKPT_Protect(0, data, (int)words, MPI_UINT64_T);
    long k;
    for (k = 0; k < saves; k++) {
        fill(data, words, rank, k);
        if ((rc = FTCKPT_Save()) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const long last = saves - 1;
    fill(data, words, rank, -1); /* recovery must bring save `last` back */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victims[0] || rank == victims[1]) raise(SIGKILL);
    int failures = 0;
    if (expect_level > 1) {
        rc = MPI_Barrier(MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS) {
            fprintf(stderr, "rank %d: the kill was not noticed\n", rank);
            failures++;
        }
    }

    double t0 = now();
    MPI_Comm tmp;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &tmp); /* repair (no-op without a failure) */
    if (rc == MPI_SUCCESS) MPI_Comm_free(&tmp);
    double t1 = now();
    int it = -1, level = 0, old_size = 0, map[4], nrounds = -1;
    double select_s = 0;
    if (rc == MPI_SUCCESS) rc = FTCKPT_Recover(&it);
    double t2 = now();
    FTCKPT_Recovery_info(&old_size, NULL, 4, map, &level);
    FTCKPT_Test_last_selection(&select_s, &nrounds);
    if (rc != MPI_SUCCESS || it != last || level != expect_level) {
        fprintf(stderr, "rank %d: recover: %s, iteration %d level %d (expected %ld, %d)\n", rank,
                FTCKPT_Error_string(rc), it, level, last, expect_level);
        failures++;
    }
    int nsurv, me;
    MPI_Comm_size(MPI_COMM_WORLD, &nsurv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int nlost = 0, fetched = -1; /* at most one lost rank per survivor in these patterns */
    for (int o = 0; o < old_size && failures == 0; o++) {
        if (map[o] >= 0) continue;
        int mine = nlost++ % nsurv == me;
        rc = FTCKPT_Fetch(o, 0, mine ? taken : NULL, (int)words, MPI_UINT64_T);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: fetch of %d: %s\n", rank, o, FTCKPT_Error_string(rc));
            failures++;
        }
        if (mine) fetched = o;
    }
    double t3 = now();
    /* Checked after the clock stopped. */
    size_t bad = count_bad(data, words, rank, last);
    if (bad) {
        fprintf(stderr, "rank %d: %zu own words not restored\n", rank, bad);
        failures++;
    }
    if (fetched >= 0 && (bad = count_bad(taken, words, fetched, last))) {
        fprintf(stderr, "rank %d: %zu fetched words of %d wrong\n", rank, bad, fetched);
        failures++;
    }
    double recover = max_over(t2 - t1), fetch = max_over(t3 - t2), total = max_over(t3 - t1),
           repair = max_over(t1 - t0), select = max_over(select_s);
    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("ckpt_levels: pattern %s rounds %d level %d validation_rounds %d MiB %d select_us %.1f "
               "recover_ms %.3f fetch_ms %.3f total_ms %.3f repair_ms %.3f%s\n",
               pattern, rounds, level, nrounds, mib, 1e6 * select, 1e3 * recover, 1e3 * fetch,
               1e3 * total, 1e3 * repair, all_failures ? " FAILED" : "");
        if (!all_failures) printf("ckpt_levels: OK\n");
    }
    FTCKPT_Finalize();
    if (me == 0) remove_dir(path); /* the dead ranks' files too */
    free(data);
    free(taken);
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
