/* The FT-MPI paper's scenario (SPEC 8) in steps a test can observe with cominfo:
 *   phase 1: 3 healthy ranks; rank 0 creates DIR/ready1, all wait for DIR/go1
 *   phase 2: rank 1 exits without MPI_Finalize; the survivors see the failure on WORLD,
 *            rank 0 creates DIR/ready2, all wait for DIR/go2
 *   phase 3: SHRINK repair with MPI_Comm_dup; rank 0 creates DIR/ready3, wait for DIR/go3
 * Run with --comm-mode shrink. Every wait gives up after 60 s. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char* dir;

static void touch(const char* name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  if (f) fclose(f);
}

static void wait_for(const char* name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  for (int i = 0; i < 6000; ++i) {
    if (access(path, F_OK) == 0) return;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  fprintf(stderr, "ft_phases: gave up waiting for %s\n", path);
  exit(2);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  dir = argv[1];
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) touch("ready1");
  wait_for("go1");
  if (rank == 1) _exit(3);
  /* Survivors: a barrier fails once the failure is known. */
  int rc = MPI_SUCCESS;
  for (int i = 0; i < 600 && rc == MPI_SUCCESS; ++i) rc = MPI_Barrier(MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS) {
    fprintf(stderr, "ft_phases: rank %d never saw the failure\n", rank);
    return 1;
  }
  if (rank == 0) touch("ready2");
  wait_for("go2");
  MPI_Comm dup;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS) {
    fprintf(stderr, "ft_phases: rank %d: repair failed\n", rank);
    return 1;
  }
  MPI_Barrier(MPI_COMM_WORLD); /* RECOVERED -> OK */
  MPI_Comm_set_name(dup, "work");
  MPI_Barrier(dup);
  if (rank == 0) touch("ready3");
  wait_for("go3");
  MPI_Comm_free(&dup);
  MPI_Finalize();
  if (rank == 0) printf("ft_phases OK\n");
  return 0;
}
