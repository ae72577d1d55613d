/* ULFM (User-Level Failure Mitigation) as shipped by Open MPI 5: the MPIX_ names, with Open MPI's
 * signatures, so ULFM applications compile unchanged (SPEC 4.8). Implemented on the same core as
 * the FT-MPI modes of ftmpi.h: one failure detector, one agreement. Semantics and the choices
 * made where the ULFM text leaves room: README.md, "ULFM". */
#ifndef FTMPI_MPI_EXT_H
#define FTMPI_MPI_EXT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Feature test macro: this MPI has the ULFM extension (Open MPI: mpi-ext.h defines MPIX_FT). */
#define MPIX_FT 1
/* Open MPI's run-time switch for the extension; here it is always available. */
#define OMPI_HAVE_MPI_EXT_FTMPI 1

/* Error classes (MPI_Error_class / MPI_Error_string know them). Below MPI_ERR_LASTCODE. */
#define MPIX_ERR_PROC_FAILED 60         /* a process involved in the operation failed */
#define MPIX_ERR_PROC_FAILED_PENDING 61 /* a wildcard receive may match a failed process; still pending */
#define MPIX_ERR_REVOKED 62             /* the communicator was revoked */

/* Every pending and later operation on comm (except these recovery calls) fails with
 * MPIX_ERR_REVOKED on every process of comm. Local, non-blocking; propagates by itself. */
int MPIX_Comm_revoke(MPI_Comm comm);
int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag);

/* A new communicator of the processes of comm not known to have failed, the same on every
 * survivor (relative order kept), even when processes fail while it runs. Works on a revoked comm. */
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int MPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);

/* Bitwise AND of the survivors' flags, the same value and the same error everywhere;
 * MPIX_ERR_PROC_FAILED when a process failed without every survivor having acknowledged it. */
int MPIX_Comm_agree(MPI_Comm comm, int *flag);
int MPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request);

/* Acknowledgement, local: wildcard receives and MPIX_Comm_agree stop reporting acknowledged failures. */
int MPIX_Comm_failure_ack(MPI_Comm comm);
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
/* The newer interface (Open MPI 5.0): failures in the order this process learned of them. */
int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp);
int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* FTMPI_MPI_EXT_H */
