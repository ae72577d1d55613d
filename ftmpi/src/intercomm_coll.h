// Collectives on intercommunicators (MPI-2.2 5.2.2-5.2.3), called by the MPI_* entry points of
// api_coll_*.cpp when their communicator is an intercommunicator (and so, through them, by the
// nonblocking forms too). Built as MPICH builds them: the local group runs the collectives
// algorithms of collectives/ among itself (on the intercommunicator's collective context,
// addressed through the local group: InterP2P), and the two groups' leaders (local rank 0) or
// all processes pairwise exchange the data across.
//
// Rooted operations: the root passes MPI_ROOT, the other members of its group MPI_PROC_NULL,
// the other group the root's rank in the remote group. MPI_IN_PLACE is not allowed.
// Count, displacement and type arrays have one entry per REMOTE rank, except
// MPI_Reduce_scatter's recvcounts (one per local rank: how this group's result is split).
//
// Results (MPI-3.1 5.2.3): a member of group A ends an allreduce with the reduction of group
// B's inputs, an allgather(v) with B's blocks (remote_size of them), an alltoall(v/w) with
// block j from remote rank j, a reduce-scatter with its block of the reduction of B's inputs.
// Both groups of a reduce-scatter must reduce the same number of elements.
//
// Failures: intercommunicators are not repaired (intercomm.h): a member of either group that
// fails marks the intercommunicator FAILED, every pending step ends, and the collective returns
// MPI_ERR_OTHER (MPIX_ERR_PROC_FAILED in ULFM mode). There is no ATOMIC outcome step.
#pragma once

#include <mpi.h>

#include "comm.h"

namespace ftmpi {

int inter_barrier(Comm* ic);
int inter_bcast(Comm* ic, void* buf, int count, MPI_Datatype type, int root);
int inter_reduce(Comm* ic, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                 MPI_Op op, int root);
int inter_allreduce(Comm* ic, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                    MPI_Op op);
int inter_gather(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int inter_scatter(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int inter_allgather(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype);
int inter_alltoall(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype);
int inter_gatherv(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root);
int inter_scatterv(Comm* ic, const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root);
int inter_allgatherv(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     void* recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype);
int inter_alltoallv(Comm* ic, const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype);
int inter_alltoallw(Comm* ic, const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[]);
int inter_reduce_scatter(Comm* ic, const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype type, MPI_Op op);
int inter_reduce_scatter_block(Comm* ic, const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype type, MPI_Op op);

}  // namespace ftmpi
