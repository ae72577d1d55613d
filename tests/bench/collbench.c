/* collbench.c — collective latency: barrier; bcast 8 B and 1 MiB; reduce 8 B; allreduce 8 B
 * and 1 MiB (MPI_DOUBLE, MPI_SUM); allgather 8 B per rank; alltoall 8 B and 1 KiB per peer.
 * Root 0 where there is one. alltoallv (uniform counts, 1 KiB per peer) runs only when -c
 * names it.
 * Nonblocking cases, run only when -c names them (tests/bench/nbc_bench.sh): ibarrier, and
 * ibcast, ireduce, iallreduce, iallgather (per rank), ialltoall (per peer) at 8 B and 64 KiB,
 * each I<call> followed at once by MPI_Wait (MPI-3: every implementation compared has them).
 *
 * Each repetition: barrier, `iters` back-to-back operations, per-operation time on each rank;
 * the repetition's time is the slowest rank's. Rank 0 calibrates `iters` to -t seconds per
 * repetition and reports the median of -r repetitions. Control traffic (iteration counts,
 * timings) uses point-to-point only, so a collective under test is never part of the
 * harness. Every operation's result is checked once after timing.
 *
 *   mpirun -n N ./collbench [-r reps] [-t seconds_per_rep] [-c cases]
 *
 * -c runs only the listed cases: comma-separated names, each optionally with :bytes
 * ("alltoall:8,barrier"); without it every case runs. A blocking case named with a size the
 * table does not have runs at that size ("alltoall:64,alltoall:65536,allgather:1024": a
 * sweep of sizes without a case for each), up to what the buffers hold.
 */
#include "bench_util.h"

#define TAG_CTL 7
#define BIG (1 << 20)
#define A2A_BLOCK 1024

#define NBC_BIG (64 << 10)

typedef enum {
    OP_BARRIER,
    OP_BCAST,
    OP_REDUCE,
    OP_ALLREDUCE,
    OP_ALLGATHER,
    OP_ALLTOALL,
    OP_ALLTOALLV
} op_kind;

typedef struct {
    const char *name;
    op_kind kind;
    long bytes; /* per operation (allgather: per rank, alltoall: per peer) */
    int nb;     /* 1: I<call> + MPI_Wait, 2: blocking; either only when -c names it */
} bench_case;

#define NB_FORM 1
#define NAMED_ONLY 2

static const bench_case cases[] = {
    {"barrier", OP_BARRIER, 0, 0},       {"bcast", OP_BCAST, 8, 0},
    {"bcast", OP_BCAST, BIG, 0},         {"reduce", OP_REDUCE, 8, 0},
    {"allreduce", OP_ALLREDUCE, 8, 0},   {"allreduce", OP_ALLREDUCE, BIG, 0},
    {"allgather", OP_ALLGATHER, 8, 0},   {"alltoall", OP_ALLTOALL, 8, 0},
    {"alltoall", OP_ALLTOALL, A2A_BLOCK, 0}, {"alltoallv", OP_ALLTOALLV, A2A_BLOCK, NAMED_ONLY},
    {"ibarrier", OP_BARRIER, 0, 1},          {"ibcast", OP_BCAST, 8, 1},
    {"ireduce", OP_REDUCE, 8, 1},            {"iallreduce", OP_ALLREDUCE, 8, 1},
    {"iallgather", OP_ALLGATHER, 8, 1},      {"ialltoall", OP_ALLTOALL, 8, 1},
    {"ibcast", OP_BCAST, NBC_BIG, 1},        {"ireduce", OP_REDUCE, NBC_BIG, 1},
    {"iallreduce", OP_ALLREDUCE, NBC_BIG, 1}, {"iallgather", OP_ALLGATHER, NBC_BIG, 1},
    {"ialltoall", OP_ALLTOALL, NBC_BIG, 1},
};

static int rank, np;
static unsigned char *sbuf, *rbuf; /* big enough for every case */
static long buf_bytes;             /* their size */
static int *v_counts, *v_displs;   /* alltoallv: np uniform blocks */

/* The nonblocking form of c, then MPI_Wait on it. */
static void run_nb(const bench_case *c)
{
    MPI_Request q;
    int n = (int)(c->bytes / sizeof(double));
    switch (c->kind) {
    case OP_BARRIER:
        MPI_Ibarrier(MPI_COMM_WORLD, &q);
        break;
    case OP_BCAST:
        MPI_Ibcast(sbuf, (int)c->bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &q);
        break;
    case OP_REDUCE:
        MPI_Ireduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &q);
        break;
    case OP_ALLREDUCE:
        MPI_Iallreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
        break;
    case OP_ALLGATHER:
        MPI_Iallgather(sbuf, (int)c->bytes, MPI_BYTE, rbuf, (int)c->bytes, MPI_BYTE,
                       MPI_COMM_WORLD, &q);
        break;
    case OP_ALLTOALL:
    case OP_ALLTOALLV: /* never nonblocking (no such case) */
        MPI_Ialltoall(sbuf, (int)c->bytes, MPI_BYTE, rbuf, (int)c->bytes, MPI_BYTE,
                      MPI_COMM_WORLD, &q);
        break;
    }
    MPI_Wait(&q, MPI_STATUS_IGNORE);
}

static void run_op(const bench_case *c)
{
    if (c->nb == NB_FORM) {
        run_nb(c);
        return;
    }
    switch (c->kind) {
    case OP_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case OP_BCAST:
        MPI_Bcast(sbuf, (int)c->bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case OP_REDUCE:
        MPI_Reduce(sbuf, rbuf, (int)(c->bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM, 0,
                   MPI_COMM_WORLD);
        break;
    case OP_ALLREDUCE:
        MPI_Allreduce(sbuf, rbuf, (int)(c->bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        break;
    case OP_ALLGATHER:
        MPI_Allgather(sbuf, (int)c->bytes, MPI_BYTE, rbuf, (int)c->bytes, MPI_BYTE,
                      MPI_COMM_WORLD);
        break;
    case OP_ALLTOALL:
        MPI_Alltoall(sbuf, (int)c->bytes, MPI_BYTE, rbuf, (int)c->bytes, MPI_BYTE,
                     MPI_COMM_WORLD);
        break;
    case OP_ALLTOALLV:
        for (int p = 0; p < np; p++) {
            v_counts[p] = (int)c->bytes;
            v_displs[p] = p * (int)c->bytes;
        }
        MPI_Alltoallv(sbuf, v_counts, v_displs, MPI_BYTE, rbuf, v_counts, v_displs, MPI_BYTE,
                      MPI_COMM_WORLD);
        break;
    }
}

/* Rank 0 tells everyone how many iterations to run; returns that count. */
static int share_iters(int iters)
{
    if (rank == 0) {
        for (int r = 1; r < np; r++)
            MPI_Send(&iters, 1, MPI_INT, r, TAG_CTL, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&iters, 1, MPI_INT, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return iters;
}

/* One repetition; on rank 0 returns the slowest rank's seconds per operation. */
static double timed(const bench_case *c, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        run_op(c);
    double t = (MPI_Wtime() - t0) / iters;
    if (rank != 0) {
        MPI_Send(&t, 1, MPI_DOUBLE, 0, TAG_CTL, MPI_COMM_WORLD);
        return t;
    }
    for (int r = 1; r < np; r++) {
        double other;
        MPI_Recv(&other, 1, MPI_DOUBLE, r, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (other > t)
            t = other;
    }
    return t;
}

/* Fill inputs with a rank-dependent pattern, run once, check the output. */
static void verify(const bench_case *c)
{
    double *sd = (double *)sbuf, *rd = (double *)rbuf;
    long n = c->bytes / (long)sizeof(double);
    int ok = 1;
    switch (c->kind) {
    case OP_BARRIER:
        run_op(c);
        break;
    case OP_BCAST:
        for (long i = 0; i < c->bytes; i++)
            sbuf[i] = rank == 0 ? (unsigned char)(i * 3 + 1) : 0;
        run_op(c);
        for (long i = 0; i < c->bytes && ok; i++)
            ok = sbuf[i] == (unsigned char)(i * 3 + 1);
        break;
    case OP_REDUCE:
    case OP_ALLREDUCE:
        for (long i = 0; i < n; i++)
            sd[i] = rank + 1 + (double)(i % 8);
        run_op(c);
        if (c->kind == OP_ALLREDUCE || rank == 0)
            for (long i = 0; i < n && ok; i++)
                ok = rd[i] == np * (np + 1) / 2.0 + np * (double)(i % 8);
        break;
    case OP_ALLGATHER:
        memset(sbuf, (rank * 5 + 3) & 0xff, (size_t)c->bytes);
        run_op(c);
        for (int p = 0; p < np && ok; p++)
            for (long i = 0; i < c->bytes && ok; i++)
                ok = rbuf[(long)p * c->bytes + i] == ((p * 5 + 3) & 0xff);
        break;
    case OP_ALLTOALL:
    case OP_ALLTOALLV:
        for (int p = 0; p < np; p++)
            memset(sbuf + (long)p * c->bytes, (rank * np + p) & 0xff, (size_t)c->bytes);
        run_op(c);
        for (int p = 0; p < np && ok; p++)
            for (long i = 0; i < c->bytes && ok; i++)
                ok = rbuf[(long)p * c->bytes + i] == ((p * np + rank) & 0xff);
        break;
    }
    if (!ok) {
        fprintf(stderr, "collbench: rank %d: wrong result for %s %ld B\n", rank, c->name, c->bytes);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
}

static void measure(const bench_case *c, const bench_opts *o)
{
    /* Warm up first (connections, page faults, protocol switch), so the first operation's
     * one-off cost does not shrink the iteration count; then double until measurable. */
    timed(c, 2);
    int probe = 1;
    double t = timed(c, probe) * probe;
    while (share_iters(t < o->target_s / 10 && probe < (1 << 20))) {
        probe *= 2;
        t = timed(c, probe) * probe;
    }
    /* A second probe at the same count: one scheduling hiccup must not set the count. */
    double t2 = timed(c, probe) * probe;
    if (t2 < t)
        t = t2;
    int iters = share_iters(bench_iters_for(o->target_s, probe, t));
    double samples[99];
    for (int r = 0; r < o->reps; r++)
        samples[r] = timed(c, iters) * 1e6;
    verify(c);
    if (rank == 0)
        bench_report(c->name, "latency", c->bytes, np, iters, o->reps, samples);
}

/* Does the -c list name this case ("name" or "name:bytes")? */
static int selected(const bench_case *c, const char *list)
{
    if (list == NULL)
        return !c->nb;
    size_t len = strlen(c->name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n >= len && strncmp(p, c->name, len) == 0 &&
            (n == len || (p[len] == ':' && atol(p + len + 1) == c->bytes)))
            return 1;
        p += n + (end != NULL);
    }
    return 0;
}

/* A -c item "name:bytes" that no case of the table is: the blocking case of that name at
 * that size (reductions round down to whole doubles), if the buffers hold it. */
static void run_sized(const char *item, size_t n, const bench_opts *o)
{
    const char *colon = memchr(item, ':', n);
    if (colon == NULL)
        return;
    size_t len = (size_t)(colon - item);
    long bytes = atol(colon + 1);
    const bench_case *like = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const bench_case *c = &cases[i];
        if (strlen(c->name) != len || strncmp(item, c->name, len) != 0)
            continue;
        if (c->bytes == bytes)
            return; /* the table's own case: run already */
        if (like == NULL && c->nb != NB_FORM && c->kind != OP_BARRIER)
            like = c;
    }
    if (like == NULL || bytes <= 0)
        return;
    int per_rank = like->kind == OP_ALLGATHER || like->kind == OP_ALLTOALL ||
                   like->kind == OP_ALLTOALLV;
    if ((per_rank ? (long)np * bytes : bytes) > buf_bytes) {
        if (rank == 0)
            fprintf(stderr, "collbench: %.*s: %ld B is more than the buffers hold\n", (int)n,
                    item, bytes);
        return;
    }
    bench_case c = *like;
    c.bytes = bytes;
    measure(&c, o);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* -c LIST is ours; the rest goes to bench_parse. */
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "-c") == 0) {
            only = argv[i + 1];
            for (int j = i; j + 2 <= argc; j++)
                argv[j] = argv[j + 2];
            argc -= 2;
            break;
        }
    }
    bench_opts o;
    bench_parse(argc, argv, &o);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long need = (long)np * NBC_BIG > BIG ? (long)np * NBC_BIG : BIG; /* >= np * A2A_BLOCK */
    buf_bytes = need;
    sbuf = bench_alloc((size_t)need);
    rbuf = bench_alloc((size_t)need);
    v_counts = malloc((size_t)np * sizeof *v_counts);
    v_displs = malloc((size_t)np * sizeof *v_displs);
    if (rank == 0)
        printf("# collbench: %d ranks, %d reps of ~%.3f s, time = slowest rank per operation\n",
               np, o.reps, o.target_s);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (selected(&cases[i], only))
            measure(&cases[i], &o);
    for (const char *p = only; p != NULL && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        run_sized(p, n, &o);
        p += n + (end != NULL);
    }
    free(v_counts);
    free(v_displs);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
