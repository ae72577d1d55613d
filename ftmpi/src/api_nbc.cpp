// C API: MPI-3 nonblocking collectives and MPI_Comm_idup. Each starts the blocking call's code
// as a request (nbc.h): its arguments are checked by that code at once (an argument error is
// returned here, with no request), the rest runs as MPI_Test/MPI_Wait and the process's other
// waits drive it. The buffers and count arrays are the application's until the request is
// complete (MPI-3.1 5.12), so the body keeps pointers to them.
#include <initializer_list>
#include <memory>
#include <vector>

#include "info.h"
#include "library.h"
#include "topology.h"

using namespace ftmpi;

namespace {

int start(const char* fn, MPI_Comm comm, MPI_Request* request, const MPI_Datatype* types,
          std::size_t ntypes, NbcBody&& body) {
  if (Err e = check_initialized(fn); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise(nullptr, e);
  if (request == nullptr) return raise(c, fail(Err::request, "%s: request pointer is NULL", fn));
  if (Fiber::running()) {  // from a user function inside another collective: no nesting
    return raise(c, fail(Err::other, "%s called from inside a nonblocking collective", fn));
  }
  Request* r = nullptr;
  int code = MPI_SUCCESS;
  lib().nbc.start(c, types, ntypes, std::move(body), &r, &code);
  if (r == nullptr) {
    *request = MPI_REQUEST_NULL;
    return raise_code(c, code);
  }
  *request = r->handle;
  return MPI_SUCCESS;
}

int start(const char* fn, MPI_Comm comm, MPI_Request* request,
          std::initializer_list<MPI_Datatype> types, NbcBody&& body) {
  return start(fn, comm, request, types.begin(), types.size(), std::move(body));
}

}  // namespace

namespace ftmpi {

// One type per peer and direction (a bad argument is the body's to report: none then).
std::vector<MPI_Datatype> alltoallw_types(MPI_Comm comm, const void* sendbuf,
                                          const MPI_Datatype sendtypes[],
                                          const MPI_Datatype recvtypes[]) {
  std::vector<MPI_Datatype> types;
  Comm* c = nullptr;
  if (lib().initialized && lib().comms.lookup(comm, &c) == Err::ok && recvtypes != nullptr &&
      (sendbuf == MPI_IN_PLACE || sendtypes != nullptr)) {
    const auto n = static_cast<std::size_t>(c->peer_size());  // the remote group's, if inter
    types.assign(recvtypes, recvtypes + n);
    if (sendbuf != MPI_IN_PLACE) types.insert(types.end(), sendtypes, sendtypes + n);
  }
  return types;
}

// One type per neighbour and direction (no topology, or NULL arrays: the body reports it).
std::vector<MPI_Datatype> neighbor_alltoallw_types(MPI_Comm comm, const MPI_Datatype sendtypes[],
                                                   const MPI_Datatype recvtypes[]) {
  std::vector<MPI_Datatype> types;
  Comm* c = nullptr;
  if (lib().initialized && lib().comms.lookup(comm, &c) == Err::ok && c->topology) {
    const Neighbors n = neighbors_of(*c->topology, c->rank);
    if (recvtypes != nullptr) types.assign(recvtypes, recvtypes + n.sources.size());
    if (sendtypes != nullptr) types.insert(types.end(), sendtypes, sendtypes + n.destinations.size());
  }
  return types;
}

}  // namespace ftmpi

extern "C" {

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Ibarrier", comm, request, {}, [=] { return MPI_Barrier(comm); });
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  return start("MPI_Ibcast", comm, request, {type},
               [=] { return MPI_Bcast(buffer, count, type, root, comm); });
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Ireduce", comm, request, {type},
               [=] { return MPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); });
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Iallreduce", comm, request, {type},
               [=] { return MPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); });
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Ireduce_scatter", comm, request, {type}, [=] {
    return MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  });
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  return start("MPI_Ireduce_scatter_block", comm, request, {type}, [=] {
    return MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
  });
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Iscan", comm, request, {type},
               [=] { return MPI_Scan(sendbuf, recvbuf, count, type, op, comm); });
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Iexscan", comm, request, {type},
               [=] { return MPI_Exscan(sendbuf, recvbuf, count, type, op, comm); });
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  return start("MPI_Igather", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Igatherv", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                       root, comm);
  });
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  return start("MPI_Iscatter", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Iscatterv", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                        root, comm);
  });
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Iallgather", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Iallgatherv", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm);
  });
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Ialltoall", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  return start("MPI_Ialltoallv", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm);
  });
}

int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request) {
  const std::vector<MPI_Datatype> types = alltoallw_types(comm, sendbuf, sendtypes, recvtypes);
  return start("MPI_Ialltoallw", comm, request, types.data(), types.size(), [=] {
    return MPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm);
  });
}

// ---- Neighbourhood collectives (api_neighbor.cpp) -----------------------------------------

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  return start("MPI_Ineighbor_allgather", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  comm);
  });
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return start("MPI_Ineighbor_allgatherv", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, comm);
  });
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request* request) {
  return start("MPI_Ineighbor_alltoall", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm);
  });
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  return start("MPI_Ineighbor_alltoallv", comm, request, {sendtype, recvtype}, [=] {
    return MPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                  rdispls, recvtype, comm);
  });
}

int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  const std::vector<MPI_Datatype> types = neighbor_alltoallw_types(comm, sendtypes, recvtypes);
  return start("MPI_Ineighbor_alltoallw", comm, request, types.data(), types.size(), [=] {
    return MPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                  rdispls, recvtypes, comm);
  });
}

// The agreement a duplication runs claims its place among the communicator's agreements when
// it begins, which is inside this call (the body runs until its first wait), so an idup keeps
// its order among the constructors and ATOMIC collectives that follow it.
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  if (newcomm == nullptr) {
    Comm* c = nullptr;
    (void)lib().comms.lookup(comm, &c);
    return raise(c, fail(Err::arg, "MPI_Comm_idup: newcomm pointer is NULL"));
  }
  return start("MPI_Comm_idup", comm, request, {}, [=] { return MPI_Comm_dup(comm, newcomm); });
}

// MPI-4.0 7.4.2: MPI_Comm_idup whose duplicate gets `info`'s hints instead of the parent's
// (as MPI_Comm_dup_with_info). The hints are copied now: the application may free `info` as
// soon as this returns.
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                            MPI_Request* request) {
  if (Err e = check_initialized("MPI_Comm_idup_with_info"); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise(nullptr, e);
  const Info* i = nullptr;
  if (info != MPI_INFO_NULL) {
    if (Err e = infos().lookup(info, &i); e != Err::ok) return raise(c, e);
  }
  if (newcomm == nullptr) {
    return raise(c, fail(Err::arg, "MPI_Comm_idup_with_info: newcomm pointer is NULL"));
  }
  auto hints = std::make_shared<const Info>(i != nullptr ? *i : Info{});
  return start("MPI_Comm_idup_with_info", comm, request, {}, [=] {
    if (int rc = MPI_Comm_dup(comm, newcomm); rc != MPI_SUCCESS) return rc;
    Comm* child = nullptr;
    if (lib().comms.lookup(*newcomm, &child) == Err::ok) child->hints = *hints;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
