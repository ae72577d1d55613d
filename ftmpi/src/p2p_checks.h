// The point-to-point calls' shared steps (api_p2p.cpp, api_mprobe.cpp): argument checks that
// report the right error class, the MPI_PROC_NULL shortcuts, and posting a send or receive
// with its datatype staged. Inline: they are MPI_Send's and MPI_Recv's fast path, and an inline
// function is never interposed, so the compiler folds them into each call as before.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "library.h"
#include "match_bits.h"
#include "status_count.h"

namespace ftmpi::p2p {

struct Checked {
  Comm* comm = nullptr;
  const Datatype* type = nullptr;
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  std::size_t bytes = 0;  // packed size: what travels
};

// The buffer against a type already found (c->type): a fresh lookup, or the record a
// persistent request holds.
inline Err check_buffer_of(const void* buf, int count, Checked* c) {
  if (count < 0) return fail(Err::count, "count %d is negative", count);
  const Datatype* t = c->type;
  c->bytes = packed_size(*t, static_cast<std::size_t>(count));
  // One compare on the fast path catches both NULL (0) and MPI_IN_PLACE (-1).
  if (__builtin_expect(reinterpret_cast<std::uintptr_t>(buf) + 1 <= 1, 0)) {
    if (buf == MPI_IN_PLACE) {
      return fail(Err::buffer, "MPI_IN_PLACE is not a buffer: it is only for collectives");
    }
    if (c->bytes > 0 && !buffer_may_be_null(*t, static_cast<std::size_t>(count))) {
      return fail(Err::buffer, "buffer is NULL but %d elements of %s are to be transferred",
                  count, t->name);
    }
  }
  return Err::ok;
}

inline Err check_buffer(const void* buf, int count, MPI_Datatype type, Checked* c) {
  if (count < 0) return fail(Err::count, "count %d is negative", count);
  // No element travels, so no type is needed: MPICH and Open MPI (since 2016) accept
  // (NULL, 0, MPI_DATATYPE_NULL); the standard nowhere forbids it for a count of 0.
  if (__builtin_expect(type == MPI_DATATYPE_NULL, 0) && count == 0) type = MPI_BYTE;
  if (Err e = lib().types.lookup(type, &c->type); e != Err::ok) return e;
  c->handle = type;
  return check_buffer_of(buf, count, c);
}

// Destination and tag on c->comm, whose failure state may refuse the send.
inline Err check_send_peer(int dest, int tag, Checked* c) {
  if (tag < 0 || tag > match::kMaxTag) {
    return fail(Err::tag, "tag %d outside 0..MPI_TAG_UB (%d)", tag, match::kMaxTag);
  }
  if (dest != MPI_PROC_NULL && (dest < 0 || dest >= c->comm->peer_size())) {
    return fail(Err::rank, "destination rank %d outside 0..%d of %s", dest, c->comm->peer_size() - 1,
                c->comm->name.c_str());
  }
  if (kFtChecks && dest != MPI_PROC_NULL &&
      (c->comm->state != FTMPI_COMM_OK || c->comm->is_failed(dest))) {
    return lib().ft.check(c->comm, dest);
  }
  return Err::ok;
}

inline Err check_send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               Checked* c) {
  if (Err e = check_initialized("send"); e != Err::ok) return e;
  if (Err e = lib().comms.lookup(comm, &c->comm); e != Err::ok) return e;
  if (Err e = check_buffer(buf, count, type, c); e != Err::ok) return e;
  return check_send_peer(dest, tag, c);
}

inline Err check_recv_peer(int source, int tag, Checked* c) {
  if (tag != MPI_ANY_TAG && (tag < 0 || tag > match::kMaxTag)) {
    return fail(Err::tag, "tag %d is neither MPI_ANY_TAG nor in 0..MPI_TAG_UB (%d)", tag,
                match::kMaxTag);
  }
  if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE &&
      (source < 0 || source >= c->comm->peer_size())) {
    return fail(Err::rank, "source rank %d outside 0..%d of %s", source, c->comm->peer_size() - 1,
                c->comm->name.c_str());
  }
  if (kFtChecks && source != MPI_PROC_NULL &&
      (c->comm->state != FTMPI_COMM_OK || (source >= 0 && c->comm->is_failed(source)))) {
    return lib().ft.check(c->comm, source);
  }
  return Err::ok;
}

inline Err check_recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               Checked* c) {
  if (Err e = check_initialized("receive"); e != Err::ok) return e;
  if (Err e = lib().comms.lookup(comm, &c->comm); e != Err::ok) return e;
  if (Err e = check_buffer(buf, count, type, c); e != Err::ok) return e;
  return check_recv_peer(source, tag, c);
}


inline void fill_proc_null_status(MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_PROC_NULL;
  st->MPI_TAG = MPI_ANY_TAG;
  status_set_bytes(st, 0, false);
}

// A user request holds its communicator until its record is recycled, so an operation pending
// at MPI_Comm_free completes normally (MPI-3.1 6.4.3) and the context ids stay taken until then
// (a new communicator's message can never match it). Passes e through; *r is read only after
// the call that fills it was evaluated (argument order is unspecified).
inline Err hold_comm_of(Err e, Request** r) {
  if (e == Err::ok && *r != nullptr) lib().construct.hold_for(*r);
  return e;
}

// Posts a send: contiguous data goes straight from the user's buffer, anything else is packed
// into a buffer the request owns.
inline Err post_send(const void* buf, int count, const Checked& c, int dest, int tag, Request** r,
              bool sync = false) {
  Engine& eng = lib().engine;
  if (c.type->contiguous) {
    return hold_comm_of(eng.isend(buf, c.bytes, dest, tag, c.comm, c.comm->context, r, nullptr, sync), r);
  }
  std::vector<std::uint8_t> stage = eng.requests().take_buffer(c.bytes);
  pack(buf, static_cast<std::size_t>(count), *c.type, stage.data());
  return hold_comm_of(eng.isend(nullptr, c.bytes, dest, tag, c.comm, c.comm->context, r, &stage, sync), r);
}

// Posts a receive: contiguous data lands in place, anything else in the request's own buffer,
// unpacked by retire(); the type is held until then so MPI_Type_free cannot pull it away.
inline Err post_recv(void* buf, int count, const Checked& c, int source, int tag, Request** r) {
  Engine& eng = lib().engine;
  if (c.type->contiguous || c.bytes == 0) {
    return hold_comm_of(eng.irecv(buf, c.bytes, source, tag, c.comm, c.comm->context, r), r);
  }
  if (Err e = hold_comm_of(eng.irecv(nullptr, c.bytes, source, tag, c.comm, c.comm->context, r), r);
      e != Err::ok) {
    return e;
  }
  lib().types.hold(c.type);
  (*r)->unpack_type = c.type;
  (*r)->unpack_to = buf;
  (*r)->unpack_count = static_cast<std::size_t>(count);
  return Err::ok;
}

// A request for an operation with MPI_PROC_NULL: complete from the start.
inline MPI_Request proc_null_request(Comm* comm) {
  Request* r = lib().engine.requests().allocate(Request::Kind::done_at_once);
  r->comm = comm;
  if (comm != nullptr) lib().construct.hold_for(r);  // its error handler, at completion
  r->complete = true;
  r->source = MPI_PROC_NULL;
  r->tag = MPI_ANY_TAG;
  return r->handle;
}

// ULFM (SPEC 4.8): a nonblocking send or receive naming a process known to have failed starts
// and completes at once with MPIX_ERR_PROC_FAILED, which MPI_Wait/MPI_Test report, as MPICH does
// (its ft/isenddead and ft/irecvdead call MPI_Wait on the request and expect the start to
// succeed; they failed whenever the death was known before the start). Argument errors and a
// revoked communicator still fail the start call.
inline bool fails_at_completion(const Checked& c, Err e) {
  return e == Err::proc_failed && c.comm != nullptr && c.comm->comm_mode == FTMPI_COMM_MODE_ULFM;
}

inline MPI_Request failed_request(Comm* comm, int peer, int tag, Err e) {
  Request* r = lib().engine.requests().allocate(Request::Kind::done_at_once);
  r->comm = comm;
  lib().construct.hold_for(r);  // its error goes to comm's handler at completion
  r->complete = true;
  r->error = to_code(e);
  r->source = peer;
  r->tag = tag;
  return r->handle;
}

// A probe's checks (MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe): those of a receive, and
// SPEC 4.8's wildcard rule: while a failure is not acknowledged an MPI_ANY_SOURCE probe fails.
inline Err check_probe(int source, int tag, MPI_Comm comm, const int* flag, Checked* c) {
  int dummy = 0;
  Err e = check_recv(&dummy, 0, MPI_BYTE, source, tag, comm, c);
  if (e == Err::ok && flag == nullptr) e = fail(Err::arg, "flag pointer is NULL");
  if (e == Err::ok && source == MPI_ANY_SOURCE && ulfm_unacked_failure(*c->comm)) {
    e = fail(Err::proc_failed, "probe for MPI_ANY_SOURCE on %s: rank(s) %s failed and are not "
             "acknowledged", c->comm->name.c_str(), failed_ranks_text(*c->comm).c_str());
  }
  return e;
}

}  // namespace ftmpi::p2p
