/* ULFM costs on this machine (README "ULFM"): one run measures, at the job's size,
 *   agree_us / allreduce_us   MPIX_Comm_agree vs an 8-byte MPI_Allreduce, no failure (mean of
 *                             ITERS calls, best of 5 rounds, both in ULFM mode)
 *   revoke_ms                 rank 0 revokes a communicator on which every other rank is blocked
 *                             in a receive from a live peer: time until the last one has its
 *                             MPIX_ERR_REVOKED (median over ROUNDS revokes)
 *   detect_median_ms / max    the last rank SIGKILLs itself while every other rank is blocked in
 *                             a receive from it: time until each has MPIX_ERR_PROC_FAILED
 *   shrink_ms                 MPIX_Comm_shrink right after that failure (slowest survivor)
 * All times on CLOCK_MONOTONIC, which every process of the host shares. Rank 0 prints:
 *   ulfm_bench: np 8 agree_us 9.1 allreduce_us 7.0 revoke_ms 0.21 detect_median_ms 1.1 ...
 * Run with: mpirun -n N --with-ft ulfm ftmpi-ulfm_bench [ITERS [ROUNDS]] */
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../e2e/ft/killtime.h"

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
static double max_over(MPI_Comm comm, double v) {
  double m = v;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 2000, rounds = argc > 2 ? atoi(argv[2]) : 15;
  if (size < 3 || iters < 1 || rounds < 1 || rounds > 1000) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n N>=3 ulfm_bench [ITERS [ROUNDS]]\n");
    MPI_Finalize();
    return 2;
  }
  /* Agreement vs allreduce, failure-free. */
  double best_agree = 1e9, best_allreduce = 1e9;
  for (int r = 0; r < 5; r++) {
    long in = rank, out;
    int flag;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = mono();
    for (int i = 0; i < iters; i++) MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    double a = max_over(MPI_COMM_WORLD, (mono() - t) / iters);
    MPI_Barrier(MPI_COMM_WORLD);
    t = mono();
    for (int i = 0; i < iters; i++) {
      flag = ~0;
      MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    }
    double g = max_over(MPI_COMM_WORLD, (mono() - t) / iters);
    if (a < best_allreduce) best_allreduce = a;
    if (g < best_agree) best_agree = g;
  }
  /* Revoke propagation: receivers wait for a live peer that never sends. */
  double revoke[1000];
  for (int r = 0; r < rounds; r++) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = 0, got = 0;
    if (rank == 0) {
      usleep(2000);  /* the others are blocked by now */
      t0 = mono();
      MPIX_Comm_revoke(c);
    } else {
      int v;
      int rc = MPI_Recv(&v, 1, MPI_INT, 1 + rank % (size - 1), 0, c, MPI_STATUS_IGNORE);
      int cls;
      MPI_Error_class(rc, &cls);
      got = mono();
      if (cls != MPIX_ERR_REVOKED) fprintf(stderr, "ulfm_bench: rank %d: class %d, not REVOKED\n", rank, cls);
    }
    MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    revoke[r] = 1e3 * (max_over(MPI_COMM_WORLD, got) - t0);
    MPI_Comm_free(&c);
  }
  double revoke_ms = median(revoke, rounds);
  /* A kill while every other rank is blocked in a receive from the victim. */
  const int victim = size - 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == victim) {
    usleep(20000);
    write_killtime();
    raise(SIGKILL);
  }
  int v;
  MPI_Recv(&v, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double detect = mono();
  detect = 1e3 * (detect - read_killtime(1000));
  double t = mono();
  MPI_Comm s;
  MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
  double shrink_ms = 1e3 * (mono() - t);
  double all[64];
  int n;
  MPI_Comm_size(s, &n);
  MPI_Gather(&detect, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, s);
  shrink_ms = max_over(s, shrink_ms);
  if (rank == 0) {
    double dmax = 0;
    for (int i = 0; i < n; i++) dmax = all[i] > dmax ? all[i] : dmax;
    printf("ulfm_bench: np %d agree_us %.2f allreduce_us %.2f revoke_ms %.3f detect_median_ms %.3f "
           "detect_max_ms %.3f shrink_ms %.3f\n", size, 1e6 * best_agree, 1e6 * best_allreduce,
           revoke_ms, median(all, n), dmax, shrink_ms);
  }
  MPI_Comm_free(&s);
  MPI_Finalize();
  return 0;
}
