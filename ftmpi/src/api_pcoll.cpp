// C API: MPI-4 persistent collectives (MPI-4.0 6.13, 8.8: MPI_Allreduce_init, ...). A request
// made here holds the collective's call; each MPI_Start (api_p2p.cpp) starts one run of it as a
// nonblocking collective (nbc.h), so a run is exactly an MPI_Iallreduce with the arguments
// given at init: the same code, checks, progress and behaviour under failure (a run that loses
// a member completes with the error class the nonblocking one gets; on a revoked communicator
// with MPIX_ERR_REVOKED). MPI_Wait/MPI_Test complete the run and the request turns inactive;
// the next MPI_Start reads the buffers again. The members make a communicator's persistent
// collectives in the same order but may start them in different orders (MPI-4.0 6.13): a
// run's messages carry the request's own sequence number, taken at init
// (Nbc::persistent_sequence), so runs match by request, not by start order.
//
// Init does not communicate: it checks the communicator, the info and the request pointer, and
// holds the communicator and the datatypes until MPI_Request_free. The buffer, count, root and
// operation checks are the collective's own and run when MPI_Start starts it: an argument
// error is MPI_Start's return (the request stays inactive), as MPI_Iallreduce's is its own.
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "api_request.h"
#include "info.h"
#include "library.h"

namespace ftmpi {

struct PersistentColl {
  std::function<int()> call;          // the blocking collective with the init arguments
  std::vector<const Datatype*> held;  // released at MPI_Request_free
  MPI_Comm handle = MPI_COMM_NULL;    // the communicator's handle, which `call` names
  int sequence = 0;                   // its runs' tags (Nbc::persistent_sequence)
};

int start_collective(Request* r, MPI_Request* inner) {
  if (Fiber::running()) {  // from a user function inside a collective: no nesting
    return to_code(fail(Err::other,
                        "MPI_Start of a persistent collective from inside a "
                        "nonblocking collective"));
  }
  PersistentColl* coll = r->persistent.coll;
  // The call names the communicator by its handle: after MPI_Comm_free the handle is gone (the
  // request still holds the communicator) and may even name a newer one. Refused then, never
  // run on another communicator. (A freed datatype's handle stays unused while held: the call
  // reports MPI_ERR_TYPE.)
  Comm* now = nullptr;
  if (lib().comms.lookup(coll->handle, &now) != Err::ok || now != r->comm) {
    return to_code(fail(Err::comm, "MPI_Start: the communicator of this persistent collective "
                        "was freed after its init; it is needed until MPI_Request_free"));
  }
  Request* run = nullptr;
  int code = MPI_SUCCESS;
  // No types to hold per run: the persistent request holds them.
  lib().nbc.start(
      r->comm, nullptr, 0, [coll] { return coll->call(); }, &run, &code, coll->sequence);
  if (run == nullptr) return code;
  *inner = run->handle;
  return MPI_SUCCESS;
}

void release_collective(Request* r) {
  PersistentColl* coll = r->persistent.coll;
  for (const Datatype* d : coll->held) lib().types.release(d);
  delete coll;
  r->persistent.coll = nullptr;
  lib().construct.drop(r->comm);
  lib().engine.requests().release(r);
}

}  // namespace ftmpi

using namespace ftmpi;

namespace {

int init(const char* fn, MPI_Comm comm, MPI_Info info, MPI_Request* request,
         const MPI_Datatype* types, std::size_t ntypes, std::function<int()>&& call) {
  if (Err e = check_initialized(fn); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise(nullptr, e);
  if (request == nullptr) return raise(c, fail(Err::request, "%s: request pointer is NULL", fn));
  if (info != MPI_INFO_NULL) {  // no hints are used; a bad handle is still an error
    const Info* i = nullptr;
    if (Err e = infos().lookup(info, &i); e != Err::ok) return raise(c, e);
  }
  auto coll = std::make_unique<PersistentColl>();
  coll->call = std::move(call);
  coll->handle = comm;
  coll->sequence = Nbc::persistent_sequence(c);
  for (std::size_t k = 0; k < ntypes; ++k) {
    const MPI_Datatype t = types[k];
    // Predefined types are never freed; a bad handle is the collective's to report (at start),
    // as in Nbc::start.
    if (t > MPI_DATATYPE_NULL && t < FTMPI_NUM_PREDEFINED_TYPES) continue;
    const Datatype* d = nullptr;
    if (t != MPI_DATATYPE_NULL && lib().types.acquire(t, &d) == Err::ok) coll->held.push_back(d);
  }
  Request* r = lib().engine.requests().allocate(Request::Kind::persistent);
  r->comm = c;
  r->peer = MPI_PROC_NULL;
  r->persistent.coll = coll.release();
  lib().construct.hold(c);  // MPI_Comm_free may come before MPI_Request_free
  *request = r->handle;
  return MPI_SUCCESS;
}

int init(const char* fn, MPI_Comm comm, MPI_Info info, MPI_Request* request,
         std::initializer_list<MPI_Datatype> types, std::function<int()>&& call) {
  return init(fn, comm, info, request, types.begin(), types.size(), std::move(call));
}

}  // namespace

extern "C" {

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init("MPI_Barrier_init", comm, info, request, {}, [=] { return MPI_Barrier(comm); });
}

int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request* request) {
  return init("MPI_Bcast_init", comm, info, request, {datatype},
              [=] { return MPI_Bcast(buffer, count, datatype, root, comm); });
}

int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init("MPI_Reduce_init", comm, info, request, {datatype},
              [=] { return MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init("MPI_Allreduce_init", comm, info, request, {datatype},
              [=] { return MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request* request) {
  return init("MPI_Reduce_scatter_init", comm, info, request, {datatype},
              [=] { return MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm); });
}

int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  return init("MPI_Reduce_scatter_block_init", comm, info, request, {datatype}, [=] {
    return MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  });
}

int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init("MPI_Scan_init", comm, info, request, {datatype},
              [=] { return MPI_Scan(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init("MPI_Exscan_init", comm, info, request, {datatype},
              [=] { return MPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request* request) {
  return init("MPI_Gather_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init("MPI_Gatherv_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm);
  });
}

int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request* request) {
  return init("MPI_Scatter_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init("MPI_Scatterv_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        comm);
  });
}

int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  return init("MPI_Allgather_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init("MPI_Allgatherv_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm);
  });
}

int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  return init("MPI_Alltoall_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  return init("MPI_Alltoallv_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm);
  });
}

int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request* request) {
  const std::vector<MPI_Datatype> types = alltoallw_types(comm, sendbuf, sendtypes, recvtypes);
  return init("MPI_Alltoallw_init", comm, info, request, types.data(), types.size(), [=] {
    return MPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm);
  });
}

int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request* request) {
  return init("MPI_Neighbor_allgather_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  return init("MPI_Neighbor_allgatherv_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, comm);
  });
}

int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request* request) {
  return init("MPI_Neighbor_alltoall_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request* request) {
  return init("MPI_Neighbor_alltoallv_init", comm, info, request, {sendtype, recvtype}, [=] {
    return MPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                  rdispls, recvtype, comm);
  });
}

int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  const std::vector<MPI_Datatype> types = neighbor_alltoallw_types(comm, sendtypes, recvtypes);
  return init("MPI_Neighbor_alltoallw_init", comm, info, request, types.data(), types.size(), [=] {
    return MPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                  rdispls, recvtypes, comm);
  });
}

}  // extern "C"
