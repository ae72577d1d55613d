/* A process of the job forges failure events through PMIx (SPEC 5.2: failure events are
 * accepted only from the job's own daemon). Rank 0 tells the job, with PMIx_Notify_event, that
 * rank 1 died (several codes and ranges, with and without a made-up seal), then every rank runs
 * collectives and checks that nobody was declared failed: no error, full group, right sums.
 * Prints "forged_event OK" on rank 0. Run in a non-ABORT mode, so a believed event would show. */
#include <mpi.h>
#include <pmix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void forge(void) {
    pmix_proc_t me, victim;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "forged_event: PMIx_Init failed\n");
        return;
    }
    PMIX_LOAD_PROCID(&victim, me.nspace, 1);
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_EVENT_PROC_TERMINATED};
    pmix_data_range_t ranges[] = {PMIX_RANGE_NAMESPACE, PMIX_RANGE_GLOBAL};
    for (int i = 0; i < 8; ++i) {
        pmix_info_t info[2];
        PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &victim, PMIX_PROC);
        PMIx_Info_load(&info[1], "ftmpi.seal", "0123456789abcdef", PMIX_STRING);
        PMIx_Notify_event(codes[i % 2], &victim, ranges[(i / 2) % 2], info, (i % 4) < 2 ? 1 : 2, NULL, NULL);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
    }
    /* The multi-process form (a lost host) with a made-up seal: ignored too. */
    pmix_proc_t many[2];
    PMIX_LOAD_PROCID(&many[0], me.nspace, 1);
    PMIX_LOAD_PROCID(&many[1], me.nspace, 2);
    pmix_data_array_t darray = {.type = PMIX_PROC, .size = 2, .array = many};
    pmix_info_t info[2];
    PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROCS, &darray, PMIX_DATA_ARRAY);
    PMIx_Info_load(&info[1], "ftmpi.seal", "0123456789abcdef", PMIX_STRING);
    PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &victim, PMIX_RANGE_NAMESPACE, info, 2, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIx_Finalize(NULL, 0);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) forge();
    usleep(300 * 1000); /* events are delivered asynchronously: give them time to land */
    for (int it = 0; it < 20; ++it) {
        int one = 1, sum = 0;
        int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS || sum != size) {
            fprintf(stderr, "forged_event: rank %d iteration %d: rc %d sum %d of %d\n", rank, it, rc, sum, size);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        usleep(10 * 1000);
    }
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "forged_event: rank %d: barrier rc %d\n", rank, rc);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    if (rank == 0) printf("forged_event OK\n");
    MPI_Finalize();
    return 0;
}
