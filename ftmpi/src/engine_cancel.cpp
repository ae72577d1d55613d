// MPI_Cancel (MPI-1.3 3.8.4). A receive still posted is withdrawn from the transport's matcher.
// A send is cancelled the way MPICH's ch3 does it: the sender asks the receiver to drop the
// message from its unexpected queue, and the receiver answers whether it did (the transport's
// cancel_send). The message is named by its number among our sends to that peer, which the
// engine counts along with the transport (number_send). The outcome is the request's
// completion: cancelled (the receiver never gets the message) or not (it was matched, and is
// received exactly once).
#include "engine.h"

namespace ftmpi {

using transport::Status;

void Engine::cancel(Request* r) {
  if (r->internal) return;
  if (r->kind == Request::Kind::send) return cancel_send(r);
  if (r->complete || !r->in_transport || r->kind != Request::Kind::recv) return;
  (void)endpoint_->cancel(r);
}

void Engine::cancel_send(Request* r) {
  if (r->cancel_asked || r->comm == nullptr) return;
  // A synchronous send whose ack came was matched: nothing to ask.
  if (r->sync && r->ack == nullptr && r->complete) return;
  const transport::PeerId peer = r->comm->peer_procs()[static_cast<std::size_t>(r->peer)];
  if (is_failed(peer)) return;  // its completion says so already, or will
  r->cancel_asked = true;
  // Still in the transport: its own completion will carry the answer. Finished here: the
  // request waits once more, for a completion of the question itself.
  const bool pending = r->in_transport;
  if (!pending) {
    r->complete = false;
    ++r->parts;
    r->in_transport = true;
    ++pending_sends_;
  }
  Status s = endpoint_->cancel_send(peer, r->message, r, pending);
  if (s != Status::ok && !pending) {  // not asked: the send stands as it was
    r->in_transport = false;
    --pending_sends_;
    finish_part(r, MPI_SUCCESS);
  }
}

}  // namespace ftmpi
