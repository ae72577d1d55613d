// Broadcast, three algorithms chosen by message size (thresholds in tuning.h):
// - binomial tree: log2(n) steps, the whole message each step; best for short messages;
// - scatter + ring allgather (van de Geijn): the root's data is split into n chunks, scattered
//   down a binomial tree, then circulated around a ring; each member moves ~2x the message
//   instead of log2(n)x, which wins for long messages;
// - segmented chain: the message flows in segments along 0 -> 1 -> ... -> n-1 (relative to the
//   root) with a few segments in flight, so every link is busy at once; for very long ones.
// All three run in root-relative virtual ranks: rel = (vrank - root) mod n.
#include <algorithm>

#include "ftmpi/coll/tuning.h"
#include "group.h"

namespace ftmpi::coll {

using namespace detail;

namespace {

struct Rooted {
  const Group& g;
  int root;  // virtual rank of the root
  int rel;   // my root-relative rank
  int rank_of_rel(int r) const { return g.rank((r + root) % g.size()); }
};

Status bcast_binomial(const Rooted& t, P2P& p2p, unsigned char* buf, std::size_t bytes) {
  const int n = t.g.size();
  int mask = 1;
  while (mask < n) {
    if (t.rel & mask) {
      if (Status s = p2p.recv(t.rank_of_rel(t.rel - mask), buf, bytes, tag::bcast);
          s != Status::ok) {
        return s;
      }
      break;
    }
    mask <<= 1;
  }
  // Children are independent, so their sends are posted together.
  Requests reqs(p2p);
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (t.rel + mask < n) {
      if (Status s = reqs.send(t.rank_of_rel(t.rel + mask), buf, bytes, tag::bcast);
          s != Status::ok) {
        return s;
      }
    }
  }
  return reqs.wait();
}

Status bcast_scatter_ring(const Rooted& t, P2P& p2p, unsigned char* buf, std::size_t bytes) {
  const int n = t.g.size();
  const std::size_t chunk = (bytes + n - 1) / n;
  // Byte range of the chunks [lo, hi) of relative ranks; trailing chunks may be empty.
  auto offset = [&](int r) { return std::min(static_cast<std::size_t>(r) * chunk, bytes); };
  auto length = [&](int lo, int hi) { return offset(std::min(hi, n)) - offset(lo); };

  // Binomial scatter: a member whose lowest set bit is m owns the subtree [rel, rel + m).
  int mask = 1;
  while (mask < n) {
    if (t.rel & mask) {
      std::size_t len = length(t.rel, t.rel + mask);
      if (len > 0) {
        Status s = p2p.recv(t.rank_of_rel(t.rel - mask), buf + offset(t.rel), len, tag::bcast);
        if (s != Status::ok) return s;
      }
      break;
    }
    mask <<= 1;
  }
  {
    Requests reqs(p2p);
    for (mask >>= 1; mask > 0; mask >>= 1) {
      const int child = t.rel + mask;
      if (child >= n) continue;
      std::size_t len = length(child, child + mask);
      if (len == 0) continue;
      Status s = reqs.send(t.rank_of_rel(child), buf + offset(child), len, tag::bcast);
      if (s != Status::ok) return s;
    }
    if (Status s = reqs.wait(); s != Status::ok) return s;
  }

  // Ring allgather of the chunks: in step i pass on the chunk received in step i-1. The root
  // has every chunk already, so the member before it sends it nothing (a 1/n of the traffic).
  const int left = t.rank_of_rel((t.rel - 1 + n) % n);
  const int right = t.rank_of_rel((t.rel + 1) % n);
  const bool to_root = t.rel == n - 1, am_root = t.rel == 0;
  for (int i = 0; i < n - 1; ++i) {
    const int out = (t.rel - i + n) % n;
    const int in = (t.rel - i - 1 + n) % n;
    Status s = exchange(p2p, right, buf + offset(out), to_root ? 0 : length(out, out + 1), left,
                        buf + offset(in), am_root ? 0 : length(in, in + 1), tag::bcast);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

Status bcast_chain(const Rooted& t, P2P& p2p, unsigned char* buf, std::size_t bytes,
                   std::size_t segment) {
  const int n = t.g.size();
  const int prev = t.rel > 0 ? t.rank_of_rel(t.rel - 1) : -1;
  const int next = t.rel + 1 < n ? t.rank_of_rel(t.rel + 1) : -1;
  const std::size_t nseg = (bytes + segment - 1) / segment;
  auto seg_len = [&](std::size_t k) { return std::min(segment, bytes - k * segment); };

  // Segment k uses slot k % kWindow for its receive and its send; receives run up to
  // kWindow segments ahead so the upstream link never waits for us.
  constexpr std::size_t kWindow = 4;
  RequestId recv_req[kWindow], send_req[kWindow];
  bool recv_busy[kWindow] = {}, send_busy[kWindow] = {};
  // Completes whatever is still posted when we leave early (see Requests).
  struct Drain {
    P2P& p2p;
    RequestId* ids[2];
    bool* busy[2];
    ~Drain() {
      for (int j = 0; j < 2; ++j)
        for (std::size_t i = 0; i < kWindow; ++i)
          if (busy[j][i]) (void)p2p.waitall(&ids[j][i], 1);
    }
  } drain{p2p, {recv_req, send_req}, {recv_busy, send_busy}};

  auto wait_slot = [&](RequestId* ids, bool* busy, std::size_t i) {
    busy[i] = false;
    return p2p.waitall(&ids[i], 1);
  };

  if (prev >= 0) {
    for (std::size_t k = 0; k < std::min(kWindow, nseg); ++k) {
      if (Status s = p2p.irecv(prev, buf + k * segment, seg_len(k), tag::bcast, &recv_req[k]);
          s != Status::ok) {
        return s;
      }
      recv_busy[k] = true;
    }
  }
  for (std::size_t k = 0; k < nseg; ++k) {
    const std::size_t slot = k % kWindow;
    if (prev >= 0) {
      if (Status s = wait_slot(recv_req, recv_busy, slot); s != Status::ok) return s;
    }
    if (next >= 0) {
      if (send_busy[slot]) {
        if (Status s = wait_slot(send_req, send_busy, slot); s != Status::ok) return s;
      }
      Status s = p2p.isend(next, buf + k * segment, seg_len(k), tag::bcast, &send_req[slot]);
      if (s != Status::ok) return s;
      send_busy[slot] = true;
    }
    if (prev >= 0 && k + kWindow < nseg) {
      const std::size_t ahead = k + kWindow;
      Status s = p2p.irecv(prev, buf + ahead * segment, seg_len(ahead), tag::bcast,
                           &recv_req[slot]);
      if (s != Status::ok) return s;
      recv_busy[slot] = true;
    }
  }
  for (std::size_t i = 0; i < kWindow; ++i) {
    if (send_busy[i]) {
      if (Status s = wait_slot(send_req, send_busy, i); s != Status::ok) return s;
    }
  }
  return Status::ok;
}

}  // namespace

Status bcast(const View& view, P2P& p2p, void* buf, std::size_t bytes, int root) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const int root_v = g.vrank_of(root);
  if (root_v < 0) return Status::invalid;
  const int n = g.size();
  if (n == 1 || bytes == 0) return Status::ok;
  // With two members every algorithm degenerates to one transfer: a single message, without
  // the tree's bookkeeping (a request list, the thresholds; ~60 instructions of an 8 B call).
  if (n == 2) {
    return g.me() == root_v ? p2p.send(g.rank(1 - root_v), buf, bytes, tag::bcast)
                            : p2p.recv(g.rank(root_v), buf, bytes, tag::bcast);
  }
  const Rooted t{g, root_v, (g.me() - root_v + n) % n};
  auto* b = bytes_of(buf);
  const Tuning& tune = tuning();
  if (bytes < tune.bcast_large) return bcast_binomial(t, p2p, b, bytes);
  if (bytes >= tune.bcast_pipeline) return bcast_chain(t, p2p, b, bytes, tune.bcast_segment);
  return bcast_scatter_ring(t, p2p, b, bytes);
}

}  // namespace ftmpi::coll
