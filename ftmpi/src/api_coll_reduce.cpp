// C API: the reductions without a root (MPI_Allreduce, MPI_Reduce_scatter(_block), MPI_Scan,
// MPI_Exscan), the operations (MPI_Op_*) and MPI_Reduce_local; shared entry, checks and
// outcome in coll_call.h.
#include "coll_call.h"
#include "intercomm_coll.h"

using namespace ftmpi;
using namespace ftmpi::collapi;

namespace {

// A staged (not direct) reduction's buffers: my contribution packed into `in` (in place: it
// is recvbuf's, loaded into `out`), and `out` ready for the result.
void stage_reduction(const void* sendbuf, void* recvbuf, int count, const Datatype& t,
                     const Form& form, Stage* in, Stage* out) {
  const auto n = static_cast<std::size_t>(count);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) {
    in->setup(sendbuf, n, t, form);
    in->load_all();
  }
  out->setup(recvbuf, n, t, form);
  if (in_place) out->load_all();
}

// MPI_Scan and MPI_Exscan: one argument check, one staging path, one algorithm (coll::scan or
// coll::exscan) that differ only in whether my own element is in my prefix.
int prefix_call(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, bool exclusive) {
  const char* fn = exclusive ? "MPI_Exscan" : "MPI_Scan";
  BEGIN(fn);
  auto algorithm = exclusive ? coll::exscan : coll::scan;
  const Datatype* t = nullptr;
  std::size_t bytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_reduce_buffers(sendbuf, recvbuf, count, type, &t, &bytes));
  coll::Reduction r;
  Form form;
  CHECK(reduction_for(op, type, count, *t, &r, &form));
  if (form.direct) {
    return finish(c, algorithm(call.view(), p2p, in_place_or(sendbuf), recvbuf, r), fn);
  }
  Stage in, out;
  stage_reduction(sendbuf, recvbuf, count, *t, form, &in, &out);
  const coll::Status s =
      algorithm(call.view(), p2p, in_place ? coll::in_place : in.data(), out.data(), r);
  // An exclusive scan writes nothing at the first member: its recvbuf stays as it was.
  const bool first = !call.view().members.empty() && call.view().members.front() == c->rank;
  if (s == coll::Status::ok && !(exclusive && first)) out.store_all();
  return finish(c, s, fn);
}

}  // namespace

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Allreduce", inter_allreduce(ic, sendbuf, recvbuf, count, type, op));
  const Datatype* t = nullptr;
  std::size_t bytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_reduce_buffers(sendbuf, recvbuf, count, type, &t, &bytes));
  coll::Reduction r;
  Form form;
  CHECK(reduction_for(op, type, count, *t, &r, &form));
  // Every member's result holds every member's contribution (count > 0), and is the same
  // everywhere: the outcome may settle (coll_outcome.h).
  if (form.direct) {
    return finish_uniform(c, call.view(),
                          coll::allreduce(call.view(), p2p, in_place_or(sendbuf), recvbuf, r),
                          UniformResult{recvbuf, r.bytes(), count > 0}, "MPI_Allreduce");
  }
  Stage in, out;
  stage_reduction(sendbuf, recvbuf, count, *t, form, &in, &out);
  const coll::Status s =
      coll::allreduce(call.view(), p2p, in_place ? coll::in_place : in.data(), out.data(), r);
  const int rc = finish_uniform(c, call.view(), s, UniformResult{out.data(), r.bytes(), count > 0},
                                "MPI_Allreduce");
  if (rc == MPI_SUCCESS) out.store_all();  // also a result taken from a member that settled
  return rc;
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Reduce_scatter",
                 inter_reduce_scatter(ic, sendbuf, recvbuf, recvcounts, type, op));
  const Datatype* t = nullptr;
  std::size_t bytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(bytes_of("recvbuf", recvbuf, 0, type, &t, &bytes));
  std::vector<std::size_t> counts;
  CHECK(to_bytes(c, recvcounts, nullptr, 1, &counts, nullptr));  // element counts
  // The input is every block (recvbuf holds it when in place); the output is my block.
  const std::size_t total = total_of(counts);
  const std::size_t mine = counts[static_cast<std::size_t>(c->rank)];
  const std::size_t in_bytes = packed_size(*t, total);
  const std::size_t out_bytes = packed_size(*t, mine);
  const bool null_ok = !t->contiguous && !t->predefined;  // MPI_BOTTOM, as in bytes_of
  const void* input = in_place ? recvbuf : sendbuf;
  if (input == nullptr && in_bytes > 0 && !null_ok) {
    return refuse(c, fail(Err::buffer, "MPI_Reduce_scatter: %s is NULL but the counts add up to "
                         "%zu elements", in_place ? "recvbuf" : "sendbuf", total));
  }
  if (recvbuf == nullptr && out_bytes > 0 && !null_ok) {
    return refuse(c, fail(Err::buffer, "MPI_Reduce_scatter: recvbuf is NULL but recvcounts[%d] "
                         "is %d", c->rank, recvcounts[c->rank]));
  }
  if (!in_place) CHECK(check_distinct(sendbuf, recvbuf, in_bytes));
  coll::Reduction r;
  Form form;
  CHECK(reduction_for(op, type, 0, *t, &r, &form));
  if (form.per != 1) {
    for (std::size_t& n : counts) n *= form.per;  // the algorithm counts the form's units
  }
  if (form.direct) {
    return finish(c, coll::reduce_scatter(call.view(), p2p, in_place_or(sendbuf), recvbuf,
                                          counts.data(), r),
                  "MPI_Reduce_scatter");
  }
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, total, *t, form);
    in.load_all();
    out.setup(recvbuf, mine, *t, form);
  } else {
    out.setup(recvbuf, total, *t, form);
    out.load_all();
  }
  const coll::Status s = coll::reduce_scatter(
      call.view(), p2p, in_place ? coll::in_place : in.data(), out.data(), counts.data(), r);
  if (s == coll::Status::ok) out.store(0, mine, 0);  // in place too: my block at the start
  return finish(c, s, "MPI_Reduce_scatter");
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  return prefix_call(sendbuf, recvbuf, count, type, op, comm, false);
}

// MPI-2: the prefix without my own element; rank 0's recvbuf is left as it is.
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  return prefix_call(sendbuf, recvbuf, count, type, op, comm, true);
}

// MPI-2: MPI_Reduce_scatter with every block recvcount elements long (same algorithm, same
// behaviour under failure).
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Reduce_scatter_block",
                 inter_reduce_scatter_block(ic, sendbuf, recvbuf, recvcount, type, op));
  if (recvcount < 0) return refuse(c, fail(Err::count, "MPI_Reduce_scatter_block: recvcount %d is negative", recvcount));
  const std::vector<int> counts(static_cast<std::size_t>(c->size()), recvcount);
  return MPI_Reduce_scatter(sendbuf, recvbuf, counts.data(), type, op, comm);
}

int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) {
  if (op == nullptr) return raise_world(fail(Err::arg, "op pointer is NULL"));
  return raise_world(lib().ops.create(fn, commute != 0, op));
}

int MPI_Op_free(MPI_Op* op) {
  if (op == nullptr) return raise_world(fail(Err::arg, "op pointer is NULL"));
  return raise_world(lib().ops.free(op));
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  if (commute == nullptr) return raise_world(fail(Err::arg, "commute pointer is NULL"));
  bool yes = false;
  if (Err e = lib().ops.commutative(op, &yes); e != Err::ok) return raise_world(e);
  *commute = yes ? 1 : 0;
  return MPI_SUCCESS;
}

// MPI-2.2 5.9.7: inoutbuf = inbuf op inoutbuf, on this process only; the same reduction (and
// staging for derived types) the collectives use.
int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype type, MPI_Op op) {
  if (Err e = check_initialized("MPI_Reduce_local"); e != Err::ok) return raise_world(e);
  // Neither buffer may be MPI_IN_PLACE (there is no other buffer for it to stand for), and
  // they may not be one buffer (MPI-3.1 5.9.7; MPICH's errors/coll/reduce_local).
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) {
    return raise_world(fail(Err::buffer, "MPI_Reduce_local: %s is MPI_IN_PLACE",
                            inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf"));
  }
  const Datatype* t = nullptr;
  std::size_t bytes = 0;
  if (Err e = bytes_of("inbuf", inbuf, count, type, &t, &bytes); e != Err::ok) return raise_world(e);
  if (Err e = bytes_of("inoutbuf", inoutbuf, count, type, &t, &bytes); e != Err::ok) {
    return raise_world(e);
  }
  if (Err e = check_distinct(inbuf, inoutbuf, bytes); e != Err::ok) return raise_world(e);
  coll::Reduction r;
  Form form;
  if (Err e = reduction_for(op, type, count, *t, &r, &form); e != Err::ok) return raise_world(e);
  if (count == 0) return MPI_SUCCESS;
  const auto n = static_cast<std::size_t>(count);
  Stage in, out;
  in.setup(inbuf, n, *t, form);
  in.load_all();
  out.setup(inoutbuf, n, *t, form);
  out.load_all();
  r.combine(in.data(), out.data(), r.count);
  out.store_all();
  return MPI_SUCCESS;
}

}  // extern "C"
