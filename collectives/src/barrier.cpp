// Barrier. Up to FTMPI_COLL_DIRECT_MEMBERS (4) members, every member messages every other one
// directly and waits once for all of them; from there up to FTMPI_COLL_BARRIER_FAN (8) a
// fan-in/fan-out through the first member (fan.h); above, dissemination (Hensgen, Finkel,
// Manber): in round k every member signals the member 2^k ahead and waits for the one 2^k
// behind, so after ceil(log2 n) rounds each member has transitively heard from all others.
//
// Direct for few members (direct.h): the last member to arrive finds every message there and
// leaves without waiting, n - 1 waits per barrier against the fan's n (4 ranks on 2 cores:
// 3.0 context switches per barrier against 4.0; Open MPI's linear barrier 4.0).
// Either way a member leaves only after hearing from every member, directly or through the
// first one (what ATOMIC mode's settle relies on).
#include "direct.h"
#include "fan.h"
#include "ftmpi/coll/tuning.h"
#include "group.h"

namespace ftmpi::coll {

using namespace detail;

Status barrier(const View& view, P2P& p2p) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const auto n = static_cast<std::size_t>(g.size());
  if (n == 1) return Status::ok;
  // Two members: one exchange either way; the fan's two hops in a row would be slower.
  if (n == 2 || n <= tuning().direct_members) return direct_barrier(g, p2p);
  if (n <= tuning().barrier_fan) return fan_barrier(g, p2p);
  const int me = g.me();
  const int size = g.size();
  unsigned char token_out = 0, token_in = 0;
  for (int dist = 1; dist < size; dist <<= 1) {
    Requests reqs(p2p);
    Status s = reqs.recv(g.rank((me - dist + size) % size), &token_in, 0, tag::barrier);
    if (s == Status::ok) s = reqs.send(g.rank((me + dist) % size), &token_out, 0, tag::barrier);
    if (s == Status::ok) s = reqs.wait();
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

}  // namespace ftmpi::coll
