// C API: matched probes (MPI-3.1 3.8.2, 3.8.3): MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv.
// A probe that matches takes the message out of matching at once (Engine::improbe), so no
// other receive or probe, of any thread, can take it; the MPI_Message handle names it until
// MPI_Mrecv/MPI_Imrecv receive exactly it, with MPI_Recv's checks, truncation and staging of
// derived datatypes. A probe of MPI_PROC_NULL matches MPI_MESSAGE_NO_PROC, whose receive
// completes at once with MPI_Recv's MPI_PROC_NULL status.
//
// Failures. The probes have MPI_Probe's checks (p2p::check_probe: a failed source, FT-MPI's
// communicator states, ULFM's rule for MPI_ANY_SOURCE). A message already matched is data
// this process holds: its receive delivers it even when its sender has died since (a dead
// process's last messages are delivered, as to a receive posted before the death was known),
// in any mode; only a revoked communicator refuses it (MPIX_ERR_REVOKED, the message is then
// consumed). An MPI_Imrecv still pending (a large message's rendezvous) is an ordinary receive
// request: a revoke or a failure purges it with the error a pending MPI_Irecv gets.
#include <cstdint>
#include <vector>

#include "api_request.h"
#include "p2p_checks.h"

using namespace ftmpi;
using namespace ftmpi::p2p;

namespace {

// The matched messages the application holds handles to. The communicator is held (as by a
// persistent request) until the receive is posted, so MPI_Comm_free in between is safe.
class MessageTable {
 public:
  struct Matched {
    Comm* comm = nullptr;       // nullptr: a free slot
    std::uint64_t id = 0;       // the transport's name for it (Endpoint::claim)
    int source = 0;             // communicator rank of its sender
    std::size_t bytes = 0;      // its size
  };
  MPI_Message add(const Matched& m) {
    std::size_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = slots_.size();
      slots_.emplace_back();
    }
    slots_[slot] = m;
    lib().construct.hold(m.comm);
    return static_cast<MPI_Message>(slot + 1);  // never MPI_MESSAGE_NULL (0) or NO_PROC (-1)
  }
  Matched* find(MPI_Message h) {
    if (h <= 0 || static_cast<std::size_t>(h) > slots_.size()) return nullptr;
    Matched* m = &slots_[static_cast<std::size_t>(h) - 1];
    return m->comm != nullptr ? m : nullptr;
  }
  // The message is being received: its handle is free again (the caller posted the receive).
  void remove(Matched* m) {
    Comm* comm = m->comm;
    m->comm = nullptr;
    free_.push_back(static_cast<std::size_t>(m - slots_.data()));
    lib().construct.drop(comm);
  }

 private:
  std::vector<Matched> slots_;
  std::vector<std::size_t> free_;
};

MessageTable& messages() {
  static MessageTable t;
  return t;
}

// One look for a matching message (MPI_Improbe; MPI_Mprobe's wait calls it in every turn).
int improbe_once(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                 MPI_Status* status) {
  Checked c;
  Err e = check_probe(source, tag, comm, flag, &c);
  if (e == Err::ok && message == nullptr) e = fail(Err::arg, "message pointer is NULL");
  if (e != Err::ok) return raise(c.comm, e);
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    fill_proc_null_status(status);
    return MPI_SUCCESS;
  }
  bool found = false;
  Request r;
  std::uint64_t id = 0;
  if (e = lib().engine.improbe(source, tag, c.comm, &found, &r, &id); e != Err::ok) {
    return raise(c.comm, e);
  }
  *flag = found ? 1 : 0;
  *message = MPI_MESSAGE_NULL;
  if (!found) return MPI_SUCCESS;
  *message = messages().add({c.comm, id, r.source, r.bytes});
  fill_status(r, status);
  return MPI_SUCCESS;
}

// MPI_Mrecv and MPI_Imrecv: checks, then the receive of *message (r nullptr for
// MPI_MESSAGE_NO_PROC: nothing to receive). *comm: whose error handler reports.
Err post_mrecv(const char* fn, void* buf, int count, MPI_Datatype type, MPI_Message* message,
               Comm** comm, Request** r) {
  *r = nullptr;
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  if (message == nullptr) return fail(Err::arg, "%s: message pointer is NULL", fn);
  Checked c;
  MessageTable::Matched* m = nullptr;
  if (*message != MPI_MESSAGE_NO_PROC) {
    m = messages().find(*message);
    if (m == nullptr) {
      return fail(Err::request, "%s: message %d is not one MPI_Mprobe or MPI_Improbe matched",
                  fn, *message);
    }
    *comm = c.comm = m->comm;
  }
  // Argument errors leave the message to a corrected call.
  if (Err e = check_buffer(buf, count, type, &c); e != Err::ok) return e;
  if (m == nullptr) {
    *message = MPI_MESSAGE_NULL;
    return Err::ok;
  }
  Engine& eng = lib().engine;
  const std::uint64_t id = m->id;
  const int source = m->source;
  if (kFtChecks && c.comm->revoked) {
    // Received into the request's own buffer and dropped: a large message's sender finishes.
    Request* drop = nullptr;
    if (hold_comm_of(eng.mrecv(nullptr, m->bytes, id, source, c.comm, &drop), &drop) == Err::ok) {
      eng.abandon(drop);
    }
    messages().remove(m);
    *message = MPI_MESSAGE_NULL;
    return fail(Err::revoked, "%s has been revoked", c.comm->name.c_str());
  }
  Err e;
  if (c.type->contiguous || c.bytes == 0) {
    e = hold_comm_of(eng.mrecv(buf, c.bytes, id, source, c.comm, r), r);
  } else if (e = hold_comm_of(eng.mrecv(nullptr, c.bytes, id, source, c.comm, r), r); e == Err::ok) {
    lib().types.hold(c.type);  // unpacked by retire(), as post_recv's staged receives
    (*r)->unpack_type = c.type;
    (*r)->unpack_to = buf;
    (*r)->unpack_count = static_cast<std::size_t>(count);
  }
  if (e != Err::ok) return e;
  messages().remove(m);
  *message = MPI_MESSAGE_NULL;
  return Err::ok;
}

}  // namespace

extern "C" {

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status) {
  const int rc = improbe_once(source, tag, comm, flag, message, status);
  if (rc == MPI_SUCCESS && *flag == 0) lib().engine.poll_missed();
  return rc;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  int flag = 0;
  int rc = MPI_SUCCESS;
  // As MPI_Probe: every turn drives progress and checks the failure state again.
  lib().engine.wait_until([&] {
    rc = improbe_once(source, tag, comm, &flag, message, status);
    return rc != MPI_SUCCESS || flag != 0;
  });
  return rc;
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  Comm* comm = nullptr;
  Request* r = nullptr;
  if (Err e = post_mrecv("MPI_Mrecv", buf, count, type, message, &comm, &r); e != Err::ok) {
    return raise(comm, e);
  }
  if (r == nullptr) {
    fill_proc_null_status(status);
    return MPI_SUCCESS;
  }
  lib().engine.wait(r);
  MPI_Request h = r->handle;
  KeepFreedComm keep(comm);  // MPI_Mprobe, MPI_Comm_free, MPI_Mrecv: r holds the last reference
  return raise_code(comm, retire(r, status, &h));
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
               MPI_Request* request) {
  Comm* comm = nullptr;
  Request* r = nullptr;
  Err e = request == nullptr ? fail(Err::request, "MPI_Imrecv: request pointer is NULL")
                             : post_mrecv("MPI_Imrecv", buf, count, type, message, &comm, &r);
  if (e != Err::ok) return raise(comm, e);
  *request = r != nullptr ? r->handle : proc_null_request(nullptr);
  return MPI_SUCCESS;
}

}  // extern "C"
