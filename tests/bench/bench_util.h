/* Shared helpers for the benchmarks: option parsing, medians, aligned buffers, output format.
 * Plain C99 + MPI-1 only, so one source builds against ftmpi, MPICH and Open MPI alike. */
#ifndef FTMPI_BENCH_UTIL_H
#define FTMPI_BENCH_UTIL_H

/* posix_memalign under -std=c99 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200112L
#endif

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Repetitions per measurement (the median is reported) and target seconds per repetition
 * (sets the iteration count, so slow cases such as 8 oversubscribed ranks stay bounded). */
typedef struct {
    int reps;
    double target_s;
} bench_opts;

static inline void bench_parse(int argc, char **argv, bench_opts *o)
{
    o->reps = 9;
    o->target_s = 0.05;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc)
            o->reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            o->target_s = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [-r reps] [-t seconds_per_rep]\n", argv[0]);
            exit(2);
        }
    }
    if (o->reps < 1)
        o->reps = 1;
    if (o->reps > 99)
        o->reps = 99;
    if (o->target_s <= 0)
        o->target_s = 0.05;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Page-aligned and touched, so first-touch page faults stay out of the timings. */
static inline void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

/* Iterations for one repetition, from a probe of `probe_iters` that took `probe_s`. */
static inline int bench_iters_for(double target_s, int probe_iters, double probe_s)
{
    double n = probe_s > 0 ? target_s * probe_iters / probe_s : 1e6;
    if (n < 1)
        n = 1;
    if (n > 1e6)
        n = 1e6;
    return (int)n;
}

/* One machine-readable result line; run.sh parses the key=value fields. Times are per
 * operation (one-way for ping-pong), MBps is 10^6 bytes/s as fi_pingpong prints it. */
static inline void bench_report(const char *test, const char *metric, long bytes, int np, int iters,
                         int reps, double *samples_us)
{
    double med = bench_median(samples_us, reps);
    printf("BENCH test=%s metric=%s bytes=%ld np=%d iters=%d reps=%d median_us=%.3f "
           "min_us=%.3f max_us=%.3f MBps=%.1f\n",
           test, metric, bytes, np, iters, reps, med, samples_us[0], samples_us[reps - 1],
           med > 0 ? (double)bytes / med : 0.0);
    fflush(stdout);
}

#endif
