/* window_bw.c — windowed point-to-point bandwidth between ranks 0 and 1, the pattern the OSU
 * micro-benchmarks measure (osu_bw, osu_bibw), where ping-pong (pingpong.c) measures one
 * message at a time: a window of W nonblocking sends (the receiver: W nonblocking receives),
 * MPI_Waitall, then a 4-byte reply; bibw posts both directions' windows at once. lat is
 * osu_latency's ping-pong: MPI_Send then MPI_Recv, a send buffer and a receive buffer per
 * rank, the sent bytes never rewritten (pingpong.c sends back what it received), reported as
 * bytes per half round trip (MBps; latency = bytes / MBps).
 *
 * Each size: warm-up, calibration to -t seconds per repetition, -r timed repetitions (median
 * reported as BENCH lines, bench_util.h; MBps = bytes moved one way per second, both ways for
 * bibw), then one window with a pattern per message, checked on arrival, so that a fast but
 * wrong transport cannot produce a number. Ranks beyond 1 only wait in MPI_Finalize.
 *
 *   mpirun -n 2 ./window_bw [-m bw|bibw] [-w window] [-s min:max] [-r reps] [-t seconds]
 */
#include "bench_util.h"

#define TAG_CTL 1
#define TAG_DATA 2
#define TAG_REPLY 3
#define MAX_WINDOW 256
#define VERIFY_BYTES (16L << 20) /* a verified window keeps each message: at most this much */

typedef struct {
    int bytes;
    int iters;  /* 0 = stop */
    int verify; /* fill/check a pattern per message instead of timing */
} command;

typedef struct {
    int bibw;
    int lat;
    int window;
    long min_bytes, max_bytes;
    bench_opts o;
} options;

static unsigned char pattern(long i, int msg, int bytes) { return (unsigned char)(i * 7 + msg * 13 + bytes); }

static void parse(int argc, char **argv, options *p)
{
    p->bibw = p->lat = 0;
    p->window = 64;
    p->min_bytes = 1;
    p->max_bytes = 4L << 20;
    p->o.reps = 5;
    p->o.target_s = 0.05;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            i++;
            p->bibw = !strcmp(argv[i], "bibw");
            p->lat = !strcmp(argv[i], "lat");
            if (!p->bibw && !p->lat && strcmp(argv[i], "bw") != 0) p->max_bytes = -1;
        } else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
            p->window = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ld:%ld", &p->min_bytes, &p->max_bytes) != 2) p->max_bytes = -1;
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            p->o.reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            p->o.target_s = atof(argv[++i]);
        } else {
            p->max_bytes = -1;
        }
    }
    if (p->window < 1 || p->window > MAX_WINDOW || p->min_bytes < 1 || p->max_bytes < p->min_bytes ||
        p->max_bytes > (64L << 20) || p->o.reps < 1 || p->o.reps > 99 || p->o.target_s <= 0) {
        fprintf(stderr, "usage: %s [-m bw|bibw|lat] [-w window<=%d] [-s min:max bytes] [-r reps] [-t s]\n",
                argv[0], MAX_WINDOW);
        exit(2);
    }
}

static int check(const unsigned char *buf, int msg, int bytes, int rank)
{
    for (long i = 0; i < bytes; i++) {
        if (buf[i] != pattern(i, msg, bytes)) {
            fprintf(stderr, "window_bw: rank %d: message %d of %d bytes wrong at byte %ld\n", rank, msg,
                    bytes, i);
            return 0;
        }
    }
    return 1;
}

/* Messages of a verified window: each has its own buffer. */
static int verify_window(const options *p, int bytes)
{
    long n = VERIFY_BYTES / bytes;
    return n < 1 ? 1 : n < p->window ? (int)n : p->window;
}

/* One window each way the mode asks for; both ranks run it. Verified windows use a buffer per
 * message (timed ones reuse one buffer per direction, as OSU does). */
static void window(const options *p, unsigned char *sbuf, unsigned char *rbuf, int bytes, int verify,
                   int rank)
{
    static MPI_Status st[2 * MAX_WINDOW]; /* filled, as OSU's are (and GCC warns of IGNORE) */
    if (p->lat) {
        if (verify && rank == 0)
            for (long i = 0; i < bytes; i++) sbuf[i] = pattern(i, 0, bytes);
        if (rank == 0) MPI_Send(sbuf, bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        MPI_Recv(rbuf, bytes, MPI_BYTE, 1 - rank, TAG_DATA, MPI_COMM_WORLD, st);
        if (verify && !check(rbuf, 0, bytes, rank)) MPI_Abort(MPI_COMM_WORLD, 4);
        if (rank == 1) MPI_Send(verify ? rbuf : sbuf, bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        return;
    }
    MPI_Request req[2 * MAX_WINDOW];
    int n = 0, peer = 1 - rank, w = verify ? verify_window(p, bytes) : p->window;
    int sends = rank == 0 || p->bibw, recvs = rank == 1 || p->bibw;
    for (int j = 0; recvs && j < w; j++)
        MPI_Irecv(rbuf + (verify ? (size_t)j * bytes : 0), bytes, MPI_BYTE, peer, TAG_DATA,
                  MPI_COMM_WORLD, &req[n++]);
    for (int j = 0; sends && j < w; j++) {
        unsigned char *s = sbuf + (verify ? (size_t)j * bytes : 0);
        if (verify)
            for (long i = 0; i < bytes; i++) s[i] = pattern(i, j, bytes);
        MPI_Isend(s, bytes, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &req[n++]);
    }
    MPI_Waitall(n, req, st);
    for (int j = 0; verify && recvs && j < w; j++)
        if (!check(rbuf + (size_t)j * bytes, j, bytes, rank)) MPI_Abort(MPI_COMM_WORLD, 4);
    int reply = 0;
    if (rank == 1)
        MPI_Send(&reply, 1, MPI_INT, 0, TAG_REPLY, MPI_COMM_WORLD);
    else
        MPI_Recv(&reply, 1, MPI_INT, 1, TAG_REPLY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* `iters` windows, both ranks told first by rank 0; returns seconds (rank 0's clock). */
static double batch(const options *p, unsigned char *sbuf, unsigned char *rbuf, int bytes, int iters,
                    int verify)
{
    command c = {bytes, iters, verify};
    MPI_Send(&c, 3, MPI_INT, 1, TAG_CTL, MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) window(p, sbuf, rbuf, bytes, verify, 0);
    return MPI_Wtime() - t0;
}

static void measure(const options *p, unsigned char *sbuf, unsigned char *rbuf, int bytes)
{
    batch(p, sbuf, rbuf, bytes, 2, 0);
    int probe = 1;
    double t = batch(p, sbuf, rbuf, bytes, probe, 0);
    while (t < p->o.target_s / 10 && probe < (1 << 16)) {
        probe *= 2;
        t = batch(p, sbuf, rbuf, bytes, probe, 0);
    }
    double t2 = batch(p, sbuf, rbuf, bytes, probe, 0);
    if (t2 < t) t = t2;
    int iters = bench_iters_for(p->o.target_s, probe, t);
    double samples[99];
    long moved = p->lat ? 2L * bytes : (long)bytes * p->window * (p->bibw ? 2 : 1);
    const char *name = p->lat ? "lat" : p->bibw ? "bibw" : "bw";
    for (int r = 0; r < p->o.reps; r++)  /* time per window, so bench_report's MBps = moved / it */
        samples[r] = batch(p, sbuf, rbuf, bytes, iters, 0) / iters * 1e6;
    batch(p, sbuf, rbuf, bytes, 1, 1);
    bench_report(name, "bandwidth", moved, 2, iters, p->o.reps, samples);
    printf("# %s %d B: %.1f MB/s\n", name, bytes, moved / samples[p->o.reps / 2]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    options p;
    parse(argc, argv, &p);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "window_bw: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    size_t room = (size_t)p.max_bytes * verify_window(&p, (int)p.max_bytes);
    unsigned char *sbuf = rank < 2 ? bench_alloc(room) : NULL;
    unsigned char *rbuf = rank < 2 ? bench_alloc(room) : NULL;
    if (rank == 0) {
        printf("# window_bw %s: ranks 0<->1, window %d, %d reps of ~%.3f s\n",
               p.lat ? "lat" : p.bibw ? "bibw" : "bw", p.lat ? 1 : p.window, p.o.reps, p.o.target_s);
        for (long b = p.min_bytes; b <= p.max_bytes; b *= 2) measure(&p, sbuf, rbuf, (int)b);
        command stop = {0, 0, 0};
        MPI_Send(&stop, 3, MPI_INT, 1, TAG_CTL, MPI_COMM_WORLD);
    } else if (rank == 1) {
        for (;;) {
            command c;
            MPI_Recv(&c, 3, MPI_INT, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (c.iters == 0) break;
            for (int i = 0; i < c.iters; i++) window(&p, sbuf, rbuf, c.bytes, c.verify, 1);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
