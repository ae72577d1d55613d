/* Token ring: passes a counter around all ranks `laps` times (argv[1], default 1000) and prints
 * the time. With 8 ranks on 2 cores this checks that waiting does not starve the token holder. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int laps = argc > 1 ? atoi(argv[1]) : 1000;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long token = 0;
  double t0 = MPI_Wtime();
  for (int lap = 0; lap < laps; lap++) {
    if (rank == 0) {
      token++;
      MPI_Send(&token, 1, MPI_LONG, right, 0, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token++;
      MPI_Send(&token, 1, MPI_LONG, right, 0, MPI_COMM_WORLD);
    }
  }
  double t = MPI_Wtime() - t0;
  int ok = (rank != 0) || token == (long)laps * size;
  if (rank == 0) {
    printf("ring: %d ranks, %d laps, token %ld (expected %ld), %.3f s, %.2f us/hop\n", size, laps,
           token, (long)laps * size, t, 1e6 * t / ((double)laps * size));
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
