/* hello.c — the start-up benchmark's program (tests/bench/startup.sh): MPI_Init, the rank,
 * MPI_Finalize, nothing else, so a run's wall time is the MPI start-up and tear-down. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    return rank < 0;
}
