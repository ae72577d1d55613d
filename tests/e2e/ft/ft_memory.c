/* Failure-free memory of fault tolerance:  ft_memory N
 * In a fault-tolerant mode every ATOMIC collective ends with an agreement; the agreement layer
 * must not keep what it no longer needs. N 8 B allreduces after a warm-up; the resident set
 * may grow by at most 8 MiB (it grew by ~245 bytes per call, 24 MB per 100000, when every
 * decided agreement was kept). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n = argc > 1 ? atoi(argv[1]) : 100000, mode = 0, msg = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &mode, &msg);
  double a = 1, b = 0;
  int bad = 0;
  for (int i = 0; i < 2000; i++) MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  long before = rss_kb();
  for (int i = 0; i < n; i++) {
    if (MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) bad++;
  }
  long grown = rss_kb() - before;
  long worst = 0;
  MPI_Reduce(&grown, &worst, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("ft_memory: %d allreduces (comm mode %d): resident set grew by %ld kB at most\n", n,
           mode, worst);
    printf(bad == 0 && before > 0 && worst <= 8192 ? "ft_memory OK\n" : "ft_memory FAILED\n");
  }
  MPI_Finalize();
  return 0;
}
