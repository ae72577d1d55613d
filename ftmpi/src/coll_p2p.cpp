#include "coll_p2p.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace ftmpi {

void CommP2P::retire_left() {
  for (int id = 0; id < count_; ++id) {
    Request* r = slot(id);
    if (r == nullptr) continue;
    engine_->purge(r, MPI_ERR_OTHER);
    engine_->retire(r);
  }
}

void CommP2P::view_of(const Comm& comm, coll::View* out) {
  const int n = comm.size();
  out->my_rank = comm.rank;
  out->comm_size = n;
  // Every collective call builds this, so the common case (nobody failed: one memchr) only
  // rewrites the list when its length changed.
  std::vector<int>& m = out->members;
  // A few states are checked inline: memchr is a library call, ~25 instructions on a short
  // vector (callgrind, tests/bench/ft_cost.c).
  const unsigned char* state = comm.proc_state.data();
  const bool none_failed =
      n <= 16 ? std::none_of(state, state + n, [](unsigned char s) { return s == FTMPI_PROC_FAILED; })
              : std::memchr(state, FTMPI_PROC_FAILED, static_cast<std::size_t>(n)) == nullptr;
  if (none_failed) {
    if (m.size() != static_cast<std::size_t>(n) || (n > 0 && m.back() != n - 1)) {
      m.resize(static_cast<std::size_t>(n));
      std::iota(m.begin(), m.end(), 0);
    }
    return;
  }
  m.clear();
  for (int r = 0; r < n; ++r) {
    if (!comm.is_failed(r)) m.push_back(r);
  }
}

coll::Status CommP2P::track(Err e, Request* r, coll::RequestId* req) {
  if (e != Err::ok) {
    const bool failure = e == Err::other || e == Err::proc_failed || e == Err::revoked;
    return failure ? coll::Status::proc_failed : coll::Status::error;
  }
  *req = static_cast<coll::RequestId>(count_++);
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
  Request* r = nullptr;
  Err e = engine_->isend(buf, bytes, peer, tag + tag_offset_, comm_, comm_->coll_context, &r);
  return track(e, r, req);
}

coll::Status CommP2P::irecv(int peer, void* buf, std::size_t bytes, int tag,
                            coll::RequestId* req) {
  if (failed()) return coll::Status::proc_failed;
  Request* r = nullptr;
  Err e = engine_->irecv(buf, bytes, peer, tag + tag_offset_, comm_, comm_->coll_context, &r);
  return track(e, r, req);
}

coll::Status CommP2P::waitall(coll::RequestId* reqs, int n) {
  auto all_done = [&] {
    for (int i = 0; i < n; ++i) {
      Request* r = slot(reqs[i]);
      if (r != nullptr && !r->complete) return false;
    }
    return true;
  };
  engine_->wait_until([&] { return all_done() || failed(); });
  coll::Status result = coll::Status::ok;
  for (int i = 0; i < n; ++i) {
    Request*& r = slot(reqs[i]);
    if (r == nullptr) continue;
    if (!r->complete) engine_->purge(r, MPI_ERR_OTHER);
    if (result == coll::Status::ok && r->error != MPI_SUCCESS) {
      int cls = error_class_of(r->error);
      result = cls == MPI_ERR_TRUNCATE ? coll::Status::truncated : coll::Status::proc_failed;
    }
    engine_->retire(r);
    r = nullptr;
  }
  if (result == coll::Status::ok && failed()) result = coll::Status::proc_failed;
  return result;
}

}  // namespace ftmpi
