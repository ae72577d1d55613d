// C API: collectives. Arguments are checked here, converted to bytes, and handed to the
// algorithms in collectives/ through CommP2P; the Status they return maps to an error class.
// A buffer whose datatype is not contiguous goes through a staging buffer (coll_stage.h):
// packed before the algorithm, unpacked after it succeeded; contiguous types move in place.
#include <ftmpi/coll/collectives.h>
#include <ftmpi/coll/scratch.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "coll_outcome.h"
#include "coll_p2p.h"
#include "coll_stage.h"
#include "intercomm_coll.h"
#include "library.h"

using namespace ftmpi;

namespace {

// The participants of the current call. One per thread, reused: a collective call then costs
// no allocation for its view once the first call grew the vector.
// A nonblocking collective (nbc.h) has its own: several may be under way on one thread.
// Below MPI_THREAD_MULTIPLE only one thread is ever inside the library, so one view serves
// (a thread-local costs a __tls_get_addr call per use in a shared library).
// (At namespace scope: a function-local static is guarded, a check on every call.)
coll::View only_view;
coll::View& this_threads_view() {
  if (coll::View* own = Nbc::view(); own != nullptr) return *own;
  if (!LibraryLock::enabled()) return only_view;
  static thread_local coll::View view;
  return view;
}

struct Call {
  Comm* comm = nullptr;
  coll::View& view = this_threads_view();
};

// FTMPI_COLL_MODE_ATOMIC (SPEC 4.4): in a fault-tolerant mode every survivor leaves a
// collective with the same outcome (coll_outcome.h). Every call that got as far as the
// communicator (success, failure seen during the algorithm, or refused because of a failure)
// takes part in the outcome step.
bool atomic(const Comm* c) { return atomic_mode(c); }

// The communicator of a collective call, looked up once: the intercommunicator dispatch and
// the intracommunicator path share the lookup (it was done twice, ~30 instructions a call).
[[gnu::always_inline]] inline Err find_comm(MPI_Comm comm, const char* fn, Call* call) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  return lib().comms.lookup(comm, &call->comm);
}

// An intracommunicator's collective past its lookup: refused if a failure is pending here
// (ATOMIC: after voting so), else the participants' view.
Err enter(Call* call) {
  if (call->comm->state != FTMPI_COMM_OK) {
    if (Err e = lib().ft.check(call->comm, FaultHandler::kWholeComm); e != Err::ok) {
      if (atomic(call->comm)) (void)agree_outcome(call->comm, false);
      return e;
    }
  }
  CommP2P::view_of(*call->comm, &call->view);
  return Err::ok;
}

Err begin(MPI_Comm comm, const char* fn, Call* call) {
  if (Err e = find_comm(comm, fn, call); e != Err::ok) return e;
  if (call->comm->inter) {
    return fail(Err::comm, "%s: %s is an intercommunicator; MPI defines no scan on "
                "intercommunicators", fn, call->comm->name.c_str());
  }
  return enter(call);
}

// One buffer argument (`what` names it): count, datatype, and a buffer that can hold the data.
// Callers skip a buffer that is legitimately MPI_IN_PLACE; anywhere else it is an error.
// *bytes is the packed size (count * type size), what the data-movement algorithms move.
Err buffer_bytes(const char* what, const void* buf, int count, const Datatype& t,
                 std::size_t* bytes) {
  *bytes = packed_size(t, static_cast<std::size_t>(count));
  if (buf == MPI_IN_PLACE) return fail(Err::buffer, "%s may not be MPI_IN_PLACE here", what);
  // NULL is MPI_BOTTOM for a staged derived type (absolute addresses); a type moved in place
  // has its data at the buffer's start.
  if (buf == nullptr && *bytes > 0 && (t.contiguous || t.predefined)) {
    return fail(Err::buffer, "%s is NULL but %d elements are to be transferred", what, count);
  }
  return Err::ok;
}

Err bytes_of(const char* what, const void* buf, int count, MPI_Datatype type,
             const Datatype** t, std::size_t* bytes) {
  if (count < 0) return fail(Err::count, "%s: count %d is negative", what, count);
  if (Err e = lib().types.lookup(type, t); e != Err::ok) return e;
  return buffer_bytes(what, buf, count, **t, bytes);
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

// A v-variant's buffer, once its byte counts are known: it must exist if anything moves
// (NULL is MPI_BOTTOM for a staged derived type, as in bytes_of).
Err check_v_buffer(const char* what, const void* buf, const Datatype& t,
                   const std::vector<std::size_t>& bytes) {
  if (buf != nullptr || (!t.contiguous && !t.predefined)) return Err::ok;
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

// Callers pass its error to refuse() (CHECK), which casts the ATOMIC vote.
Err check_root(Comm* c, int root) {
  if (root < 0 || root >= c->size()) {
    return fail(Err::root, "root %d outside 0..%d of %s", root, c->size() - 1, c->name.c_str());
  }
  if (c->is_failed(root)) {
    return fail(Err::root, "root %d of %s has failed", root, c->name.c_str());
  }
  return Err::ok;
}

// The rooted collectives' first checks, in one place: `root` names a live member, and the
// buffer every member passes (`what`: sendbuf of a gather or reduce, recvbuf of a scatter) is
// valid, or MPI_IN_PLACE at the root only.
Err check_rooted(Comm* c, int root, const char* fn, const char* what, const void* buf, int count,
                 MPI_Datatype type, const Datatype** t, std::size_t* bytes) {
  if (Err e = check_root(c, root); e != Err::ok) return e;
  if (buf != MPI_IN_PLACE) return bytes_of(what, buf, count, type, t, bytes);
  return c->rank == root ? Err::ok : in_place_not_here(what, fn);
}

// MPI_Allreduce's, MPI_Scan's and MPI_Exscan's buffers: `count` elements each and not aliased
// (sendbuf may be MPI_IN_PLACE).
Err check_reduce_buffers(const void* sendbuf, const void* recvbuf, int count, MPI_Datatype type,
                         const Datatype** t, std::size_t* bytes) {
  if (Err e = bytes_of("recvbuf", recvbuf, count, type, t, bytes); e != Err::ok) return e;
  if (sendbuf == MPI_IN_PLACE) return Err::ok;
  if (Err e = buffer_bytes("sendbuf", sendbuf, count, **t, bytes); e != Err::ok) return e;
  return check_distinct(sendbuf, recvbuf, *bytes);
}

// MPI_Allgather's and MPI_Alltoall's checks: both buffers valid, not aliased, and their blocks
// the same size in bytes (sendbuf may be MPI_IN_PLACE). Sets *st only when sendbuf is given.
Err check_equal_blocks(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       const Datatype** st, const void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, const Datatype** rt, std::size_t* rbytes) {
  if (Err e = bytes_of("recvbuf", recvbuf, recvcount, recvtype, rt, rbytes); e != Err::ok) return e;
  if (sendbuf == MPI_IN_PLACE) return Err::ok;
  std::size_t sbytes = 0;
  if (Err e = bytes_of("sendbuf", sendbuf, sendcount, sendtype, st, &sbytes); e != Err::ok) return e;
  if (sbytes != *rbytes) return fail(Err::truncate, "%s: send and receive sizes differ", fn);
  return check_distinct(sendbuf, recvbuf, *rbytes);
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

// The MPI return of a collective whose algorithm ended with `s` and whose outcome (ATOMIC:
// agreed; otherwise s itself) is `ok`.
int report(Comm* c, coll::Status s, bool ok, const char* fn) {
  if (ok) return MPI_SUCCESS;
  if (s == coll::Status::ok) {
    return raise(c, fail_report(Err::other, "%s on %s: a participant failed or the collective failed "
                         "elsewhere (atomic mode: every survivor gets this error)%s%s", fn,
                         c->name.c_str(), c->failed.empty() ? "" : "; failed rank(s) ",
                         failed_ranks_text(*c).c_str()));
  }
  switch (s) {
    case coll::Status::proc_failed:
      return raise(c, fail_report(failure_err(*c), "%s on %s: a participant failed (rank(s) %s)", fn,
                           c->name.c_str(), failed_ranks_text(*c).c_str()));
    case coll::Status::truncated: return raise(c, fail(Err::truncate, "%s: message truncated", fn));
    case coll::Status::invalid: return raise(c, fail(Err::arg, "%s: invalid arguments", fn));
    default: return raise(c, fail(Err::intern, "%s: internal error", fn));
  }
}

int finish(Comm* c, coll::Status s, const char* fn) {
  const bool here = s == coll::Status::ok;
  return report(c, s, atomic(c) ? agree_outcome(c, here) : here, fn);
}

// A collective in which every member that succeeds ends with the same bytes (`r`): in ATOMIC
// mode it may settle without messages (coll_outcome.h), and a member whose algorithm failed
// may still succeed with the result of one that settled.
int finish_uniform(Comm* c, const coll::View& v, coll::Status s, const UniformResult& r,
                   const char* fn) {
  const bool here = s == coll::Status::ok;
  return report(c, s, atomic(c) ? settle_outcome(c, v, here, r) : here, fn);
}

// A collective that reached the communicator but is refused here for a local reason (an
// argument only this member got wrong, a receive buffer too small at the root: MPI_ERR_TRUNCATE
// from MPI_Gather). In ATOMIC mode the other members go on into the outcome agreement and would
// wait for this member's vote forever: it votes "failed" first, so every member returns an error.
int refuse(Comm* c, Err e) {
  if (atomic(c)) (void)agree_outcome(c, false);
  return raise(c, e);
}

// The root of MPI_Gather whose receive size differs from its send size (a mismatch MPI
// reports as MPI_ERR_TRUNCATE). The other members' blocks are on their way: receive them,
// sized like the root's own block, into scratch memory (a larger one is truncated by the
// transport, which consumes it), so that none is left to match a later gather; then refuse.
int gather_refused(Comm* c, coll::View& view, CommP2P& p2p, const void* sendbuf, int sendcount,
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

const void* in_place_or(const void* buf) { return buf == MPI_IN_PLACE ? coll::in_place : buf; }
void* in_place_or(void* buf) { return buf == MPI_IN_PLACE ? coll::in_place : buf; }

// Whether a buffer of this type (nullptr: no buffer here) goes to the algorithm as it is. When
// every buffer of a call does, the call takes the plain path: no Stage, no copy.
bool moves_in_place(const Datatype* t) { return t == nullptr || Form::packed(*t).direct; }

// The reduction of `count` elements of `type` (`t`, looked up by the caller's buffer checks)
// and the form its buffers take (coll_stage.h).
Err reduction_for(MPI_Op op, MPI_Datatype type, int count, const Datatype& t,
                  coll::Reduction* r, Form* form) {
  if (t.predefined) {  // the path of every reduction on a basic type, kept short
    *form = Form{};  // direct: the algorithm works in the user's buffers
    return lib().ops.reduction(op, type, static_cast<std::size_t>(t.extent),
                               static_cast<std::size_t>(count), r);
  }
  return plan_reduction(op, type, t, static_cast<std::size_t>(count), r, form);
}

// ---- Staging of slot and v-variant buffers (coll_stage.h) ---------------------------------

// Slot layouts (gather, allgather, scatter, alltoall): slot i is elements [i*per, (i+1)*per).
void load_slot(Stage* s, int i, std::size_t per) {
  const std::size_t first = static_cast<std::size_t>(i) * per;
  s->load(first, per, first * s->elem_bytes());
}

// The slots an algorithm wrote: every member's (a BLANK gap's slot is never written) except
// `skip` (an in-place process's own, already in place).
void store_slots(const Stage& s, const coll::View& v, std::size_t per, int skip) {
  if (s.direct()) return;
  if (skip < 0 && static_cast<int>(v.members.size()) == v.comm_size) return s.store_all();
  for (int r : v.members) {
    if (r == skip) continue;
    const std::size_t first = static_cast<std::size_t>(r) * per;
    s.store(first, per, first * s.elem_bytes());
  }
}

// A v-variant buffer: block r is counts[r] elements at element displs[r] of the user's buffer.
// Direct, the algorithm gets byte counts and displacements into that buffer. Staged, the
// blocks lie back to back in rank order, so the staging buffer holds the sum of the counts
// however the displacements spread the blocks out.
struct VBuffer {
  Stage stage;
  std::vector<std::size_t> counts, displs;  // bytes, what the algorithm gets
  const int* elem_counts = nullptr;
  const int* elem_displs = nullptr;

  void load_block(int r) {
    const auto i = static_cast<std::size_t>(r);
    stage.load(static_cast<std::size_t>(elem_displs[i]), static_cast<std::size_t>(elem_counts[i]),
               displs[i]);
  }
  void store_block(int r) const {
    const auto i = static_cast<std::size_t>(r);
    stage.store(static_cast<std::size_t>(elem_displs[i]), static_cast<std::size_t>(elem_counts[i]),
                displs[i]);
  }
  void load_all(int n) {
    if (stage.direct()) return;
    for (int r = 0; r < n; ++r) load_block(r);
  }
  // The members' blocks except `skip` (see store_slots).
  void store_members(const coll::View& v, int skip) const {
    if (stage.direct()) return;
    for (int r : v.members) {
      if (r != skip) store_block(r);
    }
  }
};

// MPI_Alltoallw's buffer: one (count, byte displacement, type) block per rank, packed back to
// back in `packed` (block r at at[r], bytes[r] long).
struct WBlocks {
  std::vector<const Datatype*> types;
  std::vector<std::size_t> bytes, at;
  const int* counts = nullptr;
  const int* displs = nullptr;
  std::size_t total = 0;
  std::vector<std::uint8_t> packed;

  Err setup(const Comm* c, const char* what, const void* buf, const int* cs, const int* ds,
            const MPI_Datatype* ts) {
    if (cs == nullptr || ds == nullptr || ts == nullptr) {
      return fail(Err::arg, "%scounts, %s displacements or %stypes is NULL", what, what, what);
    }
    const auto n = static_cast<std::size_t>(c->size());
    types.resize(n);
    bytes.resize(n);
    at.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
      if (cs[r] < 0) return fail(Err::count, "%scounts[%zu] = %d is negative", what, r, cs[r]);
      if (ds[r] < 0) return fail(Err::arg, "%s displacement %d for rank %zu is negative", what, ds[r], r);
      if (Err e = lib().types.lookup(ts[r], &types[r]); e != Err::ok) return e;
      bytes[r] = packed_size(*types[r], static_cast<std::size_t>(cs[r]));
      if (buf == nullptr && bytes[r] > 0 && (types[r]->contiguous || types[r]->predefined)) {
        return fail(Err::buffer, "%sbuf is NULL but %zu bytes are to be transferred for rank %zu",
                    what, bytes[r], r);
      }
      at[r] = total;
      total += bytes[r];
    }
    counts = cs;
    displs = ds;
    packed.resize(total);
    return Err::ok;
  }
  // Integer arithmetic: buf may be MPI_BOTTOM (NULL) with types of absolute addresses.
  char* block(const void* buf, std::size_t r) const {
    return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(buf) +
                                   static_cast<std::uintptr_t>(displs[r]));
  }
  void pack_all(const void* buf) {
    for (std::size_t r = 0; r < types.size(); ++r) {
      if (bytes[r] > 0) {
        pack(block(buf, r), static_cast<std::size_t>(counts[r]), *types[r], packed.data() + at[r]);
      }
    }
  }
  void unpack_members(const coll::View& v, void* buf) const {
    for (int m : v.members) {
      const auto r = static_cast<std::size_t>(m);
      if (bytes[r] == 0) continue;
      unpack(packed.data() + at[r], bytes[r], block(buf, r),
             static_cast<std::size_t>(counts[r]), *types[r]);
    }
  }
};

Err v_buffer(const Comm* c, const char* what, const void* buf, const int* counts,
             const int* displs, const Datatype& t, VBuffer* out) {
  const Form f = Form::packed(t);
  const std::size_t unit = f.direct ? static_cast<std::size_t>(t.extent) : t.size;
  if (Err e = to_bytes(c, counts, displs, unit, &out->counts, &out->displs); e != Err::ok) {
    return e;
  }
  if (Err e = check_v_buffer(what, buf, t, out->counts); e != Err::ok) return e;
  out->elem_counts = counts;
  out->elem_displs = displs;
  std::size_t elements = 0;
  if (!f.direct) {
    std::size_t at = 0;
    for (std::size_t r = 0; r < out->counts.size(); ++r) {
      out->displs[r] = at;
      at += out->counts[r];
      elements += static_cast<std::size_t>(counts[r]);
    }
  }
  out->stage.setup(buf, elements, t, f);
  return Err::ok;
}

}  // namespace

#define BEGIN(fn)                                                    \
  Call call;                                                         \
  if (Err e_ = begin(comm, fn, &call); e_ != Err::ok) return raise(call.comm, e_); \
  Comm* c = call.comm;                                               \
  CommP2P p2p(&lib().engine, c)
// A collective that intercommunicators have as well: after the one lookup, an
// intercommunicator (`ic`) returns the given call (intercomm_coll.h).
#define BEGIN_OR_INTER(fn, ...)                                                   \
  Call call;                                                                      \
  if (Err e_ = find_comm(comm, fn, &call); e_ != Err::ok) return raise(call.comm, e_); \
  if (Comm* ic = call.comm; ic->inter) return __VA_ARGS__;                        \
  if (Err e_ = enter(&call); e_ != Err::ok) return raise(call.comm, e_);          \
  Comm* c = call.comm;                                                            \
  CommP2P p2p(&lib().engine, c)
#define CHECK(expr)                                       \
  do {                                                    \
    if (Err e_ = (expr); e_ != Err::ok) return refuse(c, e_); \
  } while (0)

namespace {

// MPI_Scan and MPI_Exscan: one argument check, one staging path, one algorithm (coll::scan or
// coll::exscan) that differ only in whether my own element is in my prefix.
int prefix_call(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, bool exclusive) {
  const char* fn = exclusive ? "MPI_Exscan" : "MPI_Scan";
  BEGIN(fn);
  auto algorithm = exclusive ? coll::exscan : coll::scan;
  const Datatype* t = nullptr;
  std::size_t bytes;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_reduce_buffers(sendbuf, recvbuf, count, type, &t, &bytes));
  coll::Reduction r;
  Form form;
  CHECK(reduction_for(op, type, count, *t, &r, &form));
  if (form.direct) {
    return finish(c, algorithm(call.view, p2p, in_place_or(sendbuf), recvbuf, r), fn);
  }
  const auto n = static_cast<std::size_t>(count);
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, n, *t, form);
    in.load_all();
  }
  out.setup(recvbuf, n, *t, form);
  if (in_place) out.load_all();
  const coll::Status s =
      algorithm(call.view, p2p, in_place ? coll::in_place : in.data(), out.data(), r);
  // An exclusive scan writes nothing at the first member: its recvbuf stays as it was.
  const bool first = !call.view.members.empty() && call.view.members.front() == c->rank;
  if (s == coll::Status::ok && !(exclusive && first)) out.store_all();
  return finish(c, s, fn);
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Barrier", inter_barrier(ic));
  // Leaving a barrier cleanly means every member's message chain reached here.
  return finish_uniform(c, call.view, coll::barrier(call.view, p2p),
                        UniformResult{nullptr, 0, true}, "MPI_Barrier");
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Bcast", inter_bcast(ic, buf, count, type, root));
  const Datatype* t = nullptr;
  std::size_t bytes;
  CHECK(bytes_of("buffer", buf, count, type, &t, &bytes));
  CHECK(check_root(c, root));
  // ATOMIC and small: every member hears from every member, so the result (the root's data,
  // the same everywhere) may settle without an agreement (coll_outcome.h).
  const bool uniform = may_settle(c, call.view, bytes);
  auto bcast = uniform ? coll::bcast_from_everyone : coll::bcast;
  auto done = [&](coll::Status s, void* data) {
    return uniform ? finish_uniform(c, call.view, s, UniformResult{data, bytes, true}, "MPI_Bcast")
                   : finish(c, s, "MPI_Bcast");
  };
  if (moves_in_place(t)) return done(bcast(call.view, p2p, buf, bytes, root), buf);
  Stage data;
  data.setup(buf, static_cast<std::size_t>(count), *t, Form::packed(*t));
  if (c->rank == root) data.load_all();
  const int rc = done(bcast(call.view, p2p, data.data(), bytes, root), data.data());
  // Also a result taken from a member that settled.
  if (rc == MPI_SUCCESS && c->rank != root) data.store_all();
  return rc;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Reduce", inter_reduce(ic, sendbuf, recvbuf, count, type, op, root));
  const Datatype* t = nullptr;
  std::size_t bytes;
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
  const bool uniform = count > 0 && may_settle(c, call.view, r.bytes());
  coll::Scratch elsewhere(uniform && !at_root ? r.bytes() : 0);
  auto reduce = [&](const void* in, void* out) {
    return uniform ? coll::allreduce(call.view, p2p, in, at_root ? out : elsewhere.data(), r)
                   : coll::reduce(call.view, p2p, in, out, r, root);
  };
  auto done = [&](coll::Status s, void* out) {
    return uniform ? finish_uniform(c, call.view, s,
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

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Allreduce", inter_allreduce(ic, sendbuf, recvbuf, count, type, op));
  const Datatype* t = nullptr;
  std::size_t bytes;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_reduce_buffers(sendbuf, recvbuf, count, type, &t, &bytes));
  coll::Reduction r;
  Form form;
  CHECK(reduction_for(op, type, count, *t, &r, &form));
  // Every member's result holds every member's contribution (count > 0), and is the same
  // everywhere: the outcome may settle (coll_outcome.h).
  if (form.direct) {
    return finish_uniform(c, call.view,
                          coll::allreduce(call.view, p2p, in_place_or(sendbuf), recvbuf, r),
                          UniformResult{recvbuf, r.bytes(), count > 0}, "MPI_Allreduce");
  }
  const auto n = static_cast<std::size_t>(count);
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, n, *t, form);
    in.load_all();
  }
  out.setup(recvbuf, n, *t, form);
  if (in_place) out.load_all();
  const coll::Status s =
      coll::allreduce(call.view, p2p, in_place ? coll::in_place : in.data(), out.data(), r);
  const int rc = finish_uniform(c, call.view, s, UniformResult{out.data(), r.bytes(), count > 0},
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
    return finish(c, coll::reduce_scatter(call.view, p2p, in_place_or(sendbuf), recvbuf,
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
      call.view, p2p, in_place ? coll::in_place : in.data(), out.data(), counts.data(), r);
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
    if (!in_place && rbytes != sbytes) return gather_refused(c, call.view, p2p, sendbuf, sendcount, *st, root);
    CHECK(check_distinct(sendbuf, recvbuf, rbytes));
  } else {
    rbytes = sbytes;
  }
  if (moves_in_place(st) && moves_in_place(rt)) {
    return finish(c, coll::gather(call.view, p2p, in_place_or(sendbuf), rbytes, recvbuf, root),
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
  const coll::Status s = coll::gather(call.view, p2p, in_place ? coll::in_place : in.data(),
                                      rbytes, at_root ? out.data() : recvbuf, root);
  if (s == coll::Status::ok && at_root) store_slots(out, call.view, per, in_place ? root : -1);
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
    if (in_place) out.load_block(root);  // the algorithm reads my block from its place
  }
  Stage in;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount), *st, Form::packed(*st));
    in.load_all();
  }
  const coll::Status s = coll::gatherv(
      call.view, p2p, in_place ? coll::in_place : in.data(), sbytes,
      at_root ? out.stage.data() : recvbuf, out.counts.empty() ? nullptr : out.counts.data(),
      out.displs.empty() ? nullptr : out.displs.data(), root);
  if (s == coll::Status::ok && at_root) out.store_members(call.view, in_place ? root : -1);
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
  } else {
    sbytes = rbytes;
  }
  if (moves_in_place(st) && moves_in_place(rt)) {
    return finish(c, coll::scatter(call.view, p2p, sendbuf, sbytes, in_place_or(recvbuf), root),
                  "MPI_Scatter");
  }
  Stage in, out;
  if (at_root) {  // in place, my slot stays in sendbuf: it is staged with the others, unread
    in.setup(sendbuf, static_cast<std::size_t>(sendcount) * static_cast<std::size_t>(c->size()),
             *st, Form::packed(*st));
    in.load_all();
  }
  if (!in_place) out.setup(recvbuf, static_cast<std::size_t>(recvcount), *rt, Form::packed(*rt));
  const coll::Status s = coll::scatter(call.view, p2p, at_root ? in.data() : sendbuf, sbytes,
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
    in.load_all(c->size());
  }
  Stage out;
  if (!in_place) out.setup(recvbuf, static_cast<std::size_t>(recvcount), *rt, Form::packed(*rt));
  const coll::Status s = coll::scatterv(
      call.view, p2p, at_root ? in.stage.data() : sendbuf,
      in.counts.empty() ? nullptr : in.counts.data(),
      in.displs.empty() ? nullptr : in.displs.data(),
      in_place ? coll::in_place : out.data(), rbytes, root);
  if (s == coll::Status::ok && !in_place) out.store_all();
  return finish(c, s, "MPI_Scatterv");
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Allgather", inter_allgather(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t rbytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_equal_blocks("MPI_Allgather", sendbuf, sendcount, sendtype, &st, recvbuf, recvcount, recvtype, &rt, &rbytes));
  // Every member ends with every member's block (rbytes > 0): the outcome may settle. With
  // BLANK gaps the gap slots are not the algorithm's, so such a view does not settle.
  const bool from_everyone =
      rbytes > 0 && static_cast<int>(call.view.members.size()) == c->size();
  const std::size_t total = rbytes * static_cast<std::size_t>(c->size());
  if (moves_in_place(st) && moves_in_place(rt)) {
    return finish_uniform(c, call.view,
                          coll::allgather(call.view, p2p, in_place_or(sendbuf), rbytes, recvbuf),
                          UniformResult{recvbuf, total, from_everyone}, "MPI_Allgather");
  }
  const auto per = static_cast<std::size_t>(recvcount);
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount), *st, Form::packed(*st));
    in.load_all();
  }
  out.setup(recvbuf, per * static_cast<std::size_t>(c->size()), *rt, Form::packed(*rt));
  if (in_place) load_slot(&out, c->rank, per);  // my block, read from my slot
  const coll::Status s =
      coll::allgather(call.view, p2p, in_place ? coll::in_place : in.data(), rbytes, out.data());
  const int rc = finish_uniform(c, call.view, s, UniformResult{out.data(), total, from_everyone},
                                "MPI_Allgather");
  // A result taken from a member that settled holds my own slot too: store it all.
  if (rc == MPI_SUCCESS) store_slots(out, call.view, per, s == coll::Status::ok && in_place ? c->rank : -1);
  return rc;
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Allgatherv",
                 inter_allgatherv(ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t sbytes = 0, unused = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &st, &sbytes));
  CHECK(bytes_of("recvbuf", recvbuf, 0, recvtype, &rt, &unused));
  VBuffer out;
  CHECK(v_buffer(c, "recvbuf", recvbuf, recvcounts, displs, *rt, &out));
  if (!in_place) CHECK(check_distinct(sendbuf, recvbuf, sbytes));
  Stage in;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount), *st, Form::packed(*st));
    in.load_all();
  } else {
    out.load_block(c->rank);  // my block, read from its place
  }
  const coll::Status s = coll::allgatherv(call.view, p2p, in_place ? coll::in_place : in.data(),
                                          out.stage.data(), out.counts.data(), out.displs.data());
  if (s == coll::Status::ok) out.store_members(call.view, in_place ? c->rank : -1);
  return finish(c, s, "MPI_Allgatherv");
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Alltoall", inter_alltoall(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t rbytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_equal_blocks("MPI_Alltoall", sendbuf, sendcount, sendtype, &st, recvbuf, recvcount, recvtype, &rt, &rbytes));
  if (moves_in_place(st) && moves_in_place(rt)) {
    return finish(c, coll::alltoall(call.view, p2p, in_place_or(sendbuf), rbytes, recvbuf),
                  "MPI_Alltoall");
  }
  const auto slots = static_cast<std::size_t>(c->size());
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount) * slots, *st, Form::packed(*st));
    in.load_all();
  }
  out.setup(recvbuf, static_cast<std::size_t>(recvcount) * slots, *rt, Form::packed(*rt));
  if (in_place) out.load_all();  // sent from and replaced in recvbuf
  const coll::Status s =
      coll::alltoall(call.view, p2p, in_place ? coll::in_place : in.data(), rbytes, out.data());
  if (s == coll::Status::ok) store_slots(out, call.view, static_cast<std::size_t>(recvcount), -1);
  return finish(c, s, "MPI_Alltoall");
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Alltoallv",
                 inter_alltoallv(ic, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t unused = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(bytes_of("recvbuf", recvbuf, 0, recvtype, &rt, &unused));
  VBuffer in, out;
  CHECK(v_buffer(c, "recvbuf", recvbuf, recvcounts, rdispls, *rt, &out));
  if (!in_place) {
    CHECK(bytes_of("sendbuf", sendbuf, 0, sendtype, &st, &unused));
    CHECK(v_buffer(c, "sendbuf", sendbuf, sendcounts, sdispls, *st, &in));
    CHECK(check_distinct(sendbuf, recvbuf, total_of(in.counts)));
    in.load_all(c->size());
  } else {
    out.load_all(c->size());  // sent from and replaced in recvbuf
  }
  const coll::Status s = coll::alltoallv(
      call.view, p2p, in_place ? coll::in_place : in.stage.data(),
      in.counts.empty() ? nullptr : in.counts.data(),
      in.displs.empty() ? nullptr : in.displs.data(),
      out.stage.data(), out.counts.data(), out.displs.data());
  if (s == coll::Status::ok) out.store_members(call.view, -1);
  return finish(c, s, "MPI_Alltoallv");
}

// MPI-2.2 5.8: block r is counts[r] elements of types[r] at byte displacement displs[r]. Every
// block travels in its packed (wire) form, back to back in rank order, so the byte-level
// alltoallv moves them whatever the types; each received block is unpacked with its own type.
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Alltoallw",
                 inter_alltoallw(ic, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  WBlocks in, out;
  CHECK(out.setup(c, "recv", recvbuf, recvcounts, rdispls, recvtypes));
  if (!in_place) {
    CHECK(in.setup(c, "send", sendbuf, sendcounts, sdispls, sendtypes));
    CHECK(check_distinct(sendbuf, recvbuf, in.total));
    in.pack_all(sendbuf);
  } else {
    out.pack_all(recvbuf);  // sent from and replaced in recvbuf
  }
  const coll::Status s = coll::alltoallv(
      call.view, p2p, in_place ? coll::in_place : in.packed.data(),
      in_place ? nullptr : in.bytes.data(), in_place ? nullptr : in.at.data(),
      out.packed.data(), out.bytes.data(), out.at.data());
  if (s == coll::Status::ok) out.unpack_members(call.view, recvbuf);
  return finish(c, s, "MPI_Alltoallw");
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
  const Datatype* t = nullptr;
  std::size_t bytes = 0;
  if (Err e = bytes_of("inbuf", inbuf, count, type, &t, &bytes); e != Err::ok) return raise_world(e);
  if (Err e = bytes_of("inoutbuf", inoutbuf, count, type, &t, &bytes); e != Err::ok) {
    return raise_world(e);
  }
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
