// Direct exchange among few members (direct.h says when and why).
#include "direct.h"

#include <algorithm>

#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll::detail {

namespace {

// Posts a receive from every other member v (into in_of(v), in_bytes(v) long), then a send
// to every other member v (out_of(v), out_bytes(v) long), and waits for all. Receives first,
// so every message finds its receive posted; both ways start at my neighbour to spread the
// load.
template <typename InOf, typename InBytes, typename OutOf, typename OutBytes>
Status exchange_with_all(const Group& g, P2P& p2p, int tg, InOf&& in_of, InBytes&& in_bytes,
                         OutOf&& out_of, OutBytes&& out_bytes) {
  const int n = g.size();
  const int me = g.me();
  Requests reqs(p2p);
  for (int i = 1; i < n; ++i) {
    const int v = (me - i + n) % n;
    if (Status s = reqs.recv(g.rank(v), in_of(v), in_bytes(v), tg); s != Status::ok) return s;
  }
  for (int i = 1; i < n; ++i) {
    const int v = (me + i) % n;
    if (Status s = reqs.send(g.rank(v), out_of(v), out_bytes(v), tg); s != Status::ok) return s;
  }
  return reqs.wait();
}

// The same `bytes` both ways; `out` to everyone.
template <typename InOf>
Status to_and_from_all(const Group& g, P2P& p2p, const unsigned char* out, std::size_t bytes,
                       int tg, InOf&& in_of) {
  auto same = [bytes](int) { return bytes; };
  return exchange_with_all(g, p2p, tg, in_of, same, [out](int) { return out; }, same);
}

}  // namespace

Status direct_barrier(const Group& g, P2P& p2p) {
  // Zero bytes; the P2P layer is given valid addresses all the same.
  unsigned char token_out = 0, token_in = 0;
  return to_and_from_all(g, p2p, &token_out, 0, tag::barrier, [&](int) { return &token_in; });
}

Status direct_allreduce(const Group& g, P2P& p2p, const Reduction& r, unsigned char* result) {
  const int n = g.size();
  const int me = g.me();
  const std::size_t bytes = r.bytes();
  // Member v's input: mine in result, the others' in scratch, in virtual-rank order.
  Scratch in_space(static_cast<std::size_t>(n - 1) * bytes);
  auto x = [&](int v) {
    if (v == me) return result;
    return in_space.data() + static_cast<std::size_t>(v < me ? v : v - 1) * bytes;
  };
  if (Status s = to_and_from_all(g, p2p, result, bytes, tag::allreduce, x); s != Status::ok) {
    return s;
  }
  // Every input is here: combine them as recursive doubling would (the same bits as MPICH's
  // short allreduce), writing into the inputs' buffers (mine included: its sends are done).
  copy_bytes(result, combine_as_doubling(n, r, x), bytes);
  return Status::ok;
}

Status direct_allreduce_long(const Group& g, P2P& p2p, const Reduction& r,
                             const unsigned char* send, unsigned char* result) {
  const int n = g.size();
  const int me = g.me();
  const std::size_t es = r.elem_size;
  // Block v: elements [first(v), first(v + 1)), the first count % n blocks one longer.
  auto first = [&](int v) {
    const auto uv = static_cast<std::size_t>(v);
    return uv * (r.count / n) + std::min(uv, r.count % n);
  };
  auto block_bytes = [&](int v) { return (first(v + 1) - first(v)) * es; };
  const unsigned char* input = send != nullptr ? send : result;
  const std::size_t mine = block_bytes(me);
  unsigned char* my_block = result + first(me) * es;
  // The other members' pieces of my block, in virtual-rank order.
  Scratch in_space(static_cast<std::size_t>(n - 1) * mine);
  auto piece = [&](int v) {
    if (v == me) return my_block;
    return in_space.data() + static_cast<std::size_t>(v < me ? v : v - 1) * mine;
  };
  // Block v of my input to member v; the other members' pieces of my block to me.
  auto mine_bytes = [mine](int) { return mine; };
  auto input_block = [&](int v) { return input + first(v) * es; };
  if (Status s = exchange_with_all(g, p2p, tag::allreduce, piece, mine_bytes, input_block,
                                   block_bytes);
      s != Status::ok) {
    return s;
  }
  // The sends are done, so my block of `result` may now hold my own piece.
  if (send != nullptr) copy_bytes(my_block, send + first(me) * es, mine);
  Reduction part = r;
  part.count = mine / es;
  const unsigned char* combined = combine_as_doubling(n, part, piece);
  if (combined != my_block) copy_bytes(my_block, combined, mine);
  // My combined block to every member; theirs into their places in `result`.
  auto result_block = [&](int v) { return result + first(v) * es; };
  return exchange_with_all(g, p2p, tag::allreduce, result_block, block_bytes,
                           [my_block](int) { return my_block; }, mine_bytes);
}

Status direct_allgather(const Group& g, P2P& p2p, unsigned char* out, std::size_t block) {
  auto slot = [&](int v) { return out + static_cast<std::size_t>(g.rank(v)) * block; };
  return to_and_from_all(g, p2p, slot(g.me()), block, tag::allgather, slot);
}

}  // namespace ftmpi::coll::detail
