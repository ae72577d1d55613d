/* Nonblocking collectives next to their blocking versions, in one run (so machine load hits
 * both alike):  mpirun -n N ftmpi-nbc_cost [iterations]
 * For 8 B and 1 MiB allreduce, barrier, 8 B and 64 KiB bcast: the median over rounds of the
 * mean time per call of the blocking call and of I<call> + MPI_Wait (rounds alternate); then the overlap of a
 * 1 MiB Iallreduce with computation polled by MPI_Test (time of compute alone, of the
 * blocking call then compute, and of both overlapped). Prints one line per measurement. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 7 };

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v) {
  qsort(v, ROUNDS, sizeof(double), cmp);
  return v[ROUNDS / 2];
}

/* kind: 0 allreduce, 1 barrier, 2 bcast; nb: nonblocking + wait. One round's mean time. */
static double round_time(int kind, int nb, double *in, double *out, int count, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    MPI_Request q;
    if (kind == 0) {
      if (nb) MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
      else MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (kind == 1) {
      if (nb) MPI_Ibarrier(MPI_COMM_WORLD, &q);
      else MPI_Barrier(MPI_COMM_WORLD);
    } else {
      if (nb) MPI_Ibcast(in, count, MPI_DOUBLE, 0, MPI_COMM_WORLD, &q);
      else MPI_Bcast(in, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    if (nb) MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  return (MPI_Wtime() - t0) / iters;
}

/* The median round of the blocking call; with nb_median, also of the nonblocking one, its
 * rounds interleaved with the blocking ones (a change of the machine's load hits both). */
static double run(int kind, double *nb_median, double *in, double *out, int count, int iters) {
  double b[ROUNDS], n[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    b[r] = round_time(kind, 0, in, out, count, iters);
    if (nb_median) n[r] = round_time(kind, 1, in, out, count, iters);
  }
  if (nb_median) *nb_median = median(n);
  return median(b);
}

static double compute(double seconds) {
  volatile double x = 0;
  double t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < seconds) for (int i = 0; i < 1000; i++) x += i;
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 200;
  const int big = 1 << 17;  /* 1 MiB of doubles */
  double *in = calloc(big, sizeof(double)), *out = calloc(big, sizeof(double));
  struct { const char *name; int kind, count, iters; } m[] = {
    {"allreduce 8 B", 0, 1, iters}, {"allreduce 1 MiB", 0, big, iters / 20 + 1},
    {"barrier", 1, 0, iters}, {"bcast 8 B", 2, 1, iters}, {"bcast 64 KiB", 2, 8192, iters / 4 + 1},
  };
  for (unsigned k = 0; k < sizeof m / sizeof m[0]; k++) {
    double n = 0;
    double b = run(m[k].kind, &n, in, out, m[k].count, m[k].iters);
    if (rank == 0) {
      printf("nbc_cost: np %d %-16s blocking %9.2f us  nonblocking+wait %9.2f us  ratio %.2f\n",
             size, m[k].name, b * 1e6, n * 1e6, n / b);
    }
  }
  /* overlap: a 1 MiB allreduce against as much computation as it takes */
  double tcoll = run(0, NULL, in, out, big, iters / 20 + 1), seq[ROUNDS], ovl[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(in, out, big, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    compute(tcoll);
    seq[r] = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    MPI_Request q;
    MPI_Iallreduce(in, out, big, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
    int flag = 0;
    double c0 = MPI_Wtime();
    while (MPI_Wtime() - c0 < tcoll) {
      compute(tcoll / 50);
      if (!flag) MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    }
    if (!flag) MPI_Wait(&q, MPI_STATUS_IGNORE);
    ovl[r] = MPI_Wtime() - t0;
  }
  if (rank == 0) {
    printf("nbc_cost: np %d overlap 1 MiB allreduce (%.0f us) + as much compute: sequential %.0f us, "
           "overlapped %.0f us\n", size, tcoll * 1e6, median(seq) * 1e6, median(ovl) * 1e6);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
