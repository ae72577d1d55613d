// Dissemination barrier (Hensgen, Finkel, Manber): in round k every member signals the member
// 2^k ahead and waits for the one 2^k behind, so after ceil(log2 n) rounds each member has
// transitively heard from all others. Works for any n, unlike pairwise recursive doubling.
// From 3 to FTMPI_COLL_BARRIER_FAN members: a fan-in/fan-out through the first member instead
// (fan.h: one wait per member instead of ceil(log2 n)).
#include "fan.h"
#include "ftmpi/coll/tuning.h"
#include "group.h"

namespace ftmpi::coll {

using namespace detail;

Status barrier(const View& view, P2P& p2p) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const int n = g.size();
  const int me = g.me();
  if (n == 1) return Status::ok;
  // Two members: one exchange is a single message latency, the fan two in a row.
  if (n >= 3 && static_cast<std::size_t>(n) <= tuning().barrier_fan) return fan_barrier(g, p2p);
  // Zero-byte messages; the P2P layer is given a valid address all the same.
  unsigned char token_out = 0, token_in = 0;
  for (int dist = 1; dist < n; dist <<= 1) {
    Requests reqs(p2p);
    Status s = reqs.recv(g.rank((me - dist + n) % n), &token_in, 0, tag::barrier);
    if (s == Status::ok) s = reqs.send(g.rank((me + dist) % n), &token_out, 0, tag::barrier);
    if (s == Status::ok) s = reqs.wait();
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

}  // namespace ftmpi::coll
