// C API: collectives. Arguments are checked here, converted to bytes, and handed to the
// algorithms in collectives/ through CommP2P; the Status they return maps to an error class.
#include <ftmpi/coll/collectives.h>

#include <vector>

#include "coll_p2p.h"
#include "library.h"

using namespace ftmpi;

namespace {

struct Call {
  Comm* comm = nullptr;
  coll::View view;
};

// FTMPI_COLL_MODE_ATOMIC (SPEC 4.4): in a fault-tolerant mode every survivor leaves a
// collective with the same outcome. Every call that got as far as the communicator (success,
// failure seen during the algorithm, or refused because of a failure) contributes "did it
// work here" to one failure-tolerant agreement (consensus.cpp) on the communicator; the
// collective succeeds only if it worked everywhere and nobody died. The agreement costs
// 2(n-1) small messages per collective: ABORT mode (the default) and RELAXED skip it.
bool atomic(const Comm* c) {
  return c->comm_mode != FTMPI_COMM_MODE_ABORT && c->coll_mode == FTMPI_COLL_MODE_ATOMIC &&
         c->size() > 1;
}

bool agree_outcome(Comm* c, bool ok_here) {
  Decision d;
  if (lib().consensus.agree(c, {static_cast<std::uint8_t>(ok_here ? 1 : 0)}, &d) != Err::ok) {
    return false;
  }
  for (int r : d.failed) {
    std::uint32_t proc = c->procs[static_cast<std::size_t>(r)];
    if (!lib().engine.is_failed(proc)) lib().engine.declare_failed(proc);
  }
  bool ok = c->failed.empty();  // old BLANK gaps are not in `failed`; new failures are
  for (const auto& contribution : d.contributions) {
    ok = ok && !contribution.second.empty() && contribution.second[0] == 1;
  }
  return ok;
}

Err begin(MPI_Comm comm, const char* fn, Call* call) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  if (Err e = lib().comms.lookup(comm, &call->comm); e != Err::ok) return e;
  if (call->comm->inter) {
    return fail(Err::comm, "%s: %s is an intercommunicator; collectives on intercommunicators "
                "are not supported", fn, call->comm->name.c_str());
  }
  if (call->comm->state != FTMPI_COMM_OK) {
    if (Err e = lib().ft.check(call->comm, FaultHandler::kWholeComm); e != Err::ok) {
      if (atomic(call->comm)) (void)agree_outcome(call->comm, false);
      return e;
    }
  }
  call->view = CommP2P::view_of(*call->comm);
  return Err::ok;
}

// One buffer argument (`what` names it): count, datatype, and a buffer that can hold the data.
// Callers skip a buffer that is legitimately MPI_IN_PLACE; anywhere else it is an error.
Err bytes_of(const char* what, const void* buf, int count, MPI_Datatype type, std::size_t* bytes,
             std::size_t* extent = nullptr) {
  if (count < 0) return fail(Err::count, "%s: count %d is negative", what, count);
  const Datatype* t = nullptr;
  if (Err e = lib().types.lookup(type, &t); e != Err::ok) return e;
  if (!t->contiguous && !t->predefined) {
    return fail(Err::type, "datatype %d: non-contiguous derived datatypes are not supported in "
                "collectives yet", type);
  }
  *bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(t->extent);
  if (extent != nullptr) *extent = static_cast<std::size_t>(t->extent);
  if (buf == MPI_IN_PLACE) return fail(Err::buffer, "%s may not be MPI_IN_PLACE here", what);
  if (buf == nullptr && *bytes > 0) {
    return fail(Err::buffer, "%s is NULL but %d elements are to be transferred", what, count);
  }
  return Err::ok;
}

// MPI_IN_PLACE given by a process for which the collective does not define it.
Err in_place_not_here(const char* what, const char* fn) {
  return fail(Err::buffer, "%s: %s may be MPI_IN_PLACE at the root only", fn, what);
}

// MPI forbids aliasing an input and an output buffer (MPI_IN_PLACE is the way to share one).
Err check_distinct(const void* sendbuf, const void* recvbuf, std::size_t bytes) {
  if (sendbuf == recvbuf && bytes > 0) {
    return fail(Err::buffer, "sendbuf and recvbuf are the same buffer (%p); use MPI_IN_PLACE",
                sendbuf);
  }
  return Err::ok;
}

// A v-variant's buffer, once its byte counts are known: it must exist if anything moves.
Err check_v_buffer(const char* what, const void* buf, const std::vector<std::size_t>& bytes) {
  if (buf != nullptr) return Err::ok;
  for (std::size_t r = 0; r < bytes.size(); ++r) {
    if (bytes[r] > 0) {
      return fail(Err::buffer, "%s is NULL but %zu bytes are to be transferred for rank %zu", what,
                  bytes[r], r);
    }
  }
  return Err::ok;
}

std::size_t total_of(const std::vector<std::size_t>& v) {
  std::size_t n = 0;
  for (std::size_t x : v) n += x;
  return n;
}

Err check_root(Comm* c, int root) {
  if (root < 0 || root >= c->size()) {
    return fail(Err::root, "root %d outside 0..%d of %s", root, c->size() - 1, c->name.c_str());
  }
  if (c->is_failed(root)) {
    if (atomic(c)) (void)agree_outcome(c, false);
    return fail(Err::root, "root %d of %s has failed", root, c->name.c_str());
  }
  return Err::ok;
}

// counts/displs in elements of `extent` bytes -> byte arrays per communicator rank.
Err to_bytes(const Comm* c, const int* counts, const int* displs, std::size_t extent,
             std::vector<std::size_t>* bc, std::vector<std::size_t>* bd) {
  if (counts == nullptr || (bd != nullptr && displs == nullptr)) {
    return fail(Err::arg, "counts or displacements array is NULL");
  }
  bc->resize(static_cast<std::size_t>(c->size()));
  if (bd != nullptr) bd->resize(static_cast<std::size_t>(c->size()));
  for (int r = 0; r < c->size(); ++r) {
    if (counts[r] < 0) return fail(Err::count, "count %d for rank %d is negative", counts[r], r);
    (*bc)[static_cast<std::size_t>(r)] = static_cast<std::size_t>(counts[r]) * extent;
    if (bd != nullptr) {
      if (displs[r] < 0) return fail(Err::arg, "displacement %d for rank %d is negative", displs[r], r);
      (*bd)[static_cast<std::size_t>(r)] = static_cast<std::size_t>(displs[r]) * extent;
    }
  }
  return Err::ok;
}

int finish(Comm* c, coll::Status s, const char* fn) {
  if (atomic(c) && !agree_outcome(c, s == coll::Status::ok) && s == coll::Status::ok) {
    return raise(c, fail(Err::other, "%s on %s: a participant failed or the collective failed "
                         "elsewhere (atomic mode: every survivor gets this error)%s%s", fn,
                         c->name.c_str(), c->failed.empty() ? "" : "; failed rank(s) ",
                         failed_ranks_text(*c).c_str()));
  }
  switch (s) {
    case coll::Status::ok: return MPI_SUCCESS;
    case coll::Status::proc_failed:
      return raise(c, fail(Err::other, "%s on %s: a participant failed (rank(s) %s)", fn,
                           c->name.c_str(), failed_ranks_text(*c).c_str()));
    case coll::Status::truncated: return raise(c, fail(Err::truncate, "%s: message truncated", fn));
    case coll::Status::invalid: return raise(c, fail(Err::arg, "%s: invalid arguments", fn));
    default: return raise(c, fail(Err::intern, "%s: internal error", fn));
  }
}

const void* in_place_or(const void* buf) { return buf == MPI_IN_PLACE ? coll::in_place : buf; }
void* in_place_or(void* buf) { return buf == MPI_IN_PLACE ? coll::in_place : buf; }

Err reduction_for(MPI_Op op, MPI_Datatype type, int count, coll::Reduction* r) {
  const Datatype* t = nullptr;
  if (Err e = lib().types.lookup(type, &t); e != Err::ok) return e;
  return lib().ops.reduction(op, type, static_cast<std::size_t>(t->extent),
                             static_cast<std::size_t>(count), r);
}

}  // namespace

#define BEGIN(fn)                                                    \
  Call call;                                                         \
  if (Err e_ = begin(comm, fn, &call); e_ != Err::ok) return raise(call.comm, e_); \
  Comm* c = call.comm;                                               \
  CommP2P p2p(&lib().engine, c)
#define CHECK(expr)                                      \
  do {                                                   \
    if (Err e_ = (expr); e_ != Err::ok) return raise(c, e_); \
  } while (0)

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  BEGIN("MPI_Barrier");
  return finish(c, coll::barrier(call.view, p2p), "MPI_Barrier");
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  BEGIN("MPI_Bcast");
  std::size_t bytes;
  CHECK(bytes_of("buffer", buf, count, type, &bytes));
  CHECK(check_root(c, root));
  return finish(c, coll::bcast(call.view, p2p, buf, bytes, root), "MPI_Bcast");
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  BEGIN("MPI_Reduce");
  std::size_t bytes;
  CHECK(check_root(c, root));
  if (sendbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("sendbuf", sendbuf, count, type, &bytes));
  } else if (c->rank != root) {
    return raise(c, in_place_not_here("sendbuf", "MPI_Reduce"));
  }
  if (c->rank == root) {
    CHECK(bytes_of("recvbuf", recvbuf, count, type, &bytes));
    CHECK(check_distinct(sendbuf, recvbuf, bytes));
  }
  coll::Reduction r;
  CHECK(reduction_for(op, type, count, &r));
  return finish(c, coll::reduce(call.view, p2p, in_place_or(sendbuf), recvbuf, r, root), "MPI_Reduce");
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  BEGIN("MPI_Allreduce");
  std::size_t bytes;
  CHECK(bytes_of("recvbuf", recvbuf, count, type, &bytes));
  if (sendbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("sendbuf", sendbuf, count, type, &bytes));
    CHECK(check_distinct(sendbuf, recvbuf, bytes));
  }
  coll::Reduction r;
  CHECK(reduction_for(op, type, count, &r));
  return finish(c, coll::allreduce(call.view, p2p, in_place_or(sendbuf), recvbuf, r), "MPI_Allreduce");
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  BEGIN("MPI_Reduce_scatter");
  std::size_t extent = 0, bytes = 0;
  CHECK(bytes_of("recvbuf", recvbuf, 0, type, &bytes, &extent));
  std::vector<std::size_t> counts;
  CHECK(to_bytes(c, recvcounts, nullptr, 1, &counts, nullptr));  // element counts
  // The input is every block (recvbuf holds it when in place); the output is my block.
  const std::size_t in_bytes = total_of(counts) * extent;
  const std::size_t out_bytes = counts[static_cast<std::size_t>(c->rank)] * extent;
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (input == nullptr && in_bytes > 0) {
    return raise(c, fail(Err::buffer, "MPI_Reduce_scatter: %s is NULL but the counts add up to "
                         "%zu elements", sendbuf == MPI_IN_PLACE ? "recvbuf" : "sendbuf",
                         total_of(counts)));
  }
  if (recvbuf == nullptr && out_bytes > 0) {
    return raise(c, fail(Err::buffer, "MPI_Reduce_scatter: recvbuf is NULL but recvcounts[%d] "
                         "is %d", c->rank, recvcounts[c->rank]));
  }
  if (sendbuf != MPI_IN_PLACE) CHECK(check_distinct(sendbuf, recvbuf, in_bytes));
  coll::Reduction r;
  CHECK(reduction_for(op, type, 0, &r));
  return finish(c, coll::reduce_scatter(call.view, p2p, in_place_or(sendbuf), recvbuf, counts.data(), r),
                "MPI_Reduce_scatter");
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  BEGIN("MPI_Scan");
  std::size_t bytes;
  CHECK(bytes_of("recvbuf", recvbuf, count, type, &bytes));
  if (sendbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("sendbuf", sendbuf, count, type, &bytes));
    CHECK(check_distinct(sendbuf, recvbuf, bytes));
  }
  coll::Reduction r;
  CHECK(reduction_for(op, type, count, &r));
  return finish(c, coll::scan(call.view, p2p, in_place_or(sendbuf), recvbuf, r), "MPI_Scan");
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  BEGIN("MPI_Gather");
  CHECK(check_root(c, root));
  std::size_t sbytes = 0, rbytes = 0;
  if (sendbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &sbytes));
  } else if (c->rank != root) {
    return raise(c, in_place_not_here("sendbuf", "MPI_Gather"));
  }
  if (c->rank == root) {
    CHECK(bytes_of("recvbuf", recvbuf, recvcount, recvtype, &rbytes));
    if (sendbuf != MPI_IN_PLACE && rbytes != sbytes) {
      return raise(c, fail(Err::truncate, "MPI_Gather: send and receive sizes differ"));
    }
    CHECK(check_distinct(sendbuf, recvbuf, rbytes));
  } else {
    rbytes = sbytes;
  }
  return finish(c, coll::gather(call.view, p2p, in_place_or(sendbuf), rbytes, recvbuf, root), "MPI_Gather");
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  BEGIN("MPI_Gatherv");
  CHECK(check_root(c, root));
  std::size_t sbytes = 0, extent = 0, unused = 0;
  if (sendbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &sbytes));
  } else if (c->rank != root) {
    return raise(c, in_place_not_here("sendbuf", "MPI_Gatherv"));
  }
  std::vector<std::size_t> counts, disp;
  if (c->rank == root) {
    CHECK(bytes_of("recvbuf", recvbuf, 0, recvtype, &unused, &extent));
    CHECK(to_bytes(c, recvcounts, displs, extent, &counts, &disp));
    CHECK(check_v_buffer("recvbuf", recvbuf, counts));
    CHECK(check_distinct(sendbuf, recvbuf, total_of(counts)));
  }
  return finish(c, coll::gatherv(call.view, p2p, in_place_or(sendbuf), sbytes, recvbuf,
                                 counts.empty() ? nullptr : counts.data(),
                                 disp.empty() ? nullptr : disp.data(), root),
                "MPI_Gatherv");
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  BEGIN("MPI_Scatter");
  CHECK(check_root(c, root));
  std::size_t sbytes = 0, rbytes = 0;
  if (recvbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("recvbuf", recvbuf, recvcount, recvtype, &rbytes));
  } else if (c->rank != root) {
    return raise(c, in_place_not_here("recvbuf", "MPI_Scatter"));
  }
  if (c->rank == root) {
    CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &sbytes));
    if (recvbuf != MPI_IN_PLACE && rbytes != sbytes) {
      return raise(c, fail(Err::truncate, "MPI_Scatter: send and receive sizes differ"));
    }
    CHECK(check_distinct(sendbuf, recvbuf, sbytes));
  } else {
    sbytes = rbytes;
  }
  return finish(c, coll::scatter(call.view, p2p, sendbuf, sbytes, in_place_or(recvbuf), root), "MPI_Scatter");
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  BEGIN("MPI_Scatterv");
  CHECK(check_root(c, root));
  std::size_t rbytes = 0, extent = 0, unused = 0;
  if (recvbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("recvbuf", recvbuf, recvcount, recvtype, &rbytes));
  } else if (c->rank != root) {
    return raise(c, in_place_not_here("recvbuf", "MPI_Scatterv"));
  }
  std::vector<std::size_t> counts, disp;
  if (c->rank == root) {
    CHECK(bytes_of("sendbuf", sendbuf, 0, sendtype, &unused, &extent));
    CHECK(to_bytes(c, sendcounts, displs, extent, &counts, &disp));
    CHECK(check_v_buffer("sendbuf", sendbuf, counts));
    CHECK(check_distinct(sendbuf, recvbuf, rbytes));
  }
  return finish(c, coll::scatterv(call.view, p2p, sendbuf, counts.empty() ? nullptr : counts.data(),
                                  disp.empty() ? nullptr : disp.data(), in_place_or(recvbuf), rbytes, root),
                "MPI_Scatterv");
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN("MPI_Allgather");
  std::size_t sbytes = 0, rbytes = 0;
  CHECK(bytes_of("recvbuf", recvbuf, recvcount, recvtype, &rbytes));
  if (sendbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &sbytes));
    if (sbytes != rbytes) return raise(c, fail(Err::truncate, "MPI_Allgather: send and receive sizes differ"));
    CHECK(check_distinct(sendbuf, recvbuf, rbytes));
  }
  return finish(c, coll::allgather(call.view, p2p, in_place_or(sendbuf), rbytes, recvbuf), "MPI_Allgather");
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  BEGIN("MPI_Allgatherv");
  std::size_t sbytes = 0, extent = 0, unused = 0;
  if (sendbuf != MPI_IN_PLACE) CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &sbytes));
  CHECK(bytes_of("recvbuf", recvbuf, 0, recvtype, &unused, &extent));
  std::vector<std::size_t> counts, disp;
  CHECK(to_bytes(c, recvcounts, displs, extent, &counts, &disp));
  CHECK(check_v_buffer("recvbuf", recvbuf, counts));
  if (sendbuf != MPI_IN_PLACE) CHECK(check_distinct(sendbuf, recvbuf, sbytes));
  return finish(c, coll::allgatherv(call.view, p2p, in_place_or(sendbuf), recvbuf, counts.data(), disp.data()),
                "MPI_Allgatherv");
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN("MPI_Alltoall");
  std::size_t sbytes = 0, rbytes = 0;
  CHECK(bytes_of("recvbuf", recvbuf, recvcount, recvtype, &rbytes));
  if (sendbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &sbytes));
    if (sbytes != rbytes) return raise(c, fail(Err::truncate, "MPI_Alltoall: send and receive sizes differ"));
    CHECK(check_distinct(sendbuf, recvbuf, rbytes));
  }
  return finish(c, coll::alltoall(call.view, p2p, in_place_or(sendbuf), rbytes, recvbuf), "MPI_Alltoall");
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN("MPI_Alltoallv");
  std::size_t sextent = 0, rextent = 0, unused = 0;
  std::vector<std::size_t> sc, sd, rc, rd;
  CHECK(bytes_of("recvbuf", recvbuf, 0, recvtype, &unused, &rextent));
  CHECK(to_bytes(c, recvcounts, rdispls, rextent, &rc, &rd));
  CHECK(check_v_buffer("recvbuf", recvbuf, rc));
  if (sendbuf != MPI_IN_PLACE) {
    CHECK(bytes_of("sendbuf", sendbuf, 0, sendtype, &unused, &sextent));
    CHECK(to_bytes(c, sendcounts, sdispls, sextent, &sc, &sd));
    CHECK(check_v_buffer("sendbuf", sendbuf, sc));
    CHECK(check_distinct(sendbuf, recvbuf, total_of(sc)));
  }
  return finish(c, coll::alltoallv(call.view, p2p, in_place_or(sendbuf), sc.empty() ? nullptr : sc.data(),
                                   sd.empty() ? nullptr : sd.data(), recvbuf, rc.data(), rd.data()),
                "MPI_Alltoallv");
}

int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) {
  if (op == nullptr) return raise_world(fail(Err::arg, "op pointer is NULL"));
  return raise_world(lib().ops.create(fn, commute != 0, op));
}

int MPI_Op_free(MPI_Op* op) {
  if (op == nullptr) return raise_world(fail(Err::arg, "op pointer is NULL"));
  return raise_world(lib().ops.free(op));
}

}  // extern "C"
