// C API: the rooted collectives (MPI_Bcast, MPI_Reduce, MPI_Gather(v), MPI_Scatter(v));
// shared entry, checks and outcome in coll_call.h.
#include <ftmpi/coll/scratch.h>

#include "coll_call.h"
#include "intercomm_coll.h"

using namespace ftmpi;
using namespace ftmpi::collapi;

namespace {

// The root of MPI_Gather whose receive size differs from its send size (a mismatch MPI
// reports as MPI_ERR_TRUNCATE). The other members' blocks are on their way: receive them,
// sized like the root's own block, into scratch memory (a larger one is truncated by the
// transport, which consumes it), so that none is left to match a later gather; then refuse.
int gather_refused(Comm* c, const coll::View& view, CommP2P& p2p, const void* sendbuf, int sendcount,
                   const Datatype& st, int root) {
  Stage in;
  in.setup(sendbuf, static_cast<std::size_t>(sendcount), st, Form::packed(st));
  in.load_all();
  const std::size_t block = packed_size(st, static_cast<std::size_t>(sendcount));
  std::vector<std::uint8_t> scratch(block * static_cast<std::size_t>(c->size()));
  (void)coll::gather(view, p2p, in.data(), block, scratch.data(), root);
  return refuse(c, fail(Err::truncate, "MPI_Gather: the root's receive size (per member) differs "
                        "from its send size"));
}

}  // namespace

extern "C" {

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Bcast", inter_bcast(ic, buf, count, type, root));
  const Datatype* t = nullptr;
  std::size_t bytes = 0;
  CHECK(bytes_of("buffer", buf, count, type, &t, &bytes));
  CHECK(check_root(c, root));
  // ATOMIC and small: every member hears from every member, so the result (the root's data,
  // the same everywhere) may settle without an agreement (coll_outcome.h).
  const bool uniform = may_settle(c, call.view(), bytes);
  // The plain path first, written out: through the lambdas below it cost ~40 instructions more.
  if (!uniform && moves_in_place(t)) {
    return finish(c, coll::bcast(call.view(), p2p, buf, bytes, root), "MPI_Bcast");
  }
  auto bcast = uniform ? coll::bcast_from_everyone : coll::bcast;
  auto done = [&](coll::Status s, void* data) {
    return uniform ? finish_uniform(c, call.view(), s, UniformResult{data, bytes, true}, "MPI_Bcast")
                   : finish(c, s, "MPI_Bcast");
  };
  if (moves_in_place(t)) return done(bcast(call.view(), p2p, buf, bytes, root), buf);
  Stage data;
  data.setup(buf, static_cast<std::size_t>(count), *t, Form::packed(*t));
  if (c->rank == root) data.load_all();
  const int rc = done(bcast(call.view(), p2p, data.data(), bytes, root), data.data());
  // Also a result taken from a member that settled.
  if (rc == MPI_SUCCESS && c->rank != root) data.store_all();
  return rc;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Reduce", inter_reduce(ic, sendbuf, recvbuf, count, type, op, root));
  const Datatype* t = nullptr;
  std::size_t bytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_rooted(c, root, "MPI_Reduce", "sendbuf", sendbuf, count, type, &t, &bytes));
  const bool at_root = c->rank == root;
  if (at_root) {
    CHECK(bytes_of("recvbuf", recvbuf, count, type, &t, &bytes));
    CHECK(check_distinct(sendbuf, recvbuf, bytes));
  }
  coll::Reduction r;
  Form form;
  CHECK(reduction_for(op, type, count, *t, &r, &form));
  // ATOMIC and small: an allreduce, whose result is the same everywhere and holds every
  // member's contribution, so the outcome may settle without an agreement (coll_outcome.h);
  // members other than the root keep the result in scratch memory.
  const bool uniform = count > 0 && may_settle(c, call.view(), r.bytes());
  if (!uniform && form.direct) {  // the plain path, as in MPI_Bcast
    return finish(c, coll::reduce(call.view(), p2p, in_place_or(sendbuf), recvbuf, r, root),
                  "MPI_Reduce");
  }
  coll::Scratch elsewhere(uniform && !at_root ? r.bytes() : 0);
  auto reduce = [&](const void* in, void* out) {
    return uniform ? coll::allreduce(call.view(), p2p, in, at_root ? out : elsewhere.data(), r)
                   : coll::reduce(call.view(), p2p, in, out, r, root);
  };
  auto done = [&](coll::Status s, void* out) {
    return uniform ? finish_uniform(c, call.view(), s,
                                    UniformResult{at_root ? out : elsewhere.data(), r.bytes(), true},
                                    "MPI_Reduce")
                   : finish(c, s, "MPI_Reduce");
  };
  if (form.direct) return done(reduce(in_place_or(sendbuf), recvbuf), recvbuf);
  const auto n = static_cast<std::size_t>(count);
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, n, *t, form);
    in.load_all();
  }
  if (at_root) {
    out.setup(recvbuf, n, *t, form);
    if (in_place) out.load_all();
  }
  void* result = at_root ? out.data() : recvbuf;
  const int rc = done(reduce(in_place ? coll::in_place : in.data(), result), result);
  if (rc == MPI_SUCCESS && at_root) out.store_all();  // also a result taken from a settled member
  return rc;
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Gather", inter_gather(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t sbytes = 0, rbytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_rooted(c, root, "MPI_Gather", "sendbuf", sendbuf, sendcount, sendtype, &st, &sbytes));
  const bool at_root = c->rank == root;
  if (at_root) {
    CHECK(bytes_of("recvbuf", recvbuf, recvcount, recvtype, &rt, &rbytes));
    if (!in_place && rbytes != sbytes) return gather_refused(c, call.view(), p2p, sendbuf, sendcount, *st, root);
    CHECK(check_distinct(sendbuf, recvbuf, rbytes));
    if (!in_place) CHECK(check_not_own_block(sendbuf, recvbuf, MPI_Aint{root} * recvcount * rt->extent, rbytes));
  } else {
    rbytes = sbytes;
  }
  if (moves_in_place(st) && moves_in_place(rt)) {
    return finish(c, coll::gather(call.view(), p2p, in_place_or(sendbuf), rbytes, recvbuf, root),
                  "MPI_Gather");
  }
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount), *st, Form::packed(*st));
    in.load_all();
  }
  const auto per = static_cast<std::size_t>(at_root ? recvcount : 0);
  if (at_root) {
    out.setup(recvbuf, per * static_cast<std::size_t>(c->size()), *rt, Form::packed(*rt));
    if (in_place) load_slot(&out, root, per);  // the algorithm reads my block from my slot
  }
  const coll::Status s = coll::gather(call.view(), p2p, in_place ? coll::in_place : in.data(),
                                      rbytes, at_root ? out.data() : recvbuf, root);
  if (s == coll::Status::ok && at_root) store_slots(out, call.view(), per, in_place ? root : -1);
  return finish(c, s, "MPI_Gather");
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Gatherv",
                 inter_gatherv(ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t sbytes = 0, unused = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_rooted(c, root, "MPI_Gatherv", "sendbuf", sendbuf, sendcount, sendtype, &st, &sbytes));
  const bool at_root = c->rank == root;
  VBuffer out;
  if (at_root) {
    CHECK(bytes_of("recvbuf", recvbuf, 0, recvtype, &rt, &unused));
    CHECK(v_buffer(c, "recvbuf", recvbuf, recvcounts, displs, *rt, &out));
    CHECK(check_distinct(sendbuf, recvbuf, total_of(out.counts)));
    if (!in_place) CHECK(check_not_own_block(sendbuf, recvbuf, MPI_Aint{displs[root]} * rt->extent, sbytes));
    if (in_place) out.load_block(root);  // the algorithm reads my block from its place
  }
  Stage in;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount), *st, Form::packed(*st));
    in.load_all();
  }
  const coll::Status s = coll::gatherv(
      call.view(), p2p, in_place ? coll::in_place : in.data(), sbytes,
      at_root ? out.stage.data() : recvbuf, out.counts.empty() ? nullptr : out.counts.data(),
      out.displs.empty() ? nullptr : out.displs.data(), root);
  if (s == coll::Status::ok && at_root) out.store_members(call.view(), in_place ? root : -1);
  return finish(c, s, "MPI_Gatherv");
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Scatter", inter_scatter(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t sbytes = 0, rbytes = 0;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  CHECK(check_rooted(c, root, "MPI_Scatter", "recvbuf", recvbuf, recvcount, recvtype, &rt, &rbytes));
  const bool at_root = c->rank == root;
  if (at_root) {
    CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &st, &sbytes));
    if (!in_place && rbytes != sbytes) {
      return refuse(c, fail(Err::truncate, "MPI_Scatter: send and receive sizes differ"));
    }
    CHECK(check_distinct(sendbuf, recvbuf, sbytes));
    if (!in_place) CHECK(check_not_own_block(recvbuf, sendbuf, MPI_Aint{root} * sendcount * st->extent, sbytes));
  } else {
    sbytes = rbytes;
  }
  if (moves_in_place(st) && moves_in_place(rt)) {
    return finish(c, coll::scatter(call.view(), p2p, sendbuf, sbytes, in_place_or(recvbuf), root),
                  "MPI_Scatter");
  }
  Stage in, out;
  if (at_root) {  // in place, my slot stays in sendbuf: it is staged with the others, unread
    in.setup(sendbuf, static_cast<std::size_t>(sendcount) * static_cast<std::size_t>(c->size()),
             *st, Form::packed(*st));
    in.load_all();
  }
  if (!in_place) out.setup(recvbuf, static_cast<std::size_t>(recvcount), *rt, Form::packed(*rt));
  const coll::Status s = coll::scatter(call.view(), p2p, at_root ? in.data() : sendbuf, sbytes,
                                       in_place ? coll::in_place : out.data(), root);
  if (s == coll::Status::ok && !in_place) out.store_all();
  return finish(c, s, "MPI_Scatter");
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Scatterv",
                 inter_scatterv(ic, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t rbytes = 0, unused = 0;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  CHECK(check_rooted(c, root, "MPI_Scatterv", "recvbuf", recvbuf, recvcount, recvtype, &rt, &rbytes));
  const bool at_root = c->rank == root;
  VBuffer in;
  if (at_root) {
    CHECK(bytes_of("sendbuf", sendbuf, 0, sendtype, &st, &unused));
    CHECK(v_buffer(c, "sendbuf", sendbuf, sendcounts, displs, *st, &in));
    CHECK(check_distinct(sendbuf, recvbuf, rbytes));
    if (!in_place) CHECK(check_not_own_block(recvbuf, sendbuf, MPI_Aint{displs[root]} * st->extent, rbytes));
    in.load_all(c->size());
  }
  Stage out;
  if (!in_place) out.setup(recvbuf, static_cast<std::size_t>(recvcount), *rt, Form::packed(*rt));
  const coll::Status s = coll::scatterv(
      call.view(), p2p, at_root ? in.stage.data() : sendbuf,
      in.counts.empty() ? nullptr : in.counts.data(),
      in.displs.empty() ? nullptr : in.displs.data(),
      in_place ? coll::in_place : out.data(), rbytes, root);
  if (s == coll::Status::ok && !in_place) out.store_all();
  return finish(c, s, "MPI_Scatterv");
}

}  // extern "C"
