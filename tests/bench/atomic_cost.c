/* atomic_cost.c — what FTMPI_COLL_MODE_ATOMIC costs next to RELAXED (issue 17 item 4).
 *
 * Run in a fault-tolerant mode (mpirun --comm-mode shrink): ABORT mode has no ATOMIC step.
 * For each case (8 B allreduce, barrier, 8 B allgather, 8 B bcast, 8 B reduce) each repetition
 * times `iters` operations in ATOMIC mode, then `iters` in RELAXED mode, on MPI_COMM_WORLD
 * (FTMPI_Comm_set_coll_mode switches it; every rank switches at the same point). The two
 * modes take turns inside one repetition, so a change of machine load hits both alike; the
 * ratio printed is the median over repetitions of the per-repetition ratio. Per-operation
 * time of a repetition is the slowest rank's (control traffic is point-to-point only).
 *
 *   mpirun -n N --comm-mode shrink ./atomic_cost [-r reps] [-t seconds_per_rep]
 * Output, one line per case:
 *   atomic_cost: np N case C atomic_us A relaxed_us R ratio X
 */
#include "bench_util.h"

#include <ftmpi.h>

#define TAG_CTL 9

typedef enum { OP_ALLREDUCE, OP_BARRIER, OP_ALLGATHER, OP_BCAST, OP_REDUCE } op_kind;
static const char *const names[] = {"allreduce_8B", "barrier", "allgather_8B", "bcast_8B",
                                    "reduce_8B"};
enum { NCASES = 5 };

static int rank, np;
static double in[1], out[1], *gathered;

static void run_op(op_kind k)
{
    switch (k) {
    case OP_ALLREDUCE: MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case OP_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case OP_ALLGATHER: MPI_Allgather(in, 1, MPI_DOUBLE, gathered, 1, MPI_DOUBLE, MPI_COMM_WORLD); break;
    case OP_BCAST: MPI_Bcast(out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
    case OP_REDUCE: MPI_Reduce(in, out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
    }
}

/* Rank 0 tells everyone an integer (point-to-point: no collective in the harness). */
static int share(int v)
{
    if (rank == 0) {
        for (int r = 1; r < np; r++) MPI_Send(&v, 1, MPI_INT, r, TAG_CTL, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return v;
}

/* The slowest rank's seconds, at rank 0. */
static double slowest(double s)
{
    if (rank != 0) {
        MPI_Send(&s, 1, MPI_DOUBLE, 0, TAG_CTL, MPI_COMM_WORLD);
        return s;
    }
    for (int r = 1; r < np; r++) {
        double o;
        MPI_Recv(&o, 1, MPI_DOUBLE, r, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (o > s) s = o;
    }
    return s;
}

/* Per-operation seconds of `iters` operations in `mode`, slowest rank (valid at rank 0). */
static double timed(op_kind k, int mode, int iters)
{
    FTMPI_Comm_set_coll_mode(MPI_COMM_WORLD, mode);
    (void)share(0);  /* everyone has switched before anyone starts */
    run_op(k);       /* warm, and lines the ranks up */
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) run_op(k);
    return slowest((MPI_Wtime() - t0) / iters);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    bench_opts o;
    bench_parse(argc, argv, &o);
    int cmode = 0, mmode = 0;
    FTMPI_Comm_get_mode(MPI_COMM_WORLD, &cmode, &mmode);
    if (cmode == FTMPI_COMM_MODE_ABORT) {
        if (rank == 0) fprintf(stderr, "atomic_cost: run with mpirun --comm-mode shrink (ABORT has no ATOMIC step)\n");
        MPI_Finalize();
        return 2;
    }
    gathered = bench_alloc(sizeof(double) * (size_t)np);
    in[0] = rank + 1;
    for (int c = 0; c < NCASES; c++) {
        int iters = 100;
        double probe = timed((op_kind)c, FTMPI_COLL_MODE_ATOMIC, iters);
        iters = share(rank == 0 ? bench_iters_for(o.target_s / 2, iters, probe * iters) : 0);
        double at[99], re[99], ratio[99];
        for (int r = 0; r < o.reps; r++) {
            at[r] = timed((op_kind)c, FTMPI_COLL_MODE_ATOMIC, iters);
            re[r] = timed((op_kind)c, FTMPI_COLL_MODE_RELAXED, iters);
            ratio[r] = re[r] > 0 ? at[r] / re[r] : 0;
        }
        if (rank == 0) {
            double a = bench_median(at, o.reps), x = bench_median(re, o.reps);
            printf("atomic_cost: np %d case %s atomic_us %.3f relaxed_us %.3f ratio %.2f\n", np,
                   names[c], a * 1e6, x * 1e6, bench_median(ratio, o.reps));
            fflush(stdout);
        }
    }
    /* Results are checked once, in ATOMIC mode. */
    FTMPI_Comm_set_coll_mode(MPI_COMM_WORLD, FTMPI_COLL_MODE_ATOMIC);
    MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int bad = out[0] != np * (np + 1) / 2.0;
    MPI_Allgather(in, 1, MPI_DOUBLE, gathered, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < np; r++) bad += gathered[r] != r + 1;
    if (bad) fprintf(stderr, "atomic_cost: rank %d got wrong results\n", rank);
    free(gathered);
    MPI_Finalize();
    return bad ? 1 : 0;
}
