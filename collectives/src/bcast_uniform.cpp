// Broadcast in dissemination rounds (the barrier's pattern, barrier.cpp) carrying the root's
// data: in round k every member sends what it holds to the member 2^k ahead and receives from
// the one 2^k behind. After ceil(log2 n) rounds each member has transitively heard from every
// other, the root included, so it holds the root's data; and a member that finished cleanly
// knows that every member entered the broadcast. The binomial tree gives neither (a leaf
// hears from its parent only), which is what ATOMIC mode's settle needs
// (ftmpi/CONSENSUS.md, "Settled collectives"). It sends n*ceil(log2 n) messages instead of
// n - 1, one byte longer each: meant for small data.
#include <ftmpi/coll/scratch.h>

#include "group.h"

namespace ftmpi::coll {

using namespace detail;

Status bcast_from_everyone(const View& view, P2P& p2p, void* buf, std::size_t bytes, int root) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  if (g.vrank_of(root) < 0) return Status::invalid;
  const int n = g.size();
  const int me = g.me();
  // A message is one byte "holds the root's data" and then the data (meaningless without it).
  // `have` is sent as it stood before the round: a received copy goes to `in` first.
  Scratch have(bytes + 1), in(bytes + 1);
  unsigned char* const mine = have.data();
  mine[0] = g.rank(me) == root ? 1 : 0;
  if (mine[0] != 0) copy_bytes(mine + 1, buf, bytes);
  for (int dist = 1; dist < n; dist <<= 1) {
    Status s = exchange(p2p, g.rank((me + dist) % n), mine, bytes + 1, g.rank((me - dist + n) % n),
                        in.data(), bytes + 1, tag::bcast);
    if (s != Status::ok) return s;
    if (mine[0] == 0 && in.data()[0] != 0) copy_bytes(mine, in.data(), bytes + 1);
  }
  // Unreachable unless the members disagree on the root (an erroneous program).
  if (mine[0] == 0) return Status::invalid;
  if (g.rank(me) != root) copy_bytes(buf, mine + 1, bytes);
  return Status::ok;
}

}  // namespace ftmpi::coll
