/* Detection and repair latency. Every rank but the victim blocks in MPI_Recv from the victim;
 * the victim records the time (CLOCK_MONOTONIC, shared by all processes of this host) and
 * SIGKILLs itself. Each survivor records when its receive returned (detection) and how long
 * MPI_Comm_dup took to repair MPI_COMM_WORLD (repair). Rank 0 of the repaired communicator
 * prints the median and maximum over survivors:
 *   ft_latency: np 8 detect_median_ms 1.23 detect_max_ms 1.80 repair_median_ms 0.90 repair_max_ms 1.10
 * Run with: mpirun -n N --comm-mode shrink ft_latency [victim] */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int victim = argc > 1 ? atoi(argv[1]) : size - 1;
  double t_kill = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == victim) {
    usleep(50000); /* everyone is blocked by now */
    /* Survivors learn the kill time through the file system (the victim cannot send it). */
    char path[128];
    snprintf(path, sizeof path, "/tmp/ftmpi-ftlat-%d", (int)getppid());
    FILE *f = fopen(path, "w");
    t_kill = now();
    if (f) { fprintf(f, "%.9f\n", t_kill); fclose(f); }
    raise(SIGKILL);
  }
  int v;
  MPI_Recv(&v, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double t_detect = now();
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  double t_repair = now() - t_detect;
  char path[128];
  snprintf(path, sizeof path, "/tmp/ftmpi-ftlat-%d", (int)getppid());
  FILE *f = fopen(path, "r");
  if (f) { if (fscanf(f, "%lf", &t_kill) != 1) t_kill = 0; fclose(f); }
  double mine[2] = {1e3 * (t_detect - t_kill), 1e3 * t_repair};
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  double *all = malloc(sizeof(double) * 2 * n);
  MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    double *d = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) { d[i] = all[2 * i]; r[i] = all[2 * i + 1]; }
    qsort(d, n, sizeof(double), cmp);
    qsort(r, n, sizeof(double), cmp);
    printf("ft_latency: np %d detect_median_ms %.3f detect_max_ms %.3f repair_median_ms %.3f repair_max_ms %.3f\n",
           size, d[n / 2], d[n - 1], r[n / 2], r[n - 1]);
    unlink(path);
  }
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
