// Collectives on intercommunicators (intercomm_coll.h) that move equal blocks or reduce to
// everyone; the v- and w-forms and the reduce-scatters are in intercomm_vcoll.cpp, what all of
// them share in intercomm_call.h.
#include "intercomm_coll.h"

#include <ftmpi/coll/collectives.h>
#include <ftmpi/coll/scratch.h>

#include <vector>

#include "intercomm_call.h"
#include "library.h"

namespace ftmpi {

using namespace intercoll;

int inter_barrier(Comm* ic) {
  if (int rc = begin(ic, "MPI_Barrier"); rc != MPI_SUCCESS) return rc;
  Inter x(ic);
  // Everyone here has arrived; the leaders swap that; everyone here learns it.
  coll::Status s = coll::barrier(x.view, x.p2p);
  char none = 0, got = 0;
  if (s == coll::Status::ok && x.leader()) s = x.p2p.cross_sendrecv(0, &none, 0, &got, 0);
  if (s == coll::Status::ok) s = coll::barrier(x.view, x.p2p);
  return finish(ic, s, "MPI_Barrier");
}

int inter_bcast(Comm* ic, void* buf, int count, MPI_Datatype type, int root) {
  Role role;
  if (int rc = begin_rooted(ic, root, "MPI_Bcast", &role);
      rc != MPI_SUCCESS || role == Role::idle) {
    return rc;
  }
  Packed data;
  if (Err e = data.setup("MPI_Bcast buffer", buf, count, type); e != Err::ok) return raise(ic, e);
  Inter x(ic);
  if (role == Role::root) {
    data.stage.load_all();
    return finish(ic, x.p2p.cross_send(0, data.data(), data.bytes), "MPI_Bcast");
  }
  coll::Status s = coll::Status::ok;
  if (x.leader()) s = x.p2p.cross_recv(root, data.data(), data.bytes);
  if (s == coll::Status::ok) s = coll::bcast(x.view, x.p2p, data.data(), data.bytes, 0);
  if (s == coll::Status::ok) data.stage.store_all();
  return finish(ic, s, "MPI_Bcast");
}

int inter_reduce(Comm* ic, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                 MPI_Op op, int root) {
  Role role;
  if (int rc = begin_rooted(ic, root, "MPI_Reduce", &role);
      rc != MPI_SUCCESS || role == Role::idle) {
    return rc;
  }
  coll::Reduction r;
  Form form;
  const Datatype* t = nullptr;
  if (Err e = reduction_of(op, type, count, &r, &form, &t); e != Err::ok) return raise(ic, e);
  const auto n = static_cast<std::size_t>(count);
  Inter x(ic);
  if (role == Role::root) {
    Stage out;
    out.setup(recvbuf, n, *t, form);
    coll::Status s = x.p2p.cross_recv(0, out.data(), r.bytes());
    if (s == coll::Status::ok) out.store_all();
    return finish(ic, s, "MPI_Reduce");
  }
  if (sendbuf == MPI_IN_PLACE) {
    return raise(
        ic, fail(Err::buffer, "MPI_Reduce: MPI_IN_PLACE is not allowed on an intercommunicator"));
  }
  Stage in;
  in.setup(sendbuf, n, *t, form);
  in.load_all();
  coll::Scratch partial(r.bytes());
  coll::Status s = coll::reduce(x.view, x.p2p, in.data(), partial.data(), r, 0);
  if (s == coll::Status::ok && x.leader()) s = x.p2p.cross_send(root, partial.data(), r.bytes());
  return finish(ic, s, "MPI_Reduce");
}

int inter_allreduce(Comm* ic, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                    MPI_Op op) {
  if (int rc = begin(ic, "MPI_Allreduce"); rc != MPI_SUCCESS) return rc;
  if (sendbuf == MPI_IN_PLACE) {
    return raise(ic, fail(Err::buffer,
                          "MPI_Allreduce: MPI_IN_PLACE is not allowed on an intercommunicator"));
  }
  coll::Reduction r;
  Form form;
  const Datatype* t = nullptr;
  if (Err e = reduction_of(op, type, count, &r, &form, &t); e != Err::ok) return raise(ic, e);
  const auto n = static_cast<std::size_t>(count);
  Inter x(ic);
  Stage in, out;
  in.setup(sendbuf, n, *t, form);
  in.load_all();
  out.setup(recvbuf, n, *t, form);
  // This group's reduction at the leader; the leaders swap theirs; the remote group's result
  // goes to every member here.
  coll::Scratch partial(r.bytes());
  coll::Status s = coll::reduce(x.view, x.p2p, in.data(), partial.data(), r, 0);
  if (s == coll::Status::ok && x.leader()) {
    s = x.p2p.cross_sendrecv(0, partial.data(), r.bytes(), out.data(), r.bytes());
  }
  if (s == coll::Status::ok) s = coll::bcast(x.view, x.p2p, out.data(), r.bytes(), 0);
  if (s == coll::Status::ok) out.store_all();
  return finish(ic, s, "MPI_Allreduce");
}

int inter_gather(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root) {
  Role role;
  if (int rc = begin_rooted(ic, root, "MPI_Gather", &role);
      rc != MPI_SUCCESS || role == Role::idle) {
    return rc;
  }
  Inter x(ic);
  if (role == Role::root) {
    Packed out;
    if (Err e = out.setup("MPI_Gather recvbuf", recvbuf, recvcount * x.remote_size(), recvtype);
        e != Err::ok) {
      return raise(ic, e);
    }
    coll::Status s = x.p2p.cross_recv(0, out.data(), out.bytes);
    if (s == coll::Status::ok) out.stage.store_all();
    return finish(ic, s, "MPI_Gather");
  }
  Packed in;
  if (Err e = in.setup("MPI_Gather sendbuf", sendbuf, sendcount, sendtype); e != Err::ok) {
    return raise(ic, e);
  }
  in.stage.load_all();
  std::vector<unsigned char> all(x.leader() ? in.bytes * static_cast<std::size_t>(x.local_size())
                                            : 0);
  coll::Status s = coll::gather(x.view, x.p2p, in.data(), in.bytes, all.data(), 0);
  if (s == coll::Status::ok && x.leader()) s = x.p2p.cross_send(root, all.data(), all.size());
  return finish(ic, s, "MPI_Gather");
}

int inter_scatter(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  Role role;
  if (int rc = begin_rooted(ic, root, "MPI_Scatter", &role);
      rc != MPI_SUCCESS || role == Role::idle) {
    return rc;
  }
  Inter x(ic);
  if (role == Role::root) {
    Packed in;
    if (Err e = in.setup("MPI_Scatter sendbuf", sendbuf, sendcount * x.remote_size(), sendtype);
        e != Err::ok) {
      return raise(ic, e);
    }
    in.stage.load_all();
    return finish(ic, x.p2p.cross_send(0, in.data(), in.bytes), "MPI_Scatter");
  }
  Packed out;
  if (Err e = out.setup("MPI_Scatter recvbuf", recvbuf, recvcount, recvtype); e != Err::ok) {
    return raise(ic, e);
  }
  std::vector<unsigned char> all(x.leader() ? out.bytes * static_cast<std::size_t>(x.local_size())
                                            : 0);
  coll::Status s = coll::Status::ok;
  if (x.leader()) s = x.p2p.cross_recv(root, all.data(), all.size());
  if (s == coll::Status::ok) s = coll::scatter(x.view, x.p2p, all.data(), out.bytes, out.data(), 0);
  if (s == coll::Status::ok) out.stage.store_all();
  return finish(ic, s, "MPI_Scatter");
}

int inter_allgather(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  if (int rc = begin(ic, "MPI_Allgather"); rc != MPI_SUCCESS) return rc;
  Inter x(ic);
  Packed in, out;
  if (Err e = in.setup("MPI_Allgather sendbuf", sendbuf, sendcount, sendtype); e != Err::ok) {
    return raise(ic, e);
  }
  if (Err e = out.setup("MPI_Allgather recvbuf", recvbuf, recvcount * x.remote_size(), recvtype);
      e != Err::ok) {
    return raise(ic, e);
  }
  in.stage.load_all();
  std::vector<unsigned char> mine(x.leader() ? in.bytes * static_cast<std::size_t>(x.local_size())
                                             : 0);
  coll::Status s = coll::gather(x.view, x.p2p, in.data(), in.bytes, mine.data(), 0);
  if (s == coll::Status::ok && x.leader()) {
    s = x.p2p.cross_sendrecv(0, mine.data(), mine.size(), out.data(), out.bytes);
  }
  if (s == coll::Status::ok) s = coll::bcast(x.view, x.p2p, out.data(), out.bytes, 0);
  if (s == coll::Status::ok) out.stage.store_all();
  return finish(ic, s, "MPI_Allgather");
}

int inter_alltoall(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  if (int rc = begin(ic, "MPI_Alltoall"); rc != MPI_SUCCESS) return rc;
  Inter x(ic);
  const int n = x.remote_size();
  Packed in, out;
  if (Err e = in.setup("MPI_Alltoall sendbuf", sendbuf, sendcount * n, sendtype); e != Err::ok) {
    return raise(ic, e);
  }
  if (Err e = out.setup("MPI_Alltoall recvbuf", recvbuf, recvcount * n, recvtype); e != Err::ok) {
    return raise(ic, e);
  }
  in.stage.load_all();
  // Block j to and from remote rank j, every exchange posted at once.
  std::vector<std::size_t> sbytes(static_cast<std::size_t>(n),
                                  in.bytes / static_cast<std::size_t>(n));
  std::vector<std::size_t> rbytes(static_cast<std::size_t>(n),
                                  out.bytes / static_cast<std::size_t>(n));
  std::vector<std::size_t> sat(sbytes.size()), rat(rbytes.size());
  for (std::size_t j = 0; j < sat.size(); ++j) {
    sat[j] = j * sbytes[j];
    rat[j] = j * rbytes[j];
  }
  coll::Status s =
      exchange_all(x, in.data(), sbytes.data(), sat.data(), out.data(), rbytes.data(), rat.data());
  if (s == coll::Status::ok) out.stage.store_all();
  return finish(ic, s, "MPI_Alltoall");
}

}  // namespace ftmpi
