// Scatter and scatterv, mirrors of gather and gatherv: a binomial tree for short blocks
// (FTMPI_COLL_SCATTER_LARGE), linear sends from the root otherwise; scatterv is linear.
#include "ftmpi/coll/tuning.h"
#include "group.h"
#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll {

using namespace detail;

namespace {

// `mine` is nullptr at a root scattering in place.
Status scatter_linear(const Group& g, P2P& p2p, const unsigned char* sendbuf, std::size_t block,
                      unsigned char* mine, int root_v) {
  if (g.me() != root_v) return p2p.recv(g.rank(root_v), mine, block, tag::scatter);
  Requests reqs(p2p);
  for (int v = 0; v < g.size(); ++v) {
    if (v == root_v) continue;
    const int c = g.rank(v);
    if (Status s = reqs.send(c, sendbuf + c * block, block, tag::scatter); s != Status::ok) {
      return s;
    }
  }
  if (mine != nullptr) copy_bytes(mine, sendbuf + g.rank(root_v) * block, block);
  return reqs.wait();
}

// A member receives the blocks of its subtree [rel, rel + sub) in relative order from its
// parent and passes each child's part on.
Status scatter_binomial(const Group& g, P2P& p2p, const unsigned char* sendbuf,
                        std::size_t block, unsigned char* mine, int root_v) {
  const int n = g.size();
  const int rel = (g.me() - root_v + n) % n;
  auto rank_of_rel = [&](int x) { return g.rank((x + root_v) % n); };
  int low = 1;
  while (low < n && !(rel & low)) low <<= 1;
  const int sub = std::min(low, n - rel);

  if (sub == 1) return p2p.recv(rank_of_rel(rel - low), mine, block, tag::scatter);

  // The root of a dense group rooted at 0 sends straight out of sendbuf; any other root
  // first arranges the slots in relative order.
  const bool direct = rel == 0 && root_v == 0 && g.dense();
  Scratch space(direct ? 0 : static_cast<std::size_t>(sub) * block);
  const unsigned char* buf = direct ? sendbuf : space.data();
  if (rel == 0) {
    if (!direct) {
      for (int x = 0; x < n; ++x)
        copy_bytes(space.data() + x * block, sendbuf + rank_of_rel(x) * block, block);
    }
  } else {
    Status s = p2p.recv(rank_of_rel(rel - low), space.data(),
                        static_cast<std::size_t>(sub) * block, tag::scatter);
    if (s != Status::ok) return s;
  }
  Requests reqs(p2p);
  for (int mask = low >> 1; mask > 0; mask >>= 1) {
    const int child = rel + mask;
    if (child >= n) continue;
    const std::size_t len = static_cast<std::size_t>(std::min(mask, n - child)) * block;
    if (Status s = reqs.send(rank_of_rel(child), buf + mask * block, len, tag::scatter);
        s != Status::ok) {
      return s;
    }
  }
  if (mine != nullptr) copy_bytes(mine, buf, block);  // nullptr: root in place
  return reqs.wait();
}

}  // namespace

Status scatter(const View& view, P2P& p2p, const void* sendbuf, std::size_t block,
               void* recvbuf, int root) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const int root_v = g.vrank_of(root);
  if (root_v < 0) return Status::invalid;
  const bool i_am_root = g.me() == root_v;
  if (is_in_place(recvbuf) && !i_am_root) return Status::invalid;
  // In place, the root's own block stays in sendbuf: nothing to copy for it.
  unsigned char* mine = is_in_place(recvbuf) ? nullptr : bytes_of(recvbuf);
  const auto* in = bytes_of(sendbuf);
  if (block == 0) return Status::ok;
  if (g.size() == 1) {
    if (mine != nullptr) copy_bytes(mine, in + static_cast<std::size_t>(root) * block, block);
    return Status::ok;
  }
  if (block >= tuning().scatter_large) return scatter_linear(g, p2p, in, block, mine, root_v);
  return scatter_binomial(g, p2p, in, block, mine, root_v);
}

Status scatterv(const View& view, P2P& p2p, const void* sendbuf, const std::size_t* sendcounts,
                const std::size_t* displs, void* recvbuf, std::size_t recvbytes, int root) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const int root_v = g.vrank_of(root);
  if (root_v < 0) return Status::invalid;
  if (g.me() != root_v) {
    if (is_in_place(recvbuf)) return Status::invalid;
    if (recvbytes == 0) return Status::ok;  // the root skips a zero count just the same
    return p2p.recv(root, recvbuf, recvbytes, tag::scatterv);
  }
  const auto* in = bytes_of(sendbuf);
  if (!is_in_place(recvbuf)) {
    if (sendcounts[root] > recvbytes) return Status::truncated;
    copy_bytes(recvbuf, in + displs[root], sendcounts[root]);
  }
  Requests reqs(p2p);
  for (int v = 0; v < g.size(); ++v) {
    const int c = g.rank(v);
    if (v == root_v || sendcounts[c] == 0) continue;
    if (Status s = reqs.send(c, in + displs[c], sendcounts[c], tag::scatterv); s != Status::ok) {
      return s;
    }
  }
  return reqs.wait();
}

}  // namespace ftmpi::coll
