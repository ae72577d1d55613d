// Matched probes (MPI-3.1 3.8.2: MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv). A matched
// message leaves the transport's matching the moment it is found (transport::Endpoint::claim),
// so no other receive or probe, of this thread or another, can take it; the receive of it
// (recv_claimed) is an ordinary receive request matched in advance: a small message is copied
// at once, a large one moves by its rendezvous, and the request completes, fails with its
// sender or is purged like any receive. A synchronous send's ack goes out when the receive
// completes (Engine::complete), as for MPI_Recv: the receive, not the probe, has then started.
#include "engine.h"

#include "match_bits.h"

namespace ftmpi {

using transport::Completion;
using transport::Status;

Err Engine::improbe(int source, int tag, Comm* comm, bool* found, Request* out,
                    std::uint64_t* message) {
  Selector sel;
  if (Err e = select(source, tag, comm, comm->context, &sel); e != Err::ok) return e;
  Completion c;
  const Status s = endpoint_->claim(sel.peer, sel.bits, sel.ignore, &c, message);
  *found = s == Status::ok;
  if (s == Status::no_message || s == Status::ok) {
    if (*found) {
      const std::uint32_t proc = match::source_of(c.tag);
      const std::vector<int>& map = comm->peer_rank_of_proc();
      out->source = proc < map.size() ? map[proc] : MPI_ANY_SOURCE;
      out->tag = match::tag_of(c.tag);
      out->bytes = c.message_len;
    }
    return Err::ok;
  }
  note_transport_error(sel.peer, s);
  if (s == Status::peer_failed) {
    return fail_report(failure_err(*comm), "rank %d has failed", source);
  }
  return fail(Err::intern, "matched probe failed: %s", endpoint_->last_error().c_str());
}

Err Engine::mrecv(void* buf, std::size_t bytes, std::uint64_t message, int source, Comm* comm,
                  Request** out) {
  Request* r = requests_.allocate(Request::Kind::recv);
  r->comm = comm;
  r->peer = source;
  if (buf == nullptr && bytes > 0) {
    r->owned = requests_.take_buffer(bytes);
    buf = r->owned.data();
  }
  if (endpoint_->recv_claimed(message, buf, bytes, r) != Status::ok) {
    requests_.release(r);
    return fail(Err::intern, "receiving a matched message failed: %s",
                endpoint_->last_error().c_str());
  }
  r->in_transport = true;
  *out = r;
  return Err::ok;
}

}  // namespace ftmpi
