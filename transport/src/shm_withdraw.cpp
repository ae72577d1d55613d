// cancel_send on shm: taking a send back (MPI_Cancel of a send), as MPICH's ch3 does it. The
// sender asks the receiver, on the pair's ordered stream (so the question always arrives
// after the message), to drop its message number seq; the receiver's matcher drops it if it
// still waits unexpected, and the receiver answers with a FIN: kFinWithdrawn (never to be
// received) or kFinKept (a receive matched it). The sender's operation completes with it:
//   - a send not on the stream yet (deferred): dropped here, canceled at once;
//   - a large send waiting for its FIN: the answer (withdrawn), or its FIN, completes it;
//   - a send finished here (a small message copied into the ring, or staged in bulk pages
//     when the ring was full): a withdraw record waits for the answer and completes with it.
#include <cstring>

#include "shm_endpoint.h"

namespace ftmpi::transport {

Status ShmEndpoint::cancel_send(PeerId dst, std::uint32_t message, void* context, bool pending) {
  Peer& p = peers_[dst];
  if (p.failed) {
    if (!pending) {  // the send's own completion would have said so; answer the question
      Completion c;
      c.context = context;
      c.status = Status::peer_failed;
      c.source = dst;
      core_.backlog.push(c);
    }
    return Status::ok;
  }
  Completion taken;       // a staged send's queued completion, taken out for the question's
  bool restore = false;   // record to replace (below)
  if (pending) {
    for (OpRecord* op = p.deferred.head(); op != nullptr; op = op->next) {
      // Not on the stream yet (a large one not even announced): drop it here.
      if (op->kind != OpKind::send || op->seq != message || op->stage != 0) continue;
      p.deferred.remove(op);
      --deferred_count_;
      finish_send(op, Status::canceled);
      return Status::ok;
    }
    // Finished meanwhile (its completion is queued) or being streamed (matched): its
    // completion says ok.
    OpRecord* op = find_pending(dst, OpKind::send, message, 1);
    if (op == nullptr) return Status::ok;
    // Staged in bulk pages from the deferred list: done, its "ok" queued but not yet seen by
    // the caller. That completion would carry no answer, so the question's record takes its
    // place; if it was handed out already, the send stands. Should the question not go out
    // after all, the completion goes back (restore), or the request would never complete.
    if (op->orphaned) {
      if (!core_.backlog.take(context, &taken)) return Status::ok;
      pending = false;
      restore = true;
    }
  }
  if (Status s = connect(dst); s != Status::ok) {
    if (restore) core_.backlog.push(taken);
    return s;
  }
  OpRecord* w = nullptr;
  if (!pending) {  // in place before the question goes: the answer may come while pushing
    w = new_op(core_.pool, OpKind::withdraw, dst, context);
    w->seq = message;
    p.pending.push_back(w);
  }
  const wire::Header h{0, wire::kWithdrawBit | message};
  if (!push_briefly(p, &h, sizeof h, nullptr, 0)) {
    // A receiver that drains nothing for this long would not answer either.
    if (w != nullptr) {
      p.pending.remove(w);
      free_op(w);
    }
    if (restore) core_.backlog.push(taken);
    core_.last_error = "shm: no room on the stream for a withdraw request";
    return Status::error;
  }
  return Status::ok;
}

void ShmEndpoint::on_withdraw(PeerId peer, std::uint32_t seq) {
  if (peer == kAnyPeer) return;  // a sender we cannot name yet cannot be answered
  send_fin(peer, seq, core_.matcher.withdraw(peer, seq) ? wire::kFinWithdrawn : wire::kFinKept);
}

bool ShmEndpoint::on_withdraw_answer(PeerId peer, std::uint32_t seq, bool withdrawn,
                                     Completion* c) {
  OpRecord* staged = find_pending(peer, OpKind::send, seq, 1);
  if (staged != nullptr && staged->orphaned) {
    // A small message staged in bulk pages (completed at once, post_small): withdrawn, no
    // other FIN will come for it, so its pages come back now; kept, its FIN frees them.
    if (withdrawn) {
      peers_[peer].pending.remove(staged);
      free_op(staged);
    }
    staged = nullptr;
  }
  OpRecord* op = find_pending(peer, OpKind::withdraw, seq, 0);
  if (op == nullptr) {
    op = staged;
    // Kept: the receiver matched it and its FIN completes it (or did: op is gone).
    if (op == nullptr || !withdrawn) return false;
  }
  peers_[peer].pending.remove(op);
  *c = Completion{};
  c->context = op->user_context;
  c->source = peer;
  c->status = withdrawn ? Status::canceled : Status::ok;
  free_op(op);
  return true;
}

}  // namespace ftmpi::transport
