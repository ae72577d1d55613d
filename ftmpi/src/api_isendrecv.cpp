// C API: MPI-4's nonblocking MPI_Sendrecv and MPI_Sendrecv_replace (MPI-4.0 3.10). The request
// is a pair (Request::Kind::pair) of a receive and a send started by MPI_Irecv and MPI_Isend
// themselves, so each half starts, fails and is purged exactly as those calls' requests do
// (MPI_PROC_NULL, a ULFM failure known at the start, a revoke, a FT-MPI purge); the pair is
// complete when both are, and every Wait/Test form sees it through request_done. MPI_Cancel
// cancels both parts (MPI-4.0 3.8.4: the pair is cancellable as its parts are).
#include <cstdint>
#include <vector>

#include "api_request.h"
#include "p2p_checks.h"

using namespace ftmpi;
using namespace ftmpi::p2p;

namespace {

// Starts the pair. The send half was checked by the caller, so only a failure noticed between
// the check and the start can refuse it; the receive, posted first as in MPI_Sendrecv (two
// ranks exchanging large messages must not wait on each other), is then withdrawn. `copy`:
// MPI_Isendrecv_replace's packed send data, which the pair keeps until the send is done.
int start_pair(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
               void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
               Comm* comm, MPI_Comm handle, std::vector<std::uint8_t>* copy, MPI_Request* request) {
  HeldHandlers held;  // the parts' errors come back as codes; this call raises the one it reports
  MPI_Request parts[2];
  int rc = MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, handle, &parts[0]);
  if (rc != MPI_SUCCESS) return rc;
  RequestPool& pool = lib().engine.requests();
  Request* p = pool.allocate(Request::Kind::pair);
  if (copy != nullptr) {
    p->owned = std::move(*copy);
    sendbuf = p->owned.data();
  }
  rc = MPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, handle, &parts[1]);
  if (rc != MPI_SUCCESS) {
    pool.release(p);
    (void)MPI_Cancel(&parts[0]);
    (void)MPI_Wait(&parts[0], MPI_STATUS_IGNORE);
    return rc;
  }
  p->comm = comm;
  lib().construct.hold_for(p);  // as its parts do: pair_done names it after retiring them
  p->peer = source;
  p->pair.recv = pool.find(parts[0]);
  p->pair.send = pool.find(parts[1]);
  *request = p->handle;
  return MPI_SUCCESS;
}

}  // namespace

namespace ftmpi {

bool pair_done(Request* p) {
  Request* recv = p->pair.recv;
  Request* send = p->pair.send;
  if (!request_done(send) || !request_done(recv)) return false;
  // A ULFM wildcard receive blocked by an unacknowledged failure: the pair is "done" in that
  // sense only, and request_finish reports MPIX_ERR_PROC_FAILED_PENDING, keeping it pending.
  if (!recv->complete) return true;
  MPI_Request h = recv->handle;
  MPI_Status st;
  const int recv_error = retire(recv, &st, &h);  // unpacks a staged receive
  p->source = st.MPI_SOURCE;
  p->tag = st.MPI_TAG;
  p->bytes = status_bytes(&st);
  p->cancelled = status_cancelled(&st);
  h = send->handle;
  MPI_Status send_st;
  const int send_error = retire(send, &send_st, &h);
  p->error = recv_error != MPI_SUCCESS ? recv_error : send_error;
  // After MPI_Cancel (pair_cancel): cancelled only when neither half happened. A pair whose one
  // half was cancelled and the other done (its peer had matched the send, or had sent to it)
  // is neither cancelled nor complete as asked: an error says which half went.
  const bool recv_cancelled = p->cancelled, send_cancelled = status_cancelled(&send_st);
  p->cancelled = recv_cancelled && send_cancelled;
  if (p->error == MPI_SUCCESS && recv_cancelled != send_cancelled) {
    p->error = to_code(fail(Err::request, "MPI_Isendrecv on %s: MPI_Cancel cancelled its %s, but "
                            "its %s had taken place", p->comm->name.c_str(),
                            recv_cancelled ? "receive" : "send", recv_cancelled ? "send" : "receive"));
  }
  p->pair = {};
  p->complete = true;
  return true;
}

void pair_cancel(Request* p) {
  if (p->complete) return;
  for (Request* part : {p->pair.recv, p->pair.send}) lib().engine.cancel(part);
}

void pair_free(Request* p) {
  Engine& eng = lib().engine;
  // A replace's packed data stays with the send that may still read it.
  if (!p->owned.empty() && !p->pair.send->complete) p->pair.send->owned.swap(p->owned);
  for (Request* part : {p->pair.recv, p->pair.send}) {
    MPI_Request h = part->handle;
    if (part->complete) {
      (void)retire(part, MPI_STATUS_IGNORE, &h);
    } else {
      eng.abandon(part);
    }
  }
  p->pair = {};
  eng.requests().release(p);
}

}  // namespace ftmpi

extern "C" {

int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request* request) {
  Checked c;
  Err e = check_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, &c);
  if (request == nullptr) e = fail(Err::request, "request pointer is NULL");
  if (e != Err::ok && !fails_at_completion(c, e)) return raise(c.comm, e);
  return raise_code(c.comm, start_pair(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                       recvcount, recvtype, source, recvtag, c.comm, comm,
                                       nullptr, request));
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  Checked c;
  Err e = check_recv(buf, count, type, source, recvtag, comm, &c);
  if (e == Err::ok || fails_at_completion(c, e)) {
    Checked s;
    e = check_send(buf, count, type, dest, sendtag, comm, &s);
  }
  if (request == nullptr) e = fail(Err::request, "request pointer is NULL");
  if (e != Err::ok && !fails_at_completion(c, e)) return raise(c.comm, e);
  // The send goes from a packed copy taken now, so the receive may overwrite buf at once.
  std::vector<std::uint8_t> copy = lib().engine.requests().take_buffer(c.bytes);
  if (c.bytes > 0) pack(buf, static_cast<std::size_t>(count), *c.type, copy.data());
  return raise_code(c.comm, start_pair(copy.data(), static_cast<int>(c.bytes), MPI_PACKED, dest,
                                       sendtag, buf, count, type, source, recvtag, c.comm, comm,
                                       &copy, request));
}

}  // extern "C"
