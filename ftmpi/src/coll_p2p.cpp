#include "coll_p2p.h"

#include <algorithm>

namespace ftmpi {

void CommP2P::retire_left() {
  for (int id = 0; id < count_; ++id) {
    Request* r = slot(id);
    if (r == nullptr) continue;
    engine_->purge(r, MPI_ERR_OTHER);
    engine_->retire(r);
  }
}

coll::Status CommP2P::track(Err e, Request* r, coll::RequestId* req) {
  if (e != Err::ok) {
    const bool failure = e == Err::other || e == Err::proc_failed || e == Err::revoked;
    return failure ? coll::Status::proc_failed : coll::Status::error;
  }
  *req = static_cast<coll::RequestId>(count_++);
  if (r != nullptr) ++outstanding_;
  if (*req < kInline) {
    inline_[*req] = r;
  } else {
    more_.push_back(r);
  }
  return coll::Status::ok;
}

coll::Status CommP2P::isend(int peer, const void* buf, std::size_t bytes, int tag,
                            coll::RequestId* req) {
  if (failed()) return coll::Status::proc_failed;
  // A small message the transport takes whole at once needs no request (as MPI_Send's,
  // Engine::send_now): its id names an empty slot, which waitall takes as complete. At 2 ranks
  // that is the whole of an 8 B broadcast's root and a reduction's non-root.
  if (engine_->send_now(buf, bytes, peer, tag + tag_offset_, comm_, comm_->coll_context)) {
    return track(Err::ok, nullptr, req);
  }
  Request* r = nullptr;
  Err e = engine_->isend(buf, bytes, peer, tag + tag_offset_, comm_, comm_->coll_context, &r);
  return track(e, r, req);
}

coll::Status CommP2P::irecv(int peer, void* buf, std::size_t bytes, int tag,
                            coll::RequestId* req) {
  if (failed()) return coll::Status::proc_failed;
  // A message already here completes the receive with no request (Engine::irecv's at_once):
  // at 2 ranks that is most of an 8 B broadcast's receiver and of a reduction's root when the
  // other side runs ahead. Its id then names an empty slot, as a send that went at once.
  Request* r = nullptr;
  Engine::Received got;
  Err e = engine_->irecv(buf, bytes, peer, tag + tag_offset_, comm_, comm_->coll_context, &r, &got);
  return track(e, r, req);
}

coll::Status CommP2P::waitall(coll::RequestId* reqs, int n) {
  // Every id handed out went at once (isend) or was waited for: nothing to wait for or retire.
  // (ULFM: they went through, so this step did; see the end.)
  if (outstanding_ == 0) {
    const bool fails = failed() && comm_->comm_mode != FTMPI_COMM_MODE_ULFM;
    return fails ? coll::Status::proc_failed : coll::Status::ok;
  }
  auto all_done = [&] {
    for (int i = 0; i < n; ++i) {
      Request* r = slot(reqs[i]);
      if (r != nullptr && !r->complete) return false;
    }
    return true;
  };
  // Sends that went at once (and receives already in) need no wait and its set-up.
  if (!all_done()) engine_->wait_until([&] { return all_done() || failed(); });
  coll::Status result = coll::Status::ok;
  bool cut_short = false;
  for (int i = 0; i < n; ++i) {
    Request*& r = slot(reqs[i]);
    if (r == nullptr) continue;
    if (!r->complete) {
      engine_->purge(r, MPI_ERR_OTHER);
      cut_short = true;
    }
    if (result == coll::Status::ok && r->error != MPI_SUCCESS) {
      int cls = error_class_of(r->error);
      result = cls == MPI_ERR_TRUNCATE ? coll::Status::truncated : coll::Status::proc_failed;
    }
    engine_->retire(r);
    r = nullptr;
    --outstanding_;
  }
  // FT-MPI modes: an operation pending when the failure became known fails (NOP, SPEC 4.7).
  // ULFM fails only what cannot complete (as Open MPI): a step whose messages all went
  // through succeeded, even if a member died (or a revoke came) meanwhile; the next step
  // refuses to start. A member that had its result in hand used to fail alone while the
  // others succeeded, then ran one collective more than they did and hung (MPICH's
  // ft/revoke_shrink, 1 run in 8).
  if (result == coll::Status::ok && failed() &&
      (cut_short || comm_->comm_mode != FTMPI_COMM_MODE_ULFM)) {
    result = coll::Status::proc_failed;
  }
  return result;
}

}  // namespace ftmpi
