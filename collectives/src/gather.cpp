// Gather and gatherv.
// gather: a binomial tree for short blocks, where log2(n) message latencies beat n-1 of them,
// and a linear gather for long blocks, where the tree's extra copies through intermediate
// members cost more than the latency it saves (threshold FTMPI_COLL_GATHER_LARGE).
// gatherv is linear: block sizes differ per member, so a subtree's data is not one
// predictable span, and the root has to post n-1 receives anyway.
#include "ftmpi/coll/tuning.h"
#include "group.h"
#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll {

using namespace detail;

namespace {

Status gather_linear(const Group& g, P2P& p2p, const unsigned char* mine, std::size_t block,
                     unsigned char* recvbuf, int root_v) {
  if (g.me() != root_v) return p2p.send(g.rank(root_v), mine, block, tag::gather);
  Requests reqs(p2p);
  for (int v = 0; v < g.size(); ++v) {
    if (v == root_v) continue;
    const int c = g.rank(v);
    if (Status s = reqs.recv(c, recvbuf + c * block, block, tag::gather); s != Status::ok) {
      return s;
    }
  }
  copy_bytes(recvbuf + g.rank(root_v) * block, mine, block);
  return reqs.wait();
}

// Each member collects the blocks of its subtree [rel, rel + sub) in relative order and
// sends them up as one message.
Status gather_binomial(const Group& g, P2P& p2p, const unsigned char* mine, std::size_t block,
                       unsigned char* recvbuf, int root_v) {
  const int n = g.size();
  const int rel = (g.me() - root_v + n) % n;
  auto rank_of_rel = [&](int x) { return g.rank((x + root_v) % n); };
  int low = 1;  // lowest set bit of rel: the size of my subtree before clipping at n
  while (low < n && !(rel & low)) low <<= 1;
  const int sub = std::min(low, n - rel);

  if (sub == 1) return p2p.send(rank_of_rel(rel - low), mine, block, tag::gather);

  // With members 0..n-1 rooted at 0 the relative order is the slot order, so the root can
  // collect straight into recvbuf.
  const bool direct = rel == 0 && root_v == 0 && g.dense();
  Scratch space(direct ? 0 : static_cast<std::size_t>(sub) * block);
  unsigned char* buf = direct ? recvbuf : space.data();
  copy_bytes(buf, mine, block);
  {
    Requests reqs(p2p);
    for (int mask = 1; mask < low && rel + mask < n; mask <<= 1) {
      const int child = rel + mask;
      const std::size_t len = static_cast<std::size_t>(std::min(mask, n - child)) * block;
      Status s = reqs.recv(rank_of_rel(child), buf + mask * block, len, tag::gather);
      if (s != Status::ok) return s;
    }
    if (Status s = reqs.wait(); s != Status::ok) return s;
  }
  if (rel != 0) {
    return p2p.send(rank_of_rel(rel - low), buf, static_cast<std::size_t>(sub) * block,
                    tag::gather);
  }
  if (!direct) {
    for (int x = 0; x < n; ++x) copy_bytes(recvbuf + rank_of_rel(x) * block, buf + x * block, block);
  }
  return Status::ok;
}

}  // namespace

Status gather(const View& view, P2P& p2p, const void* sendbuf, std::size_t block, void* recvbuf,
              int root) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const int root_v = g.vrank_of(root);
  if (root_v < 0) return Status::invalid;
  const bool i_am_root = g.me() == root_v;
  if (is_in_place(sendbuf) && !i_am_root) return Status::invalid;
  auto* out = bytes_of(recvbuf);
  // In place, the root's block already sits in its slot; reading it from there keeps
  // both algorithms free of a special case.
  const unsigned char* mine =
      is_in_place(sendbuf) ? out + static_cast<std::size_t>(root) * block : bytes_of(sendbuf);
  if (block == 0) return Status::ok;
  if (g.size() == 1) {
    copy_bytes(out + static_cast<std::size_t>(root) * block, mine, block);
    return Status::ok;
  }
  if (block >= tuning().gather_large) return gather_linear(g, p2p, mine, block, out, root_v);
  return gather_binomial(g, p2p, mine, block, out, root_v);
}

Status gatherv(const View& view, P2P& p2p, const void* sendbuf, std::size_t sendbytes,
               void* recvbuf, const std::size_t* recvcounts, const std::size_t* displs,
               int root) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const int root_v = g.vrank_of(root);
  if (root_v < 0) return Status::invalid;
  if (g.me() != root_v) {
    if (is_in_place(sendbuf)) return Status::invalid;
    if (sendbytes == 0) return Status::ok;  // the root skips a zero count just the same
    return p2p.send(root, sendbuf, sendbytes, tag::gatherv);
  }
  auto* out = bytes_of(recvbuf);
  if (!is_in_place(sendbuf)) {
    if (sendbytes > recvcounts[root]) return Status::truncated;
    copy_bytes(out + displs[root], sendbuf, sendbytes);
  }
  Requests reqs(p2p);
  for (int v = 0; v < g.size(); ++v) {
    const int c = g.rank(v);
    if (v == root_v || recvcounts[c] == 0) continue;
    if (Status s = reqs.recv(c, out + displs[c], recvcounts[c], tag::gatherv); s != Status::ok) {
      return s;
    }
  }
  return reqs.wait();
}

}  // namespace ftmpi::coll
