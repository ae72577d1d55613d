/* Detection and repair latency. Every rank but the victim blocks in MPI_Recv from the victim;
 * the victim records the time (CLOCK_MONOTONIC, shared by all processes of this host) and
 * SIGKILLs itself. Each survivor records when its receive returned (detection) and how long
 * MPI_Comm_dup took to repair MPI_COMM_WORLD (repair). Rank 0 of the repaired communicator
 * prints the median and maximum over survivors:
 *   ft_latency: np 8 detect_median_ms 1.23 detect_max_ms 1.80 repair_median_ms 0.90 repair_max_ms 1.10
 * With --comm-mode rebuild the victim's replacement joins the repair; it reports how long its
 * own start took (from its fork, as /proc/self/stat says to 10 ms, to the end of its MPI_Init),
 * which the survivors' repair time includes:  ... replacement_start_ms 250.1
 * rebuild_all_ms is issue 17's REBUILD figure: from the first survivor's error return to the
 * end of MPI_Comm_dup on every process, the replacement included (one CLOCK_MONOTONIC).
 * The victim dies right after the barrier by default (the survivors have just been talking to
 * the daemon and the other ranks); IDLE_MS > 0 lets it wait first, so that the survivors are
 * deep in their idle wait. (Right after the barrier used to take ~40 ms: Nagle's algorithm on
 * PMIx's loopback TCP socket held the failure event for the client's delayed ACK.)
 * Run with: mpirun -n N --comm-mode shrink|rebuild ft_latency [victim [IDLE_MS]] */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  double t_main = now();
  MPI_Init(&argc, &argv);
  int rank, size, init_state;
  FTMPI_Init_state(&init_state);
  /* detection ms, repair ms, replacement start ms, error return (s), end of the dup (s) */
  double mine[5] = {-1, -1, -1, -1, -1};
  MPI_Comm dup;
  char path[128];
  snprintf(path, sizeof path, "/tmp/ftmpi-ftlat-%d", (int)getppid());
  if (init_state == FTMPI_INIT_RESTARTED) {
    /* A REBUILD replacement: MPI_Init returned with the world repaired; it joins the dup. */
    mine[2] = 1e3 * (now() - t_main);
    /* Field 22 of /proc/self/stat: start time in clock ticks since boot (CLOCK_BOOTTIME). */
    FILE *st = fopen("/proc/self/stat", "r");
    unsigned long long start_ticks = 0;
    if (st) {
      char buf[1024];
      size_t len = fread(buf, 1, sizeof buf - 1, st);
      buf[len] = 0;
      fclose(st);
      char *p = strrchr(buf, ')');
      for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
      if (p) start_ticks = strtoull(p + 1, NULL, 10);
    }
    struct timespec bt;
    clock_gettime(CLOCK_BOOTTIME, &bt);
    if (start_ticks > 0) {
      mine[2] = 1e3 * (bt.tv_sec + 1e-9 * bt.tv_nsec - (double)start_ticks / sysconf(_SC_CLK_TCK));
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    mine[4] = now();
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    goto report;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int victim = argc > 1 ? atoi(argv[1]) : size - 1;
  int idle_ms = argc > 2 ? atoi(argv[2]) : 0;
  double t_kill = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == victim) {
    if (idle_ms > 0) usleep((useconds_t)idle_ms * 1000); /* survivors deep in their wait */
    /* Survivors learn the kill time through the file system (the victim cannot send it). */
    FILE *f = fopen(path, "w");
    t_kill = now();
    if (f) { fprintf(f, "%.9f\n", t_kill); fclose(f); }
    raise(SIGKILL);
  }
  int v;
  MPI_Recv(&v, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double t_detect = now();
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  mine[4] = now();
  mine[3] = t_detect;
  double t_repair = mine[4] - t_detect;
  FILE *f = fopen(path, "r");
  if (f) { if (fscanf(f, "%lf", &t_kill) != 1) t_kill = 0; fclose(f); }
  mine[0] = 1e3 * (t_detect - t_kill);
  mine[1] = 1e3 * t_repair;
report:;
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  double *all = malloc(sizeof(double) * 5 * n);
  MPI_Gather(mine, 5, MPI_DOUBLE, all, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    /* Survivors only for detection and repair; the replacement for its start time. */
    double *d = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n), start = -1;
    double first_return = 0, last_end = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
      const double *p = all + 5 * i;
      if (p[2] >= 0) start = p[2];
      if (p[4] > last_end) last_end = p[4];
      if (p[0] < 0) continue;
      if (first_return == 0 || p[3] < first_return) first_return = p[3];
      d[m] = p[0];
      r[m++] = p[1];
    }
    qsort(d, m, sizeof(double), cmp);
    qsort(r, m, sizeof(double), cmp);
    printf("ft_latency: np %d detect_median_ms %.3f detect_max_ms %.3f repair_median_ms %.3f repair_max_ms %.3f"
           " replacement_start_ms %.3f rebuild_all_ms %.3f\n", size, d[m / 2], d[m - 1], r[m / 2], r[m - 1], start,
           1e3 * (last_end - first_return));
    unlink(path);
  }
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
