/* coll_switches.c — what a small collective costs in scheduling when ranks outnumber cores:
 * per operation, the time and the context switches of all ranks together (getrusage: a
 * rank that blocks or yields is switched out, and must later be switched back in — the
 * "wake-ups" that dominate 8 ranks on 2 cores). Same source for ftmpi, MPICH, Open MPI.
 *
 *   mpirun -n N ./coll_switches [-c case] [-n iterations] [-r reps]
 *   case: barrier | bcast | reduce | allreduce | allgather | alltoall (8 B; default all)
 * Prints per case the median over reps of: µs per operation (slowest rank), context
 * switches per operation summed over ranks (voluntary + involuntary), and CPU µs (user +
 * system) per operation summed over ranks: the work, including polls that found nothing,
 * which is less disturbed by other load on the machine than the elapsed time.
 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define TAG_CTL 7

static int rank, np;
static double sbuf[64], rbuf[64];

static void run_op(const char *name)
{
    if (!strcmp(name, "barrier"))
        MPI_Barrier(MPI_COMM_WORLD);
    else if (!strcmp(name, "bcast"))
        MPI_Bcast(sbuf, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(name, "reduce"))
        MPI_Reduce(sbuf, rbuf, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    else if (!strcmp(name, "allreduce"))
        MPI_Allreduce(sbuf, rbuf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(name, "allgather"))
        MPI_Allgather(sbuf, 8, MPI_BYTE, rbuf, 8, MPI_BYTE, MPI_COMM_WORLD);
    else
        MPI_Alltoall(sbuf, 8, MPI_BYTE, rbuf, 8, MPI_BYTE, MPI_COMM_WORLD);
}

/* Context switches and CPU seconds of this process so far. */
static void usage_now(double *sw, double *cpu)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *sw = (double)(ru.ru_nvcsw + ru.ru_nivcsw);
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure(const char *name, int iters, int reps)
{
    double us[99], sw[99], cpu[99];
    for (int i = 0; i < 100; i++)
        run_op(name);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double sw0, cpu0, sw1, cpu1;
        usage_now(&sw0, &cpu0);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            run_op(name);
        double t1 = MPI_Wtime();
        usage_now(&sw1, &cpu1);
        double v[3] = {(t1 - t0) / iters * 1e6, (sw1 - sw0) / iters, (cpu1 - cpu0) / iters * 1e6};
        if (rank != 0) {
            MPI_Send(v, 3, MPI_DOUBLE, 0, TAG_CTL, MPI_COMM_WORLD);
            continue;
        }
        for (int p = 1; p < np; p++) {
            double o[3];
            MPI_Recv(o, 3, MPI_DOUBLE, p, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (o[0] > v[0])
                v[0] = o[0];
            v[1] += o[1];
            v[2] += o[2];
        }
        us[r] = v[0];
        sw[r] = v[1];
        cpu[r] = v[2];
    }
    if (rank == 0) {
        qsort(us, (size_t)reps, sizeof *us, cmp);
        qsort(sw, (size_t)reps, sizeof *sw, cmp);
        qsort(cpu, (size_t)reps, sizeof *cpu, cmp);
        printf("%-10s np=%d us_per_op=%.2f switches_per_op=%.2f cpu_us_per_op=%.2f\n", name, np,
               us[reps / 2], sw[reps / 2], cpu[reps / 2]);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *only = NULL;
    int iters = 2000, reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-c"))
            only = argv[i + 1];
        else if (!strcmp(argv[i], "-n"))
            iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-r"))
            reps = atoi(argv[i + 1]);
    }
    if (iters < 1)
        iters = 1;
    if (reps < 1 || reps > 99)
        reps = 5;
    const char *all[] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};
    for (int i = 0; i < 6; i++)
        if (only == NULL || !strcmp(only, all[i]))
            measure(all[i], iters, reps);
    MPI_Finalize();
    return 0;
}
