/* Rank 1 is killed by a signal after MPI_Init (issue 16 item 6): mpirun must report the signal
 * (11 for "segv", 15 for "term"), which a vendor library's handler (InfiniPath, loaded with
 * libfabric) used to turn into "exited with status 1". kill() rather than raise(): the handler
 * must see a real signal from outside, as from a crash or from `kill`. */
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) kill(getpid(), argc > 1 && strcmp(argv[1], "segv") == 0 ? SIGSEGV : SIGTERM);
    sleep(10); /* the runtime ends the job long before this */
    MPI_Finalize();
    return 0;
}
