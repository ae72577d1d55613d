// Barrier. Up to FTMPI_COLL_DIRECT_MEMBERS (4) members, every member messages every other one
// directly and waits once for all of them; from there up to FTMPI_COLL_BARRIER_FAN (8) a
// fan-in/fan-out through the first member (fan.h); above, dissemination (Hensgen, Finkel,
// Manber): in round k every member signals the member 2^k ahead and waits for the one 2^k
// behind, so after ceil(log2 n) rounds each member has transitively heard from all others.
//
// Why direct for few members: when ranks outnumber cores every wait is a process switched out
// and back in, and that, not the messages, is the cost (tests/bench/coll_switches.c). Through
// the first member every other member always waits for its answer, and the first member waits
// for them: n waits per barrier. Direct, the last member to arrive finds every message there
// and leaves without waiting: n - 1 (4 ranks on 2 cores: 3.0 switches per barrier against the
// fan's 4.0, Open MPI's linear barrier 4.0). Its n(n - 1) messages are what limit it to few.
// Either way a member leaves only after hearing from every member, directly or through the
// first one (what ATOMIC mode's settle relies on).
#include "fan.h"
#include "ftmpi/coll/tuning.h"
#include "group.h"

namespace ftmpi::coll {

using namespace detail;

namespace {

// Zero-byte messages; the P2P layer is given valid addresses all the same. Receives first, so
// every message finds its receive posted; both ways start at my neighbour to spread the load.
Status direct_barrier(const Group& g, P2P& p2p) {
  const int n = g.size();
  const int me = g.me();
  unsigned char token_out = 0, token_in = 0;
  Requests reqs(p2p);
  for (int i = 1; i < n; ++i) {
    if (Status s = reqs.recv(g.rank((me - i + n) % n), &token_in, 0, tag::barrier); s != Status::ok) return s;
  }
  for (int i = 1; i < n; ++i) {
    if (Status s = reqs.send(g.rank((me + i) % n), &token_out, 0, tag::barrier); s != Status::ok) return s;
  }
  return reqs.wait();
}

}  // namespace

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
