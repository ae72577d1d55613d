// C API: point-to-point. Each entry checks its arguments, finds the objects, calls the engine and
// maps the outcome through the communicator's error handler. No logic beyond that lives here.
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api_request.h"
#include "p2p_checks.h"

using namespace ftmpi;
using namespace ftmpi::p2p;

namespace {

// MPI_Isend and MPI_Issend: check, handle MPI_PROC_NULL, post, hand out the request.
int start_send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request, bool sync) {
  Checked c;
  Err e = check_send(buf, count, type, dest, tag, comm, &c);
  if (request == nullptr) e = fail(Err::request, "request pointer is NULL");
  if (fails_at_completion(c, e)) {
    *request = failed_request(c.comm, dest, tag, e);
    return MPI_SUCCESS;
  }
  if (e != Err::ok) return raise(c.comm, e);
  if (dest == MPI_PROC_NULL) {
    *request = proc_null_request(c.comm);
    return MPI_SUCCESS;
  }
  Request* r = nullptr;
  if (e = post_send(buf, count, c, dest, tag, &r, sync); e != Err::ok) {
    // The transport may know of the death first (a send to a peer whose memory is gone).
    if (!fails_at_completion(c, e)) return raise(c.comm, e);
    *request = failed_request(c.comm, dest, tag, e);
    return MPI_SUCCESS;
  }
  *request = r->handle;
  return MPI_SUCCESS;
}

}  // namespace

namespace ftmpi {

void fill_status(const Request& r, MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = r.source;
  st->MPI_TAG = r.tag;
  status_set_bytes(st, r.bytes, r.cancelled);
}

void fill_empty_status(MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  status_set_bytes(st, 0, false);
}

// Retires a completed request: fills the status, frees the record, returns its error code.
int retire(Request* r, MPI_Status* st, MPI_Request* handle) {
  fill_status(*r, st);
  if (r->unpack_type != nullptr) {
    if (r->error == MPI_SUCCESS || error_class_of(r->error) == MPI_ERR_TRUNCATE) {
      unpack(r->owned.data(), r->bytes, r->unpack_to, r->unpack_count, *r->unpack_type);
    }
    lib().types.release(r->unpack_type);
    r->unpack_type = nullptr;
  }
  run_on_done(*r);  // before the record can be recycled (a purged one may linger in transport)
  int e = r->error;
  lib().engine.retire(r);
  *handle = MPI_REQUEST_NULL;
  return e;
}

Request* operation_of(Request* r) {
  if (r->kind != Request::Kind::persistent) return r;
  return r->persistent.active == MPI_REQUEST_NULL ? nullptr
                                                  : lib().engine.requests().find(r->persistent.active);
}

bool request_done(Request* r) {
  Request* op = operation_of(r);
  if (op == nullptr || op->complete) return true;
  if (op->kind == Request::Kind::done_at_once) return buffered_cancel_done(op);
  if (op->kind == Request::Kind::ulfm) return lib().ulfm.poll(op);  // MPIX_Comm_iagree/ishrink
  if (op->kind == Request::Kind::nbc) return lib().nbc.poll(op);    // MPI_Ibarrier, ...
  if (op->kind == Request::Kind::pair) return pair_done(op);        // MPI_Isendrecv
  return ulfm_wildcard_blocked(*op);
}

int request_finish(Request* r, MPI_Status* st, MPI_Request* handle) {
  if (Request* op = operation_of(r); op != nullptr && !op->complete) {
    // Done only in the ULFM sense (request_done): it stays pending and keeps its handle.
    fill_empty_status(st);
    return to_code(fail(Err::proc_failed_pending, "a wildcard receive on %s: rank(s) %s failed "
                        "and are not acknowledged; the receive is still pending",
                        op->comm->name.c_str(), failed_ranks_text(*op->comm).c_str()));
  }
  if (__builtin_expect(r->kind == Request::Kind::greq, 0)) return greq_finish(r, st, handle);
  if (r->kind != Request::Kind::persistent) return retire(r, st, handle);
  Request* op = operation_of(r);
  if (op == nullptr) {
    fill_empty_status(st);
    return MPI_SUCCESS;
  }
  MPI_Request inner = r->persistent.active;
  r->persistent.active = MPI_REQUEST_NULL;
  return retire(op, st, &inner);
}

}  // namespace ftmpi

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  Checked c;
  if (Err e = check_send(buf, count, type, dest, tag, comm, &c); e != Err::ok) {
    return raise(c.comm, e);
  }
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  Engine& eng = lib().engine;
  if (c.type->contiguous && eng.send_now(buf, c.bytes, dest, tag, c.comm, c.comm->context)) {
    return MPI_SUCCESS;
  }
  Request* r = nullptr;
  if (Err e = post_send(buf, count, c, dest, tag, &r); e != Err::ok) return raise(c.comm, e);
  eng.wait(r);
  int e = r->error;
  eng.retire(r);
  return raise_code(c.comm, e);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  Checked c;
  if (Err e = check_recv(buf, count, type, source, tag, comm, &c); e != Err::ok) {
    return raise(c.comm, e);
  }
  if (source == MPI_PROC_NULL) {
    fill_proc_null_status(status);
    return MPI_SUCCESS;
  }
  Engine& eng = lib().engine;
  Request* r = nullptr;
  if (c.type->contiguous || c.bytes == 0) {
    // A message already here needs no request (Engine::irecv's at_once); the status comes
    // from it. Not for a wildcard receive while ULFM failures are unacknowledged: that one
    // fails (below, SPEC 4.8) even when a message waits.
    Engine::Received got;
    const bool at_once = source != MPI_ANY_SOURCE || !ulfm_unacked_failure(*c.comm);
    if (Err e = eng.irecv(buf, c.bytes, source, tag, c.comm, c.comm->context, &r, at_once ? &got : nullptr);
        e != Err::ok) {
      return raise(c.comm, e);
    }
    if (r == nullptr) {
      if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = got.source;
        status->MPI_TAG = got.tag;
        status_set_bytes(status, got.bytes, false);
      }
      return MPI_SUCCESS;
    }
  } else if (Err e = post_recv(buf, count, c, source, tag, &r); e != Err::ok) {
    return raise(c.comm, e);
  }
  // Only a wildcard receive can be blocked by ULFM (ulfm_wildcard_blocked): a directed one
  // skips the call in every turn of the wait.
  const bool wildcard = source == MPI_ANY_SOURCE;
  eng.wait_until([r, wildcard] { return r->complete || (wildcard && ulfm_wildcard_blocked(*r)); });
  if (!r->complete) {  // SPEC 4.8: a blocking wildcard receive gives up, the request with it
    eng.purge(r, to_code(fail(Err::proc_failed, "MPI_Recv from MPI_ANY_SOURCE on %s: rank(s) %s "
                              "failed and are not acknowledged (MPIX_Comm_failure_ack)",
                              c.comm->name.c_str(), failed_ranks_text(*c.comm).c_str())));
  }
  MPI_Request h = r->handle;
  return raise_code(c.comm, retire(r, status, &h));
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return start_send(buf, count, type, dest, tag, comm, request, /*sync=*/false);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  Checked c;
  Err e = check_recv(buf, count, type, source, tag, comm, &c);
  if (request == nullptr) e = fail(Err::request, "request pointer is NULL");
  if (fails_at_completion(c, e)) {
    *request = failed_request(c.comm, source, tag, e);
    return MPI_SUCCESS;
  }
  if (e != Err::ok) return raise(c.comm, e);
  if (source == MPI_PROC_NULL) {
    *request = proc_null_request(c.comm);
    return MPI_SUCCESS;
  }
  Request* r = nullptr;
  if (e = post_recv(buf, count, c, source, tag, &r); e != Err::ok) {
    if (!fails_at_completion(c, e)) return raise(c.comm, e);
    *request = failed_request(c.comm, source, tag, e);
    return MPI_SUCCESS;
  }
  *request = r->handle;
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
  if (status == nullptr || count == nullptr) {
    return raise_world(fail(Err::arg, "status or count pointer is NULL"));
  }
  const Datatype* t = nullptr;
  if (Err e = lib().types.lookup(type, &t); e != Err::ok) return raise_world(e);
  *count = element_count(*t, status_bytes(status));
  return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype type, int* size) {
  if (size == nullptr) return raise_world(fail(Err::arg, "size pointer is NULL"));
  const Datatype* t = nullptr;
  if (Err e = lib().types.find(type, &t); e != Err::ok) return raise_world(e);
  // MPI-3's answer for a size an int cannot hold (MPI-1 leaves it open).
  *size = t->size > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(t->size);
  return MPI_SUCCESS;
}

}  // extern "C"

namespace {

// One look for a matching message (MPI_Iprobe without the poll-loop back-off, for MPI_Probe,
// whose wait has its own).
int iprobe_once(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  Checked c;
  if (Err e = check_probe(source, tag, comm, flag, &c); e != Err::ok) return raise(c.comm, e);
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    fill_proc_null_status(status);
    return MPI_SUCCESS;
  }
  bool found = false;
  Request r;
  if (Err e = lib().engine.iprobe(source, tag, c.comm, &found, &r); e != Err::ok) return raise(c.comm, e);
  *flag = found ? 1 : 0;
  if (found) fill_status(r, status);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  const int rc = iprobe_once(source, tag, comm, flag, status);
  if (rc == MPI_SUCCESS && *flag == 0) lib().engine.poll_missed();
  return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  int flag = 0;
  Engine& eng = lib().engine;
  int rc = MPI_SUCCESS;
  // Each Iprobe also drives progress and re-checks the communicator's failure state, so a
  // probe for a message from a process that died returns an error instead of waiting.
  eng.wait_until([&] {
    rc = iprobe_once(source, tag, comm, &flag, status);
    return rc != MPI_SUCCESS || flag != 0;
  });
  return rc;
}

int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return start_send(buf, count, type, dest, tag, comm, request, /*sync=*/true);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  MPI_Request r;
  int rc = MPI_Issend(buf, count, type, dest, tag, comm, &r);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&r, MPI_STATUS_IGNORE);
}

// ---- buffered sends (MPI-1.3 3.6) ----
// The data is always copied at once (packed into a buffer the request owns), so the user's
// attached buffer only sets the capacity: a Bsend that would not fit next to the pending ones
// fails with MPI_ERR_BUFFER, as the standard requires; detach waits for the pending ones.
// MPI_Ibsend and MPI_Start of an MPI_Bsend_init request hand the user a proxy request that is
// complete at once; MPI_Cancel of it cancels the send behind it (as MPICH does) while the
// receiver has not matched it, and the proxy then completes with the send's outcome.
}  // extern "C"

namespace {
struct BufferedSends {
  struct Pending {
    Request* send;             // the engine's send, which owns the packed copy
    std::size_t bytes;         // capacity it takes until its transfer ends
    bool released = false;     // those bytes are free again
    Request* proxy = nullptr;  // the user's request for it (Ibsend, Bsend_init), if any
    std::uint32_t serial = 0;  // the proxy's stamp (its record may be recycled)
  };
  void* buffer = nullptr;
  int size = 0;
  std::size_t used = 0;
  std::uint32_t next_serial = 0;
  std::vector<Pending> pending;

  // The proxy is still the user's request for this send (not retired and recycled).
  static bool proxy_live(const Pending& p) {
    return p.proxy != nullptr && p.proxy->kind == Request::Kind::done_at_once &&
           !p.proxy->retired && p.proxy->message == p.serial;
  }
  // Frees the capacity of finished transfers; a send is kept while its proxy may still cancel it.
  void sweep() {
    for (std::size_t i = 0; i < pending.size();) {
      Pending& p = pending[i];
      if (!p.send->complete) {
        ++i;
        continue;
      }
      if (!p.released) {
        used -= p.bytes;
        p.released = true;
      }
      if (proxy_live(p)) {
        ++i;
        continue;
      }
      lib().engine.retire(p.send);
      pending[i] = pending.back();
      pending.pop_back();
    }
  }
  Pending* find(const Request* proxy) {
    for (Pending& p : pending) {
      if (p.proxy == proxy && proxy_live(p)) return &p;
    }
    return nullptr;
  }
};
BufferedSends& bsends() {
  static BufferedSends b;
  return b;
}

// A checked buffered send (MPI_Bsend, MPI_Ibsend, MPI_Start of an MPI_Bsend_init request).
// With `proxy`, the user gets a request for it that completes at once.
Err post_bsend_checked(const void* buf, int count, const Checked* c, int dest, int tag,
                       MPI_Request* proxy = nullptr) {
  if (dest == MPI_PROC_NULL) {
    if (proxy != nullptr) {
      *proxy = proc_null_request(c->comm);
      lib().engine.requests().find(*proxy)->source = MPI_ANY_SOURCE;  // a send's status
    }
    return Err::ok;
  }
  BufferedSends& b = bsends();
  b.sweep();
  std::size_t need = c->bytes + MPI_BSEND_OVERHEAD;
  if (b.buffer == nullptr || b.used + need > static_cast<std::size_t>(b.size)) {
    return fail(Err::buffer, "buffered send of %zu bytes does not fit: attached %d bytes, %zu in use",
                need, b.buffer == nullptr ? 0 : b.size, b.used);
  }
  std::vector<std::uint8_t> stage = lib().engine.requests().take_buffer(c->bytes);
  if (c->bytes > 0) pack(buf, static_cast<std::size_t>(count), *c->type, stage.data());
  Request* r = nullptr;
  if (Err e = hold_comm_of(lib().engine.isend(nullptr, c->bytes, dest, tag, c->comm, c->comm->context, &r,
                                      &stage), &r);
      e != Err::ok) {
    return e;
  }
  b.used += need;
  b.pending.push_back({r, need});
  if (proxy != nullptr) {
    *proxy = proc_null_request(c->comm);
    Request* p = lib().engine.requests().find(*proxy);
    p->source = MPI_ANY_SOURCE;
    p->message = ++b.next_serial;
    b.pending.back().proxy = p;
    b.pending.back().serial = p->message;
  }
  return Err::ok;
}

Err post_bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               Checked* c, MPI_Request* proxy = nullptr) {
  if (Err e = check_send(buf, count, type, dest, tag, comm, c); e != Err::ok) return e;
  return post_bsend_checked(buf, count, c, dest, tag, proxy);
}
}  // namespace

namespace ftmpi {

void cancel_buffered(Request* proxy) {
  BufferedSends::Pending* p = bsends().find(proxy);
  if (p == nullptr || p->send->cancel_asked) return;  // MPI_PROC_NULL, or asked already
  lib().engine.cancel(p->send);
  if (p->send->cancel_asked) proxy->complete = false;  // until the receiver answers
}

bool buffered_cancel_done(Request* proxy) {
  BufferedSends::Pending* p = bsends().find(proxy);
  if (p == nullptr) return proxy->complete = true;
  if (!p->send->complete) return false;
  proxy->cancelled = p->send->cancelled;
  proxy->complete = true;
  bsends().sweep();  // a cancelled send's capacity is free again
  return true;
}

}  // namespace ftmpi

extern "C" {

int MPI_Buffer_attach(void* buffer, int size) {
  if (Err e = check_initialized("MPI_Buffer_attach"); e != Err::ok) return to_code(e);
  BufferedSends& b = bsends();
  if (size < 0) return raise_world(fail(Err::count, "size %d is negative", size));
  if (buffer == nullptr && size > 0) return raise_world(fail(Err::buffer, "buffer is NULL"));
  if (b.buffer != nullptr) return raise_world(fail(Err::buffer, "a buffer is already attached"));
  b.buffer = buffer != nullptr ? buffer : &b;  // a zero-size attach is still an attach
  b.size = size;
  return MPI_SUCCESS;
}

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  if (Err e = check_initialized("MPI_Buffer_detach"); e != Err::ok) return to_code(e);
  if (buffer_addr == nullptr || size == nullptr) return raise_world(fail(Err::arg, "NULL pointer"));
  BufferedSends& b = bsends();
  if (b.buffer == nullptr) return raise_world(fail(Err::buffer, "no buffer is attached"));
  // Every transfer ends (a proxy not yet completed by the user can no longer cancel).
  lib().engine.wait_until([&b] {
    for (const BufferedSends::Pending& p : b.pending) {
      if (!p.send->complete) return false;
    }
    return true;
  });
  for (const BufferedSends::Pending& p : b.pending) lib().engine.retire(p.send);
  // Copied, not stored through a void**: the address may be misaligned for a pointer (MPICH's
  // pt2pt/scancel passes an int's), which a plain store makes undefined behaviour.
  void* detached = b.buffer == &b ? nullptr : b.buffer;
  std::memcpy(buffer_addr, &detached, sizeof detached);
  *size = b.size;
  b = BufferedSends{};
  return MPI_SUCCESS;
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  Checked c;
  Err e = post_bsend(buf, count, type, dest, tag, comm, &c);
  return e == Err::ok ? MPI_SUCCESS : raise(c.comm, e);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  Checked c;
  Err e = request == nullptr ? fail(Err::request, "request pointer is NULL")
                             : post_bsend(buf, count, type, dest, tag, comm, &c, request);
  if (e != Err::ok) return raise(c.comm, e);
  return MPI_SUCCESS;
}

// ---- persistent requests (MPI-1.3 3.9) ----
}  // extern "C"

namespace {
int make_persistent(int op, const void* buf, int count, MPI_Datatype type, int peer, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  Checked c;
  Err e = op == 4 ? check_recv(const_cast<void*>(buf), count, type, peer, tag, comm, &c)
                  : check_send(buf, count, type, peer, tag, comm, &c);
  if (e == Err::ok && request == nullptr) e = fail(Err::request, "request pointer is NULL");
  if (e != Err::ok) return raise(c.comm, e);
  Request* r = lib().engine.requests().allocate(Request::Kind::persistent);
  r->comm = c.comm;
  r->persistent = {op, const_cast<void*>(buf), count, c.type, peer, tag, MPI_REQUEST_NULL};
  // MPI lets the user free the type and the communicator before MPI_Start; the request keeps
  // both alive until MPI_Request_free (release_persistent).
  lib().types.hold(c.type);
  lib().construct.hold(c.comm);
  *request = r->handle;
  return MPI_SUCCESS;
}

// Begins the operation of a persistent request, from the records it holds (their handles may
// be gone), with the same checks and paths as the nonblocking calls.
Err start_persistent(Request* r, MPI_Request* inner) {
  const Request::Persistent& p = r->persistent;
  Checked c;
  c.comm = r->comm;
  c.type = p.type;
  c.handle = p.type->handle;
  if (Err e = check_buffer_of(p.buf, p.count, &c); e != Err::ok) return e;
  Err e = p.op == 4 ? check_recv_peer(p.peer, p.tag, &c) : check_send_peer(p.peer, p.tag, &c);
  if (e != Err::ok) return e;
  if (p.op == 2) return post_bsend_checked(p.buf, p.count, &c, p.peer, p.tag, inner);
  if (p.peer == MPI_PROC_NULL) {
    *inner = proc_null_request(c.comm);
    return Err::ok;
  }
  Request* q = nullptr;
  e = p.op == 4 ? post_recv(p.buf, p.count, c, p.peer, p.tag, &q)
                : post_send(p.buf, p.count, c, p.peer, p.tag, &q, /*sync=*/p.op == 1);
  if (e == Err::ok) *inner = q->handle;
  return e;
}
}  // namespace

namespace ftmpi {
void release_persistent(Request* r) {
  if (r->persistent.coll != nullptr) return release_collective(r);
  lib().types.release(r->persistent.type);
  lib().construct.drop(r->comm);
  lib().engine.requests().release(r);
}
}  // namespace ftmpi

extern "C" {

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return make_persistent(0, buf, count, type, dest, tag, comm, request);
}
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return make_persistent(1, buf, count, type, dest, tag, comm, request);
}
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return make_persistent(2, buf, count, type, dest, tag, comm, request);
}
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return make_persistent(3, buf, count, type, dest, tag, comm, request);
}
int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return make_persistent(4, buf, count, type, source, tag, comm, request);
}

int MPI_Start(MPI_Request* request) {
  if (Err e = check_initialized("MPI_Start"); e != Err::ok) return to_code(e);
  if (request == nullptr) return raise_world(fail(Err::request, "request pointer is NULL"));
  Request* r = lib().engine.requests().find(*request);
  if (r == nullptr || r->kind != Request::Kind::persistent) {
    return raise_world(fail(Err::request, "request %d is not a persistent request", *request));
  }
  if (r->persistent.active != MPI_REQUEST_NULL) {
    return raise(r->comm, fail(Err::request, "persistent request %d is already active", *request));
  }
  MPI_Request inner = MPI_REQUEST_NULL;
  if (r->persistent.coll != nullptr) {  // MPI_Allreduce_init, ... (api_pcoll.cpp)
    if (int code = start_collective(r, &inner); code != MPI_SUCCESS) {
      return raise_code(r->comm, code);
    }
  } else if (Err e = start_persistent(r, &inner); e != Err::ok) {
    return raise(r->comm, e);
  }
  r->persistent.active = inner;
  return MPI_SUCCESS;
}

int MPI_Startall(int count, MPI_Request requests[]) {
  if (Err e = check_initialized("MPI_Startall"); e != Err::ok) return to_code(e);
  if (count < 0) return raise_world(fail(Err::count, "count %d is negative", count));
  if (count > 0 && requests == nullptr) return raise_world(fail(Err::request, "request array is NULL"));
  // Everything is checked before anything starts, so a refused call starts nothing.
  for (int i = 0; i < count; ++i) {
    Request* r = lib().engine.requests().find(requests[i]);
    if (r == nullptr || r->kind != Request::Kind::persistent) {
      return raise_world(fail(Err::request, "request %d (index %d) is not a persistent request",
                              requests[i], i));
    }
    if (r->persistent.active != MPI_REQUEST_NULL) {
      return raise(r->comm, fail(Err::request, "persistent request %d (index %d) is already active",
                                 requests[i], i));
    }
  }
  for (int i = 0; i < count; ++i) {
    int rc = MPI_Start(&requests[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// A ready send may assume the receive is posted; sending it as a standard send is always
// correct (MPI-1.3 3.4).
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return MPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return MPI_Isend(buf, count, type, dest, tag, comm, request);
}

namespace {

// MPI_Sendrecv's work, as calls whose errors come back as codes (HeldHandlers).
int sendrecv_parts(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Status* status) {
  HeldHandlers held;
  MPI_Request reqs[2];
  // Post the receive first so two ranks exchanging large messages cannot wait on each other.
  int rc = MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &reqs[0]);
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &reqs[1]);
  if (rc != MPI_SUCCESS) {  // only a failure seen between the checks and the send gets here
    (void)MPI_Cancel(&reqs[0]);
    (void)MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    return rc;
  }
  MPI_Status st[2];
  rc = MPI_Waitall(2, reqs, st);
  if (status != MPI_STATUS_IGNORE) *status = st[0];
  if (rc == MPI_ERR_IN_STATUS || error_class_of(rc) == MPI_ERR_IN_STATUS) {
    return st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
  }
  return rc;
}

}  // namespace

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  // Both halves are checked before either is posted: a receive posted for a call whose send
  // half is then refused would be left waiting for a message that may never come.
  Checked c;
  if (Err e = check_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, &c); e != Err::ok) {
    return raise(c.comm, e);
  }
  // The parts' errors return here; the handler sees the one this call reports, once.
  return raise_code(c.comm, sendrecv_parts(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                           recvcount, recvtype, source, recvtag, comm, status));
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  Checked c;
  Err e = check_recv(buf, count, type, source, recvtag, comm, &c);
  if (e == Err::ok) {
    Checked s;
    e = check_send(buf, count, type, dest, sendtag, comm, &s);
  }
  if (e != Err::ok) return raise(c.comm, e);
  // Send from a packed copy, so the receive may overwrite the buffer.
  std::vector<std::uint8_t> copy(c.bytes);
  if (c.bytes > 0) pack(buf, static_cast<std::size_t>(count), *c.type, copy.data());
  return MPI_Sendrecv(copy.data(), static_cast<int>(c.bytes), MPI_PACKED, dest, sendtag, buf, count,
                      type, source, recvtag, comm, status);
}

}  // extern "C"
