/* Rank 1 is killed by a signal after MPI_Init (issue 16 item 6): mpirun must report the signal
 * (11 for "segv", 15 for "term"), which a vendor library's handler (InfiniPath, loaded with
 * libfabric) used to turn into "exited with status 1". kill() rather than raise(): the handler
 * must see a real signal from outside, as from a crash or from `kill`.
 * "sleep": every rank writes its pid to $FTMPI_TEST_DIR/pid.<rank> after MPI_Init (its
 * /dev/shm segments exist by then) and sleeps, for the tests that kill mpirun under a job.
 * "gate": every rank writes its pid file, waits until $FTMPI_TEST_DIR/go exists, then finalizes
 * and exits 0 (the test stops the daemon in between). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    const int gate = argc > 1 && strcmp(argv[1], "gate") == 0;
    if (gate || (argc > 1 && strcmp(argv[1], "sleep") == 0)) {
        const char* dir = getenv("FTMPI_TEST_DIR");
        char path[4096];
        snprintf(path, sizeof path, "%s/pid.%d", dir != NULL ? dir : ".", rank);
        FILE* f = fopen(path, "w");
        if (f != NULL) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
        if (gate) {
            snprintf(path, sizeof path, "%s/go", dir != NULL ? dir : ".");
            for (int i = 0; i < 3000 && access(path, F_OK) != 0; i++) usleep(10000);
            MPI_Finalize();
            return 0;
        }
        sleep(60); /* mpirun is killed long before this */
    } else if (rank == 1) {
        kill(getpid(), argc > 1 && strcmp(argv[1], "segv") == 0 ? SIGSEGV : SIGTERM);
    }
    sleep(10); /* the runtime ends the job long before this */
    MPI_Finalize();
    return 0;
}
