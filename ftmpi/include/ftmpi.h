/* ftmpi fault-tolerance extensions (FT-MPI semantics). Included by mpi.h. */
#ifndef FTMPI_FTMPI_H
#define FTMPI_FTMPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Process states, as seen by a communicator. */
#define FTMPI_PROC_OK 0
#define FTMPI_PROC_UNAVAILABLE 1
#define FTMPI_PROC_JOINING 2
#define FTMPI_PROC_FAILED 3

/* Communicator states. */
#define FTMPI_COMM_OK 0
#define FTMPI_COMM_DETECTED 1
#define FTMPI_COMM_RECOVER 2
#define FTMPI_COMM_RECOVERED 3
#define FTMPI_COMM_FAILED 4

/* Communicator modes: what the repaired communicator looks like. */
#define FTMPI_COMM_MODE_ABORT 0
#define FTMPI_COMM_MODE_SHRINK 1
#define FTMPI_COMM_MODE_BLANK 2
#define FTMPI_COMM_MODE_REBUILD 3
#define FTMPI_COMM_MODE_REBUILD_APPEND 4
/* ULFM (mpi-ext.h, SPEC 4.8): failures are reported as MPIX_ERR_PROC_FAILED and nothing is
 * repaired implicitly; the application revokes, shrinks and agrees. */
#define FTMPI_COMM_MODE_ULFM 5
#define FTMPI_REBUILD_INPLACE FTMPI_COMM_MODE_REBUILD
#define FTMPI_REBUILD_APPEND FTMPI_COMM_MODE_REBUILD_APPEND

/* Message modes: what happens to messages in flight. */
#define FTMPI_MSG_MODE_NOP 0
#define FTMPI_MSG_MODE_RESET FTMPI_MSG_MODE_NOP
#define FTMPI_MSG_MODE_CONT 1

/* Collective modes. */
#define FTMPI_COLL_MODE_ATOMIC 0
#define FTMPI_COLL_MODE_RELAXED 1

/* Cached attributes (read with MPI_Comm_get_attr / MPI_Attr_get; the value is an int*). */
#define FTMPI_NUM_FAILED_PROCS 6
#define FTMPI_COMM_STATE 7
#define FTMPI_COMM_MODE 8
#define FTMPI_MSG_MODE 9
#define FTMPI_COLL_MODE 10

/* How this process started. */
#define FTMPI_INIT_NEW 0
#define FTMPI_INIT_RESTARTED 1

/* Reports whether this process is an original one or a REBUILD replacement. */
int FTMPI_Init_state(int *state);

/* Modes, per communicator; new communicators inherit their parent's. */
int FTMPI_Comm_set_mode(MPI_Comm comm, int comm_mode, int msg_mode);
int FTMPI_Comm_get_mode(MPI_Comm comm, int *comm_mode, int *msg_mode);
int FTMPI_Comm_set_coll_mode(MPI_Comm comm, int coll_mode);
int FTMPI_Comm_get_coll_mode(MPI_Comm comm, int *coll_mode);

/* Queries. Failures are reported until the communicator is repaired. */
int FTMPI_Comm_state(MPI_Comm comm, int *state);
int FTMPI_Comm_proc_state(MPI_Comm comm, int rank, int *state);
int FTMPI_Comm_failed_ranks(MPI_Comm comm, int maxn, int *ranks, int *n);
int FTMPI_Comm_valid_size(MPI_Comm comm, int *n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* FTMPI_FTMPI_H */
