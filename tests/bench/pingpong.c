/* pingpong.c — point-to-point latency and bandwidth between ranks 0 and 1 (MPI_Send/MPI_Recv).
 *
 * Rank 0 drives; rank 1 serves commands {bytes, iterations, verify} sent on a control tag,
 * so rank 0 alone decides iteration counts (calibrated to -t seconds per repetition) and both
 * ranks always agree. Reported time is half the round trip, the same as fi_pingpong's
 * usec/xfer, and MBps = bytes / that time. Each size: warm-up, calibration, -r timed
 * repetitions (median reported), then one verified exchange so a fast-but-wrong transport
 * cannot produce a number. Ranks beyond 1 only wait in MPI_Finalize.
 *
 *   mpirun -n 2 ./pingpong [-r reps] [-t seconds_per_rep]
 */
#include "bench_util.h"

#define TAG_CTL 1
#define TAG_DATA 2

typedef struct {
    int bytes;
    int iters;  /* 0 = stop serving */
    int verify; /* fill/check a pattern instead of timing */
} command;

static const int lat_sizes[] = {0, 8, 64, 512, 1024, 4096, 16384, 65536};
static const int bw_sizes[] = {1 << 20, 16 << 20};
#define MAX_BYTES (16 << 20)

static unsigned char pattern(long i, int bytes) { return (unsigned char)(i * 7 + bytes + 1); }

static int check(const unsigned char *buf, int bytes, int rank)
{
    for (long i = 0; i < bytes; i++) {
        if (buf[i] != pattern(i, bytes)) {
            fprintf(stderr, "pingpong: rank %d: data mismatch at byte %ld of %d\n", rank, i, bytes);
            return 0;
        }
    }
    return 1;
}

/* Rank 1: echo whatever rank 0 asks for until told to stop. */
static void serve(unsigned char *buf)
{
    command c;
    for (;;) {
        MPI_Recv(&c, 3, MPI_INT, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (c.iters == 0)
            return;
        for (int i = 0; i < c.iters; i++) {
            MPI_Recv(buf, c.bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (c.verify && !check(buf, c.bytes, 1))
                MPI_Abort(MPI_COMM_WORLD, 4);
            MPI_Send(buf, c.bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }
}

/* Rank 0: one batch of `iters` round trips; returns seconds. */
static double batch(unsigned char *buf, int bytes, int iters, int verify)
{
    command c = {bytes, iters, verify};
    MPI_Send(&c, 3, MPI_INT, 1, TAG_CTL, MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        MPI_Send(buf, bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return MPI_Wtime() - t0;
}

static void measure(unsigned char *buf, int bytes, const char *metric, const bench_opts *o)
{
    /* Warm up first (connections, registration caches, page faults), so the first round
     * trip's one-off cost does not shrink the iteration count; then double until measurable. */
    batch(buf, bytes, 2, 0);
    int probe = 1;
    double t = batch(buf, bytes, probe, 0);
    while (t < o->target_s / 10 && probe < (1 << 20)) {
        probe *= 2;
        t = batch(buf, bytes, probe, 0);
    }
    /* A second probe at the same count: one scheduling hiccup must not set the count. */
    double t2 = batch(buf, bytes, probe, 0);
    if (t2 < t)
        t = t2;
    int iters = bench_iters_for(o->target_s, probe, t);
    double samples[99];
    for (int r = 0; r < o->reps; r++)
        samples[r] = batch(buf, bytes, iters, 0) / (2.0 * iters) * 1e6;

    for (long i = 0; i < bytes; i++)
        buf[i] = pattern(i, bytes);
    batch(buf, bytes, 1, 1);
    if (!check(buf, bytes, 0))
        MPI_Abort(MPI_COMM_WORLD, 4);

    bench_report("pingpong", metric, bytes, 2, iters, o->reps, samples);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_opts o;
    bench_parse(argc, argv, &o);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    unsigned char *buf = rank < 2 ? bench_alloc(MAX_BYTES) : NULL;

    if (rank == 1) {
        serve(buf);
    } else if (rank == 0) {
        printf("# pingpong: ranks 0<->1, %d reps of ~%.3f s, time = half round trip\n", o.reps,
               o.target_s);
        for (size_t i = 0; i < sizeof lat_sizes / sizeof *lat_sizes; i++)
            measure(buf, lat_sizes[i], "latency", &o);
        for (size_t i = 0; i < sizeof bw_sizes / sizeof *bw_sizes; i++)
            measure(buf, bw_sizes[i], "bandwidth", &o);
        command stop = {0, 0, 0};
        MPI_Send(&stop, 3, MPI_INT, 1, TAG_CTL, MPI_COMM_WORLD);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
