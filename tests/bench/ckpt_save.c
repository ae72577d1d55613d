/* ckpt_save.c — throughput of FTCKPT_Save against just moving the same bytes, and the time to
 * get one lost rank's data back.
 *
 * Every rank protects V bytes (-m MiB, default 64). Each repetition (-r, default 10) times,
 * on every rank between two barriers, (a) FTCKPT_Save() and (b) a hand-written baseline with
 * the same traffic: a memcpy of V bytes into a preallocated buffer, Irecv of the DF copies
 * this rank holds and Isend of its DF copies to receiver(i, j, k) of the placement formula
 * (SPEC 7.1) for the same k, one Waitall - once in the obvious order (memcpy first) and once
 * with the receives posted before the memcpy (the order FTCKPT_Save uses). A repetition's
 * time is the slowest rank's; the median over repetitions is reported, with the ratio of
 * save to the faster baseline. The first SD+1 saves (the ring filling up) are warm-up and
 * not timed; the order of the three measurements rotates.
 *
 * Then (unless --no-kill) the victim (--victim, default the last rank) SIGKILLs itself and
 * the survivors measure a REBUILD-style recovery as well as SHRINK allows (the real REBUILD
 * recovery, with a replacement process, is measured by ckpt_rebuild.c): repair
 * (MPI_Comm_dup), FTCKPT_Recover, and FTCKPT_Fetch of the victim's V bytes by one survivor
 * that does not hold a copy (as a replacement would), compared with a plain V-byte message.
 * Every fetched and restored byte is checked. Prints "ckpt_save: OK" at the end.
 *
 *   mpirun -n 4 --comm-mode shrink ftmpi-ckpt-save [-m MiB] [-r reps] [--df 2] [--sd 2]
 *          [--l3 G] [--victim R] [--no-kill]
 *
 * --l3 G turns on level 3 (XOR groups of G) in the library; the baselines stay without
 * parity traffic, so the ratio then shows what level 3 costs on top.
 *
 * Without --comm-mode shrink the recovery part is skipped (the kill would end the job). */
#include "ckpt_pattern.h"
#include "bench_util.h"

#include <ftckpt.h>
#include <ftmpi.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

static int rank, np, df = 2, sd = 2, l3 = 0;

static long ipow_mod(long b, int e, long m)
{
    long r = 1 % m;
    for (int i = 0; i < e; i++)
        r = (r * (b % m)) % m;
    return r;
}

/* Formula (1) of SPEC 7.1. */
static int receiver(int i, int j, long k)
{
    int p = (int)(k % sd);
    return (int)((i + (long)j * ipow_mod(df, p, np) + p) % np);
}

static double max_over(double t, MPI_Comm comm)
{
    double m = t;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

/* Baseline of one save: local copy plus DF sends/receives of the same size and peers.
 * recv_first = 0: memcpy, then post everything (the obvious order); 1: receives posted
 * before the memcpy, as FTCKPT_Save does. */
static double baseline(const char *data, char *own, char **held, size_t bytes, long k, int recv_first)
{
    MPI_Request reqs[128];
    int nreq = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    if (!recv_first)
        memcpy(own, data, bytes);
    for (int j = 1; j <= df; j++) {
        /* The owner whose copy j lands here; skipped when the copy would stay on its owner. */
        int p = (int)(k % sd);
        int off = (int)(((long)j * ipow_mod(df, p, np) + p) % np);
        int owner = ((rank - off) % np + np) % np;
        if (owner != rank)
            MPI_Irecv(held[j - 1], (int)bytes, MPI_BYTE, owner, 50 + j, MPI_COMM_WORLD, &reqs[nreq++]);
    }
    if (recv_first)
        memcpy(own, data, bytes);
    for (int j = 1; j <= df; j++) {
        int r = receiver(rank, j, k);
        if (r != rank)
            MPI_Isend(own, (int)bytes, MPI_BYTE, r, 50 + j, MPI_COMM_WORLD, &reqs[nreq++]);
    }
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    return max_over(now() - t0, MPI_COMM_WORLD);
}

static double timed_save(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    int rc = FTCKPT_Save();
    double t = now() - t0;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FTCKPT_Save: %s\n", rank, FTCKPT_Error_string(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return max_over(t, MPI_COMM_WORLD);
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [-m MiB] [-r reps] [--df N] [--sd N] [--l3 G] [--victim R] [--no-kill]\n", prog);
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int mib = 64, reps = 10, victim = np - 1, kill = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) mib = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--df") && i + 1 < argc) df = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sd") && i + 1 < argc) sd = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--victim") && i + 1 < argc) victim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--l3") && i + 1 < argc) l3 = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-kill")) kill = 0;
        else usage(argv[0]);
    }
    if (mib < 1 || mib > 1024 || reps < 1 || reps > 99 || df < 1 || df > 64 || sd < 1 ||
        victim < 0 || victim >= np || np < 2)
        usage(argv[0]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int comm_mode = FTMPI_COMM_MODE_ABORT, msg_mode;
    FTMPI_Comm_get_mode(MPI_COMM_WORLD, &comm_mode, &msg_mode);
    if (kill && comm_mode != FTMPI_COMM_MODE_SHRINK) {
        if (rank == 0) printf("ckpt_save: not run with --comm-mode shrink: no recovery measured\n");
        kill = 0;
    }

    const size_t bytes = (size_t)mib << 20, words = bytes / 8;
    uint64_t *data = bench_alloc(bytes);
    char *own = bench_alloc(bytes), *held[64];
    for (int j = 0; j < df; j++)
        held[j] = bench_alloc(bytes);

    FTCKPT_Config cfg;
    FTCKPT_Config_default(&cfg);
    cfg.df = df;
    cfg.sd = sd;
    cfg.l3_group = l3;
    int rc = FTCKPT_Init(MPI_COMM_WORLD, &cfg);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FTCKPT_Init: %s\n", rank, FTCKPT_Error_string(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    FTCKPT_Protect(0, data, (int)words, MPI_UINT64_T);

    long k = 0;
    for (; k <= sd; k++) { /* warm-up: the ring's SD+1 slots get their buffers */
        fill(data, words, rank, k);
        timed_save();
        baseline((const char *)data, own, held, bytes, k, 0);
    }
    /* The order of the three rotates so that none always runs right after another. */
    double t_save[99], t_base[99], t_base2[99];
    for (int r = 0; r < reps; r++, k++) {
        fill(data, words, rank, k);
        for (int step = 0; step < 3; step++) {
            int which = (r + step) % 3;
            if (which == 0) t_save[r] = timed_save();
            else if (which == 1) t_base[r] = baseline((const char *)data, own, held, bytes, k, 0);
            else t_base2[r] = baseline((const char *)data, own, held, bytes, k, 1);
        }
    }
    const long last = k - 1; /* the newest save */
    double save_ms = 1e3 * bench_median(t_save, reps), base_ms = 1e3 * bench_median(t_base, reps),
           base2_ms = 1e3 * bench_median(t_base2, reps);
    double best_ms = base_ms < base2_ms ? base_ms : base2_ms;
    long long mem = 0;
    FTCKPT_Memory_usage(&mem);
    if (rank == 0) {
        printf("ckpt_save: np %d MiB %d df %d sd %d l3_group %d reps %d\n", np, mib, df, sd, l3, reps);
        printf("ckpt_save: save_median_ms %.2f (min %.2f max %.2f) save_GBps %.2f\n", save_ms,
               1e3 * t_save[0], 1e3 * t_save[reps - 1], (double)bytes * (df + 1) / (save_ms * 1e-3) / 1e9);
        printf("ckpt_save: baseline_copy_first_median_ms %.2f (min %.2f max %.2f) "
               "baseline_recv_first_median_ms %.2f (min %.2f max %.2f)\n",
               base_ms, 1e3 * t_base[0], 1e3 * t_base[reps - 1], base2_ms, 1e3 * t_base2[0],
               1e3 * t_base2[reps - 1]);
        printf("ckpt_save: ratio %.3f (save / faster baseline; %.3f against copy-first)\n",
               save_ms / best_ms, save_ms / base_ms);
        printf("ckpt_save: memory per process %.1f MiB (%.2f x V)\n", mem / 1048576.0,
               (double)mem / (double)bytes);
        fflush(stdout);
    }
    if (!kill) {
        FTCKPT_Finalize();
        if (rank == 0) printf("ckpt_save: OK\n");
        MPI_Finalize();
        return 0;
    }

    /* A plain V-byte message between two survivors that are not copy holders, for scale. */
    int holder = -1;
    for (int j = 1; j <= df && holder < 0; j++) {
        int r = receiver(victim, j, last);
        if (r != victim) holder = r;
    }
    int taker = -1; /* lowest survivor that does not hold the victim's copy: the "replacement" */
    for (int r = 0; r < np && taker < 0; r++)
        if (r != victim && r != holder) taker = r;
    double t_msg = 0;
    if (holder >= 0 && taker >= 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        if (rank == holder) MPI_Send(own, (int)bytes, MPI_BYTE, taker, 60, MPI_COMM_WORLD);
        if (rank == taker) MPI_Recv(held[0], (int)bytes, MPI_BYTE, holder, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t_msg = max_over(now() - t0, MPI_COMM_WORLD);
    }

    fill(data, words, rank, -1); /* recovery must bring save `last` back */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) raise(SIGKILL);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    int failures = rc == MPI_SUCCESS;
    if (failures) fprintf(stderr, "rank %d: the kill was not noticed\n", rank);

    double t0 = now();
    MPI_Comm tmp;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
    if (rc == MPI_SUCCESS) MPI_Comm_free(&tmp);
    double t1 = now();
    int it = -1;
    if (rc == MPI_SUCCESS) rc = FTCKPT_Recover(&it);
    double t2 = now();
    int level = 0;
    FTCKPT_Recovery_info(NULL, NULL, 0, NULL, &level);
    if (rc != MPI_SUCCESS || it != last) {
        fprintf(stderr, "rank %d: recover: %s, iteration %d (expected %ld)\n", rank,
                FTCKPT_Error_string(rc), it, last);
        failures++;
    }
    size_t bad = count_bad(data, words, rank, last);
    if (bad) {
        fprintf(stderr, "rank %d: %zu own words not restored\n", rank, bad);
        failures++;
    }
    int me_taker = rank == taker;
    MPI_Barrier(MPI_COMM_WORLD); /* the fetch alone, not the survivors' skew after Recover */
    double t3 = now();
    rc = FTCKPT_Fetch(victim, 0, me_taker ? held[0] : NULL, (int)words, MPI_UINT64_T);
    double t4 = now();
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: fetch: %s\n", rank, FTCKPT_Error_string(rc));
        failures++;
    }
    if (me_taker && (bad = count_bad((uint64_t *)held[0], words, victim, last))) {
        fprintf(stderr, "rank %d: %zu fetched words wrong\n", rank, bad);
        failures++;
    }
    double repair = max_over(t1 - t0, MPI_COMM_WORLD), recover = max_over(t2 - t1, MPI_COMM_WORLD),
           fetch = max_over(t4 - t3, MPI_COMM_WORLD), total = max_over(t4 - t0, MPI_COMM_WORLD);
    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int newrank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &newrank);
    if (newrank == 0) {
        printf("ckpt_save: recovery of rank %d (%d MiB, level %d, copy held by %d, fetched by %d): "
               "repair_ms %.2f recover_ms %.2f fetch_ms %.2f total_ms %.2f "
               "(plain %d MiB message %.2f ms)\n",
               victim, mib, level, holder, taker, 1e3 * repair, 1e3 * recover, 1e3 * fetch,
               1e3 * total, mib, 1e3 * t_msg);
        if (!all_failures) printf("ckpt_save: OK\n");
        fflush(stdout);
    }
    FTCKPT_Finalize();
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
