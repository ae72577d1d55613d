// C API: the neighbourhood collectives (MPI-3.1 7.6) on Cartesian, graph and distributed graph
// communicators. Each turns its arguments into one block per neighbour (neighbor_exchange.h)
// and runs the exchange; the nonblocking forms (api_nbc.cpp) run these on a fiber.
//
// Outcome: as every collective (coll_call.h). In FTMPI_COLL_MODE_ATOMIC (an FT-MPI mode other
// than ABORT) the blocking forms end with the outcome agreement, so every survivor returns the
// same outcome, SPEC 4.4, at the price of a step over the whole communicator (a neighbourhood
// collective alone synchronises neighbours only). RELAXED, ULFM and the nonblocking forms have
// no such step: a process succeeds when every block it needed arrived.
#include "coll_call.h"
#include "neighbor_exchange.h"
#include "topology_api.h"

using namespace ftmpi;
using namespace ftmpi::collapi;
using NBlock = ftmpi::neighbor::Block;
using ftmpi::neighbor::Plan;

namespace {

// The communicator (it must carry a topology: MPI_ERR_TOPOLOGY, the same at every member, so
// no outcome vote) and the neighbours; then the collective's entry (a failure pending here).
Err begin_neighbor(MPI_Comm comm, const char* fn, Call* call, Plan* plan) {
  const Topology* t = nullptr;
  if (Err e = topo_api::find_topology(comm, MPI_UNDEFINED, fn, &call->comm, &t); e != Err::ok) {
    return e;
  }
  plan->peers = neighbors_of(*t, call->comm->rank);
  return enter(call);
}

std::uintptr_t at(const void* buf, MPI_Aint bytes) {
  return reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(bytes);
}

// n blocks of count elements of type, the i-th at buf + i * stride elements (stride 0: all at
// buf, the allgather's send side).
Err uniform(const void* buf, int count, MPI_Datatype type, std::size_t n, int stride,
            std::vector<NBlock>* out) {
  const Datatype* t = nullptr;
  if (Err e = lib().types.lookup(type, &t); e != Err::ok) return e;
  out->resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const MPI_Aint elements = static_cast<MPI_Aint>(i) * stride;
    (*out)[i] = NBlock{at(buf, elements * t->extent), count, t};
  }
  return Err::ok;
}

// Block i: counts[i] elements of type at element displs[i] of buf.
Err varying(const char* what, const void* buf, const int* counts, const int* displs,
            MPI_Datatype type, std::size_t n, std::vector<NBlock>* out) {
  const Datatype* t = nullptr;
  if (Err e = lib().types.lookup(type, &t); e != Err::ok) return e;
  if (n > 0 && (counts == nullptr || displs == nullptr)) {
    return fail(Err::arg, "%scounts or %s displacements is NULL", what, what);
  }
  out->resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    (*out)[i] = NBlock{at(buf, static_cast<MPI_Aint>(displs[i]) * t->extent), counts[i], t};
  }
  return Err::ok;
}

// Block i: counts[i] elements of types[i] at byte displacement displs[i] of buf.
Err typed(const char* what, const void* buf, const int* counts, const MPI_Aint* displs,
          const MPI_Datatype* types, std::size_t n, std::vector<NBlock>* out) {
  if (n > 0 && (counts == nullptr || displs == nullptr || types == nullptr)) {
    return fail(Err::arg, "%scounts, %s displacements or %stypes is NULL", what, what, what);
  }
  out->resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Datatype* t = nullptr;
    if (Err e = lib().types.lookup(types[i], &t); e != Err::ok) return e;
    (*out)[i] = NBlock{at(buf, displs[i]), counts[i], t};
  }
  return Err::ok;
}

// Checks the blocks (refusing through the outcome vote, coll_call.h) and runs the exchange.
int run(Comm* c, const char* fn, const void* sendbuf, const void* recvbuf, Plan* plan) {
  if (Err e = neighbor::check_blocks("send", plan->sends, sendbuf); e != Err::ok) return refuse(c, e);
  if (Err e = neighbor::check_blocks("recv", plan->recvs, recvbuf); e != Err::ok) return refuse(c, e);
  CommP2P p2p(&lib().engine, c);
  return finish(c, neighbor::exchange(*c, p2p, *plan), fn);
}

}  // namespace

#define NEIGHBOR_BEGIN(fn)                                                                \
  Call call;                                                                              \
  Plan plan;                                                                              \
  if (Err e_ = begin_neighbor(comm, fn, &call, &plan); e_ != Err::ok) {                   \
    return raise(call.comm, e_);                                                          \
  }                                                                                       \
  Comm* c = call.comm;                                                                    \
  const std::size_t indegree = plan.peers.sources.size();                                 \
  const std::size_t outdegree = plan.peers.destinations.size()

extern "C" {

int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  NEIGHBOR_BEGIN("MPI_Neighbor_allgather");
  CHECK(uniform(sendbuf, sendcount, sendtype, outdegree, 0, &plan.sends));
  CHECK(uniform(recvbuf, recvcount, recvtype, indegree, recvcount, &plan.recvs));
  plan.one_send = true;
  return run(c, "MPI_Neighbor_allgather", sendbuf, recvbuf, &plan);
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
  NEIGHBOR_BEGIN("MPI_Neighbor_allgatherv");
  CHECK(uniform(sendbuf, sendcount, sendtype, outdegree, 0, &plan.sends));
  CHECK(varying("recv", recvbuf, recvcounts, displs, recvtype, indegree, &plan.recvs));
  plan.one_send = true;
  return run(c, "MPI_Neighbor_allgatherv", sendbuf, recvbuf, &plan);
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  NEIGHBOR_BEGIN("MPI_Neighbor_alltoall");
  CHECK(uniform(sendbuf, sendcount, sendtype, outdegree, sendcount, &plan.sends));
  CHECK(uniform(recvbuf, recvcount, recvtype, indegree, recvcount, &plan.recvs));
  return run(c, "MPI_Neighbor_alltoall", sendbuf, recvbuf, &plan);
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  NEIGHBOR_BEGIN("MPI_Neighbor_alltoallv");
  CHECK(varying("send", sendbuf, sendcounts, sdispls, sendtype, outdegree, &plan.sends));
  CHECK(varying("recv", recvbuf, recvcounts, rdispls, recvtype, indegree, &plan.recvs));
  return run(c, "MPI_Neighbor_alltoallv", sendbuf, recvbuf, &plan);
}

int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm) {
  NEIGHBOR_BEGIN("MPI_Neighbor_alltoallw");
  CHECK(typed("send", sendbuf, sendcounts, sdispls, sendtypes, outdegree, &plan.sends));
  CHECK(typed("recv", recvbuf, recvcounts, rdispls, recvtypes, indegree, &plan.recvs));
  return run(c, "MPI_Neighbor_alltoallw", sendbuf, recvbuf, &plan);
}

}  // extern "C"
