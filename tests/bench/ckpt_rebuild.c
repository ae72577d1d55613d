/* ckpt_rebuild.c — time to get a killed rank's state back into a REBUILD replacement.
 *
 * Every rank protects V bytes (-m MiB, default 64) and its repetition counter. Each
 * repetition (-r, default 5): one FTCKPT_Save, then the victim (--victim, default the last
 * rank; the first repetition's victim is an original process, later ones are replacements)
 * SIGKILLs itself. The survivors notice it in a barrier, repair MPI_COMM_WORLD (MPI_Comm_dup,
 * which starts the replacement and waits for it) and call FTCKPT_Recover; the replacement
 * starts from main, MPI_Init returns with the world repaired, it allocates and protects its
 * V bytes, makes the same MPI_Comm_dup and FTCKPT_Recover, which sends it the victim's image
 * from the holder of its copy. Every byte it gets is checked. Timestamps are
 * CLOCK_MONOTONIC, comparable between processes of one host:
 *
 *   detect      the first survivor's barrier returned the error (t0)
 *   main        the replacement entered main (exec, dynamic loading and library
 *               constructors are before this: the process start)
 *   init        its MPI_Init returned (joined the job, world repaired)
 *   alloc       it allocated and touched its V bytes (as any start of the application does)
 *   dup         its MPI_Comm_dup returned (the survivors' repair call completed with it)
 *   recovered   the last process returned from FTCKPT_Recover, data in place
 *
 * The process start is also measured on its own: rank 0 starts this program --start-probe
 * times (default 5) with posix_spawn, and the child writes the time it entered main to a
 * pipe before doing anything else. "without the process start" is the total minus that
 * median; "recovery proper" is what remains after also taking out MPI_Init and the
 * allocation: detection, agreement, spawn request, the repair's completion and Recover.
 *
 *   mpirun -n 4 --comm-mode rebuild ftmpi-ckpt-rebuild [-m MiB] [-r reps] [--df 2] [--sd 2]
 *          [--l3 G] [--victim R]
 *
 * Prints one line per repetition, the medians, and "ckpt_rebuild: OK". */
#include "ckpt_pattern.h"
#include "bench_util.h"

#include <ftckpt.h>
#include <ftmpi.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The child of the start probe: the time it entered main, down the pipe, and out. */
static void start_probe_child(const char *fd_text, double t_main)
{
    int fd = atoi(fd_text);
    if (write(fd, &t_main, sizeof t_main) != (ssize_t)sizeof t_main)
        _exit(1);
    _exit(0);
}

/* exec -> main of this very program, without MPI_Init: median of n starts. */
static double measure_start(const char *self, int n)
{
    double t[16];
    int done = 0;
    for (int i = 0; i < n && i < 16; i++) {
        int p[2];
        if (pipe(p) != 0)
            break;
        char var[64];
        snprintf(var, sizeof var, "FTCKPT_BENCH_START_PROBE=%d", p[1]);
        int count = 0;
        while (environ[count])
            count++;
        char **env = malloc(sizeof(char *) * (size_t)(count + 2));
        memcpy(env, environ, sizeof(char *) * (size_t)count);
        env[count] = var;
        env[count + 1] = NULL;
        char *argv[] = {(char *)self, NULL};
        pid_t pid;
        double t0 = now(), t_child = 0;
        int rc = posix_spawn(&pid, self, NULL, NULL, argv, env);
        free(env);
        close(p[1]);
        if (rc == 0) {
            ssize_t got = read(p[0], &t_child, sizeof t_child);
            waitpid(pid, NULL, 0);
            if (got == (ssize_t)sizeof t_child)
                t[done++] = t_child - t0;
        }
        close(p[0]);
    }
    return done ? bench_median(t, done) : -1;
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [-m MiB] [-r reps] [--df N] [--sd N] [--l3 G] [--victim R] [--start-probe N]\n", prog);
    exit(2);
}

/* Timestamps combined with one MPI_MAX allreduce; start times enter negated. */
enum { NEG_DETECT, SURV_DUP, SURV_RECOVER, REP_MAIN, REP_INIT, REP_ALLOC, REP_DUP, REP_RECOVER, NTIMES };
enum { LEFT_BARRIER_TAG = 77 }; /* survivor -> victim: "I have left the barrier after the save" */

int main(int argc, char **argv)
{
    const double t_main = now();
    if (getenv("FTCKPT_BENCH_START_PROBE"))
        start_probe_child(getenv("FTCKPT_BENCH_START_PROBE"), t_main);
    MPI_Init(&argc, &argv);
    const double t_init = now();
    int rank, np, state = FTMPI_INIT_NEW;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    FTMPI_Init_state(&state);
    const int replacement = state == FTMPI_INIT_RESTARTED;
    int mib = 64, reps = 5, df = 2, sd = 2, l3 = 0, victim = np - 1, probes = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) mib = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--df") && i + 1 < argc) df = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sd") && i + 1 < argc) sd = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--l3") && i + 1 < argc) l3 = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--victim") && i + 1 < argc) victim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--start-probe") && i + 1 < argc) probes = atoi(argv[++i]);
        else usage(argv[0]);
    }
    /* Rank 0 keeps the per-repetition numbers, so it is never the victim. */
    if (mib < 1 || mib > 1024 || reps < 1 || reps > 99 || victim < 1 || victim >= np || np < 2 || probes < 0)
        usage(argv[0]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int comm_mode = FTMPI_COMM_MODE_ABORT, msg_mode;
    FTMPI_Comm_get_mode(MPI_COMM_WORLD, &comm_mode, &msg_mode);
    if (comm_mode != FTMPI_COMM_MODE_REBUILD) {
        if (rank == 0) fprintf(stderr, "ckpt_rebuild: run with mpirun --comm-mode rebuild\n");
        MPI_Finalize();
        return 2;
    }

    const size_t bytes = (size_t)mib << 20, words = bytes / 8;
    uint64_t *data = bench_alloc(bytes); /* a replacement allocates its arrays like any start */
    const double t_alloc = now();
    FTCKPT_Config cfg;
    FTCKPT_Config_default(&cfg);
    cfg.df = df;
    cfg.sd = sd;
    cfg.l3_group = l3;
    int rc = FTCKPT_Init(MPI_COMM_WORLD, &cfg), rep = 0, failures = 0;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FTCKPT_Init: %s\n", rank, FTCKPT_Error_string(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    FTCKPT_Protect(0, data, (int)words, MPI_UINT64_T);
    FTCKPT_Protect(1, &rep, 1, MPI_INT);
    long k = 0;
    if (!replacement) {
        for (; k < sd; k++) { /* the ring holds SD iterations before the first kill */
            fill(data, words, rank, k);
            if ((rc = FTCKPT_Save()) != MPI_SUCCESS) {
                fprintf(stderr, "rank %d: FTCKPT_Save: %s\n", rank, FTCKPT_Error_string(rc));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    double total[99], start_free[99], proper[99], to_main[99], mpi_init[99], alloc[99], dup[99], recover[99],
        surv_recover[99];
    int level = 0;
    for (; rep < reps; rep++) {
        double t[NTIMES], all[NTIMES];
        for (int i = 0; i < NTIMES; i++) t[i] = -1e300;
        int it = -1;
        if (!replacement || rep > 0 || k > 0) {
            /* Everybody alive saves (a replacement's first turn starts after its recovery). */
            fill(data, words, rank, k);
            rc = FTCKPT_Save();
            if (rc == MPI_SUCCESS) rc = MPI_Barrier(MPI_COMM_WORLD);
            if (rc != MPI_SUCCESS) {
                fprintf(stderr, "rank %d: save %ld: %s\n", rank, k, FTCKPT_Error_string(rc));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            k++;
            /* The victim dies only once every survivor has left that barrier: a death while a
             * slower rank is still inside it may (rightly) fail that rank's barrier. Each
             * survivor tells the victim so with an eager zero-byte send, which completes locally. */
            if (rank == victim) {
                for (int i = 1; i < np; i++)
                    MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, LEFT_BARRIER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                raise(SIGKILL);
            }
            MPI_Send(NULL, 0, MPI_BYTE, victim, LEFT_BARRIER_TAG, MPI_COMM_WORLD);
            fill(data, words, rank, -1); /* recovery must bring save k-1 back */
            rc = MPI_Barrier(MPI_COMM_WORLD);
            t[NEG_DETECT] = -now();
            if (rc == MPI_SUCCESS) failures++, fprintf(stderr, "rank %d: the kill was not noticed\n", rank);
            MPI_Comm tmp;
            rc = MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
            if (rc == MPI_SUCCESS) MPI_Comm_free(&tmp);
            t[SURV_DUP] = now();
            if (rc == MPI_SUCCESS) rc = FTCKPT_Recover(&it);
            t[SURV_RECOVER] = now();
        } else {
            t[REP_MAIN] = t_main;
            t[REP_INIT] = t_init;
            t[REP_ALLOC] = t_alloc;
            MPI_Comm tmp;
            rc = MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
            if (rc == MPI_SUCCESS) MPI_Comm_free(&tmp);
            t[REP_DUP] = now();
            if (rc == MPI_SUCCESS) rc = FTCKPT_Recover(&it);
            t[REP_RECOVER] = now();
            k = it + 1; /* rep was restored with the data */
        }
        if (rc != MPI_SUCCESS || it != k - 1) {
            fprintf(stderr, "rank %d: recover: %s, iteration %d (expected %ld)\n", rank, FTCKPT_Error_string(rc), it, k - 1);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        size_t bad = count_bad(data, words, rank, it);
        if (bad) failures++, fprintf(stderr, "rank %d: %zu of %zu words not restored\n", rank, bad, words);
        FTCKPT_Recovery_info(NULL, NULL, 0, NULL, &level);
        if (MPI_Allreduce(t, all, NTIMES, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: allreduce of the timings failed\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        const double t0 = -all[NEG_DETECT], done = all[SURV_RECOVER] > all[REP_RECOVER] ? all[SURV_RECOVER] : all[REP_RECOVER];
        total[rep] = done - t0;
        to_main[rep] = all[REP_MAIN] - t0;
        mpi_init[rep] = all[REP_INIT] - all[REP_MAIN];
        alloc[rep] = all[REP_ALLOC] - all[REP_INIT];
        dup[rep] = all[REP_DUP] - all[REP_ALLOC];
        recover[rep] = done - (all[REP_DUP] > all[SURV_DUP] ? all[REP_DUP] : all[SURV_DUP]);
        surv_recover[rep] = all[SURV_RECOVER] - all[SURV_DUP];
        if (rank == 0) {
            printf("ckpt_rebuild: rep %d: detect->main %.1f ms, MPI_Init %.1f ms, alloc %.1f ms, dup %.1f ms, "
                   "FTCKPT_Recover %.1f ms (survivors' %.1f ms), total %.1f ms (level %d)\n", rep, 1e3 * to_main[rep],
                   1e3 * mpi_init[rep], 1e3 * alloc[rep], 1e3 * dup[rep], 1e3 * recover[rep], 1e3 * surv_recover[rep],
                   1e3 * total[rep], level);
            fflush(stdout);
        }
    }
    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        double start = probes ? measure_start(argv[0], probes) : -1;
        for (int r = 0; r < reps; r++) {
            start_free[r] = total[r] - (start > 0 ? start : 0);
            proper[r] = start_free[r] - mpi_init[r] - alloc[r];
        }
        printf("ckpt_rebuild: np %d MiB %d df %d sd %d l3_group %d reps %d level %d\n", np, mib, df, sd, l3, reps, level);
        printf("ckpt_rebuild: median detect->replacement main %.1f ms, replacement MPI_Init %.1f ms, alloc %.1f ms, "
               "dup %.1f ms, FTCKPT_Recover %.1f ms (survivors' %.1f ms)\n",
               1e3 * bench_median(to_main, reps), 1e3 * bench_median(mpi_init, reps), 1e3 * bench_median(alloc, reps),
               1e3 * bench_median(dup, reps), 1e3 * bench_median(recover, reps), 1e3 * bench_median(surv_recover, reps));
        printf("ckpt_rebuild: median total %.1f ms; process start (exec->main, alone) %.1f ms; "
               "total without the process start %.1f ms; recovery proper (also without MPI_Init and alloc) %.1f ms\n",
               1e3 * bench_median(total, reps), 1e3 * start, 1e3 * bench_median(start_free, reps),
               1e3 * bench_median(proper, reps));
        if (!all_failures) printf("ckpt_rebuild: OK\n");
        fflush(stdout);
    }
    FTCKPT_Finalize();
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
