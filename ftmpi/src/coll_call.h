// The C API's collective calls (api_coll_*.cpp) share this: finding the communicator and the
// participants' view, checking buffer arguments, and turning an algorithm's Status (and, in
// ATOMIC mode, the agreed outcome) into the MPI return. Arguments are checked here, converted
// to bytes, and handed to the algorithms in collectives/ through CommP2P. A buffer whose
// datatype is not contiguous goes through a staging buffer (coll_stage.h): packed before the
// algorithm, unpacked after it succeeded; contiguous types move in place.
// What every call runs is inline here (a call into another file costs its prologue on the
// 8 B path); what only errors and v-variants need lives in coll_call.cpp.
#pragma once

#include <ftmpi/coll/collectives.h>

#include <cstdint>
#include <vector>

#include "coll_outcome.h"
#include "coll_p2p.h"
#include "coll_stage.h"
#include "library.h"

namespace ftmpi::collapi {

// A collective call's communicator and participants. A blocking call uses the view the
// communicator caches (proc_states.h: rebuilt only when a process state changed); a nonblocking
// one (nbc.h, on a fiber) builds its own, since several may be under way on one communicator
// and one may run inside another collective's wait.
struct Call {
  Comm* comm = nullptr;
  const coll::View* members = nullptr;
  const coll::View& view() const { return *members; }
};

// FTMPI_COLL_MODE_ATOMIC (SPEC 4.4): in a fault-tolerant mode every survivor leaves a
// collective with the same outcome (coll_outcome.h). Every call that got as far as the
// communicator (success, failure seen during the algorithm, or refused because of a failure)
// takes part in the outcome step.
inline bool atomic(const Comm* c) { return atomic_mode(c); }

// The communicator of a collective call, looked up once: the intercommunicator dispatch and
// the intracommunicator path share the lookup (it was done twice, ~30 instructions a call).
[[gnu::always_inline]] inline Err find_comm(MPI_Comm comm, const char* fn, Call* call) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  return lib().comms.lookup(comm, &call->comm);
}

// An intracommunicator's collective past its lookup: refused if a failure is pending here
// (ATOMIC: after voting so), else the participants' view.
[[gnu::always_inline]] inline Err enter(Call* call) {
  if (call->comm->state != FTMPI_COMM_OK) {
    if (Err e = lib().ft.check(call->comm, FaultHandler::kWholeComm); e != Err::ok) {
      if (atomic(call->comm)) (void)agree_outcome(call->comm, false);
      return e;
    }
  }
  if (MembersView* own = Nbc::view(); own != nullptr) {
    const Comm& c = *call->comm;
    call->members = &own->of(c.proc_state, c.rank, c.size());
  } else {
    call->members = &CommP2P::members_of(*call->comm);
  }
  return Err::ok;
}

inline Err begin(MPI_Comm comm, const char* fn, Call* call) {
  if (Err e = find_comm(comm, fn, call); e != Err::ok) return e;
  if (call->comm->inter) {
    return fail(Err::comm,
                "%s: %s is an intercommunicator; MPI defines no scan on "
                "intercommunicators",
                fn, call->comm->name.c_str());
  }
  return enter(call);
}

// The checks and the return below run on every call: always inline (a call to check_rooted
// alone was ~70 instructions of an 8 B MPI_Reduce, ~30 of them its prologue; coll_cost.sh 2).

// One buffer argument (`what` names it): count, datatype, and a buffer that can hold the data.
// Callers skip a buffer that is legitimately MPI_IN_PLACE; anywhere else it is an error.
// *bytes is the packed size (count * type size), what the data-movement algorithms move.
[[gnu::always_inline]] inline Err buffer_bytes(const char* what, const void* buf, int count,
                                               const Datatype& t, std::size_t* bytes) {
  *bytes = packed_size(t, static_cast<std::size_t>(count));
  if (buf == MPI_IN_PLACE) return fail(Err::buffer, "%s may not be MPI_IN_PLACE here", what);
  // NULL is MPI_BOTTOM for a staged derived type (absolute addresses); a type moved in place
  // has its data at the buffer's start.
  if (buf == nullptr && *bytes > 0 && (t.contiguous || t.predefined)) {
    return fail(Err::buffer, "%s is NULL but %d elements are to be transferred", what, count);
  }
  return Err::ok;
}

[[gnu::always_inline]] inline Err bytes_of(const char* what, const void* buf, int count,
                                           MPI_Datatype type, const Datatype** t,
                                           std::size_t* bytes) {
  if (count < 0) return fail(Err::count, "%s: count %d is negative", what, count);
  if (Err e = lib().types.lookup(type, t); e != Err::ok) return e;
  return buffer_bytes(what, buf, count, **t, bytes);
}

// MPI_IN_PLACE given by a process for which the collective does not define it.
inline Err in_place_not_here(const char* what, const char* fn) {
  return fail(Err::buffer, "%s: %s may be MPI_IN_PLACE at the root only", fn, what);
}

// MPI forbids aliasing an input and an output buffer (MPI_IN_PLACE is the way to share one).
inline Err check_distinct(const void* sendbuf, const void* recvbuf, std::size_t bytes) {
  if (sendbuf == recvbuf && bytes > 0) {
    return fail(Err::buffer, "sendbuf and recvbuf are the same buffer (%p); use MPI_IN_PLACE",
                sendbuf);
  }
  return Err::ok;
}

// The same for a block of a gather/scatter-like buffer: `mine` (this process's contribution or
// its receive buffer) must not be this process's own block of `whole` (at `offset` bytes),
// which is what MPI_IN_PLACE is for. MPICH checks exactly this; without the check such a call
// went ahead at the members whose block it is and waited for one that had refused (MPICH's
// errors/coll/noalias2 hung).
inline Err check_not_own_block(const void* mine, const void* whole, MPI_Aint offset,
                               std::size_t bytes) {
  if (bytes > 0 && mine == static_cast<const char*>(whole) + offset) {
    return fail(Err::buffer, "the buffer (%p) is this process's own block of the other buffer; "
                "use MPI_IN_PLACE", mine);
  }
  return Err::ok;
}

// A v-variant's buffer: it must exist if anything moves (NULL is MPI_BOTTOM for a staged
// derived type, as in bytes_of).
Err check_v_buffer(const char* what, const void* buf, const Datatype& t,
                   const std::vector<std::size_t>& bytes);
std::size_t total_of(const std::vector<std::size_t>& v);

// Callers pass its error to refuse() (CHECK), which casts the ATOMIC vote.
[[gnu::always_inline]] inline Err check_root(Comm* c, int root) {
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
[[gnu::always_inline]] inline Err check_rooted(Comm* c, int root, const char* fn, const char* what,
                                               const void* buf, int count, MPI_Datatype type,
                                               const Datatype** t, std::size_t* bytes) {
  if (Err e = check_root(c, root); e != Err::ok) return e;
  if (buf != MPI_IN_PLACE) return bytes_of(what, buf, count, type, t, bytes);
  return c->rank == root ? Err::ok : in_place_not_here(what, fn);
}

// MPI_Allreduce's, MPI_Scan's and MPI_Exscan's buffers: `count` elements each and not aliased
// (sendbuf may be MPI_IN_PLACE).
[[gnu::always_inline]] inline Err check_reduce_buffers(const void* sendbuf, const void* recvbuf,
                                                       int count, MPI_Datatype type,
                                                       const Datatype** t, std::size_t* bytes) {
  if (Err e = bytes_of("recvbuf", recvbuf, count, type, t, bytes); e != Err::ok) return e;
  if (sendbuf == MPI_IN_PLACE) return Err::ok;
  if (Err e = buffer_bytes("sendbuf", sendbuf, count, **t, bytes); e != Err::ok) return e;
  return check_distinct(sendbuf, recvbuf, *bytes);
}

// MPI_Allgather's and MPI_Alltoall's checks: both buffers valid, not aliased, and their blocks
// the same size in bytes (sendbuf may be MPI_IN_PLACE). Sets *st only when sendbuf is given.
inline Err check_equal_blocks(const char* fn, const void* sendbuf, int sendcount,
                              MPI_Datatype sendtype, const Datatype** st, const void* recvbuf,
                              int recvcount, MPI_Datatype recvtype, const Datatype** rt,
                              std::size_t* rbytes) {
  if (Err e = bytes_of("recvbuf", recvbuf, recvcount, recvtype, rt, rbytes); e != Err::ok) return e;
  if (sendbuf == MPI_IN_PLACE) return Err::ok;
  std::size_t sbytes = 0;
  if (Err e = bytes_of("sendbuf", sendbuf, sendcount, sendtype, st, &sbytes); e != Err::ok)
    return e;
  if (sbytes != *rbytes) return fail(Err::truncate, "%s: send and receive sizes differ", fn);
  return check_distinct(sendbuf, recvbuf, *rbytes);
}

// counts/displs in elements of `extent` bytes -> byte arrays per communicator rank.
Err to_bytes(const Comm* c, const int* counts, const int* displs, std::size_t extent,
             std::vector<std::size_t>* bc, std::vector<std::size_t>* bd);

// The MPI return of a collective that did not succeed: the algorithm ended with `s`, the
// outcome (ATOMIC: agreed; otherwise s itself) says failed.
int report_failure(Comm* c, coll::Status s, const char* fn);

// The MPI return of a collective whose algorithm ended with `s` and whose outcome (ATOMIC:
// agreed; otherwise s itself) is `ok`.
[[gnu::always_inline]] inline int report(Comm* c, coll::Status s, bool ok, const char* fn) {
  return ok ? MPI_SUCCESS : report_failure(c, s, fn);
}

[[gnu::always_inline]] inline int finish(Comm* c, coll::Status s, const char* fn) {
  const bool here = s == coll::Status::ok;
  return report(c, s, atomic(c) ? agree_outcome(c, here) : here, fn);
}

// A collective in which every member that succeeds ends with the same bytes (`r`): in ATOMIC
// mode it may settle without messages (coll_outcome.h), and a member whose algorithm failed
// may still succeed with the result of one that settled.
[[gnu::always_inline]] inline int finish_uniform(Comm* c, const coll::View& v, coll::Status s,
                                                 const UniformResult& r, const char* fn) {
  const bool here = s == coll::Status::ok;
  return report(c, s, atomic(c) ? settle_outcome(c, v, here, r) : here, fn);
}

// A collective that reached the communicator but is refused here for a local reason (an
// argument only this member got wrong, a receive buffer too small at the root: MPI_ERR_TRUNCATE
// from MPI_Gather). In ATOMIC mode the other members go on into the outcome agreement and would
// wait for this member's vote forever: it votes "failed" first, so every member returns an error.
int refuse(Comm* c, Err e);

inline const void* in_place_or(const void* buf) {
  return buf == MPI_IN_PLACE ? coll::in_place : buf;
}
inline void* in_place_or(void* buf) { return buf == MPI_IN_PLACE ? coll::in_place : buf; }

// Whether a buffer of this type (nullptr: no buffer here) goes to the algorithm as it is. When
// every buffer of a call does, the call takes the plain path: no Stage, no copy.
inline bool moves_in_place(const Datatype* t) { return t == nullptr || Form::packed(*t).direct; }

// The reduction of `count` elements of `type` (`t`, looked up by the caller's buffer checks)
// and the form its buffers take (coll_stage.h).
[[gnu::always_inline]] inline Err reduction_for(MPI_Op op, MPI_Datatype type, int count,
                                                const Datatype& t, coll::Reduction* r, Form* form) {
  if (t.predefined) {  // the path of every reduction on a basic type, kept short
    *form = Form{};    // direct: the algorithm works in the user's buffers
    return lib().ops.reduction(op, type, static_cast<std::size_t>(t.extent),
                               static_cast<std::size_t>(count), r);
  }
  return plan_reduction(op, type, t, static_cast<std::size_t>(count), r, form);
}

// ---- Staging of slot and v-variant buffers (coll_stage.h) ---------------------------------

// Slot layouts (gather, allgather, scatter, alltoall): slot i is elements [i*per, (i+1)*per).
void load_slot(Stage* s, int i, std::size_t per);
// The slots an algorithm wrote: every member's (a BLANK gap's slot is never written) except
// `skip` (an in-place process's own, already in place).
void store_slots(const Stage& s, const coll::View& v, std::size_t per, int skip);

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

Err v_buffer(const Comm* c, const char* what, const void* buf, const int* counts, const int* displs,
             const Datatype& t, VBuffer* out);

}  // namespace ftmpi::collapi

#define BEGIN(fn)                                                                  \
  Call call;                                                                       \
  if (Err e_ = begin(comm, fn, &call); e_ != Err::ok) return raise(call.comm, e_); \
  Comm* c = call.comm;                                                             \
  CommP2P p2p(&lib().engine, c)
// A collective that intercommunicators have as well: after the one lookup, an
// intercommunicator (`ic`) returns the given call (intercomm_coll.h).
#define BEGIN_OR_INTER(fn, ...)                                                        \
  Call call;                                                                           \
  if (Err e_ = find_comm(comm, fn, &call); e_ != Err::ok) return raise(call.comm, e_); \
  if (Comm* ic = call.comm; ic->inter) return __VA_ARGS__;                             \
  if (Err e_ = enter(&call); e_ != Err::ok) return raise(call.comm, e_);               \
  Comm* c = call.comm;                                                                 \
  CommP2P p2p(&lib().engine, c)
#define CHECK(expr)                                           \
  do {                                                        \
    if (Err e_ = (expr); e_ != Err::ok) return refuse(c, e_); \
  } while (0)
