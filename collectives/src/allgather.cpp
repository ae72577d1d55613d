// Allgather and allgatherv.
// allgather: Bruck's algorithm for short totals (ceil(log2 n) steps for any n, unlike
// recursive doubling which needs a power of two), a ring for long ones (n-1 steps, but each
// member sends and receives only (n-1)/n of the data once, all links busy; threshold
// FTMPI_COLL_ALLGATHER_LARGE on the gathered total), or with an even number of members and
// blocks up to 128 KiB the neighbour exchange (n / 2 steps, the same bytes).
// Blocks of at most kFanBlockMax bytes among 3 to FTMPI_COLL_DIRECT_MEMBERS members go to every
// member directly (direct.h: n - 1 waits among all members), from there to
// FTMPI_COLL_ALLGATHER_FAN members through the first member (fan.h: one wait per member, not
// ceil(log2 n) dependent rounds).
// Longer blocks up to FTMPI_COLL_ALLGATHER_DIRECT (0 by default: opt-in, tuning.cpp says why)
// go to every member directly too, while the whole operation moves at most kDirectBytesMax.
// allgatherv: ring, writing straight into the members' slots, whatever the block sizes.
#include "direct.h"
#include "fan.h"
#include "ftmpi/coll/tuning.h"
#include "group.h"
#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll {

using namespace detail;

namespace {

// The first member of the fan sends n - 1 answers of n blocks each: short blocks only.
constexpr std::size_t kFanBlockMax = 256;

// All at once, the n (n - 1) blocks of an operation are copied at about the same time (staged
// by their senders, taken by their receivers); beyond a few MiB they no longer stay in cache
// and the ring, one block per member per step, is faster. 8 ranks on 2 cores, per block:
// 64 KiB (3.5 MiB in all) 1024 us all at once against 1462 as a ring; 16 ranks, 4 KiB
// (0.9 MiB) 1102 against 2930; 16 ranks, 32 KiB (7.5 MiB) 5989 against 5041.
constexpr std::size_t kDirectBytesMax = std::size_t{4} << 20;

// After step k (dist = 2^k) buf holds the blocks of vranks me .. me+2*dist-1 (mod n) in that
// order; the last step sends only what the receiver still lacks. Finally the rotated blocks
// go to their slots.
Status allgather_bruck(const Group& g, P2P& p2p, std::size_t block, unsigned char* recvbuf) {
  const int n = g.size();
  const int me = g.me();
  Scratch space(static_cast<std::size_t>(n) * block);
  unsigned char* buf = space.data();
  copy_bytes(buf, recvbuf + static_cast<std::size_t>(g.rank(me)) * block, block);
  for (int dist = 1; dist < n; dist <<= 1) {
    const std::size_t len = static_cast<std::size_t>(std::min(dist, n - dist)) * block;
    Status s = exchange(p2p, g.rank((me - dist + n) % n), buf, len, g.rank((me + dist) % n),
                        buf + dist * block, len, tag::allgather);
    if (s != Status::ok) return s;
  }
  for (int i = 1; i < n; ++i) {
    copy_bytes(recvbuf + static_cast<std::size_t>(g.rank((me + i) % n)) * block,
               buf + i * block, block);
  }
  return Status::ok;
}

// Two members: one exchange between the user's buffers, our own block copied while the peer
// takes its copy (Open MPI's two_procs algorithm does the same). Sending the copy in recvbuf
// instead made the peer wait for that copy and then read freshly written lines from our
// cache: 2 ranks, 64 KiB blocks, 13.8 -> 6.1 us (Open MPI 6.7).
Status allgather_pair(const Group& g, P2P& p2p, const unsigned char* mine,
                      unsigned char* own_slot, std::size_t block, unsigned char* recvbuf) {
  const int peer = g.rank(1 - g.me());
  Requests reqs(p2p);
  Status s = reqs.recv(peer, recvbuf + static_cast<std::size_t>(peer) * block, block,
                       tag::allgather);
  if (s == Status::ok) s = reqs.send(peer, mine, block, tag::allgather);
  if (s != Status::ok) return s;
  copy_bytes(own_slot, mine, block);  // nothing when in place (mine is that slot)
  return reqs.wait();
}

// Step i passes on to the right the block received from the left in step i-1.
template <class Offset, class Length>
Status ring(const Group& g, P2P& p2p, unsigned char* recvbuf, Offset offset, Length length,
            int tg) {
  const int n = g.size();
  const int me = g.me();
  const int left = g.rank((me - 1 + n) % n);
  const int right = g.rank((me + 1) % n);
  for (int i = 0; i < n - 1; ++i) {
    const int out = g.rank((me - i + n) % n);
    const int in = g.rank((me - i - 1 + n) % n);
    Status s = exchange(p2p, right, recvbuf + offset(out), length(out), left,
                        recvbuf + offset(in), length(in), tg);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

// Neighbour exchange (Chen et al.; Open MPI's neighborexchange), even n only: n / 2 steps
// instead of the ring's n - 1, each member exchanging with its left and right neighbour in
// turn. Step 0 swaps blocks within the pair {2k, 2k+1}; from then on each step passes on the
// pair received in the step before and receives the next pair out on that side. Every member
// still moves (n - 1) blocks in and out; what it saves is half of the ring's dependent steps,
// each a hand-over of a core when ranks share cores. Ring against this, 2 cores, collbench
// medians: 64 KiB blocks at 4 ranks 46-57 -> 39-47 us, at 8 ranks 266-312 -> 234-264 (Open
// MPI 254-273; MPI_Iallgather 309-360 -> 245-276, Open MPI 249-262); 128 KiB at 8 ranks
// 578-656 -> 527-530; but 256 KiB at 4 ranks 222-224 -> 232-239, so the ring keeps the
// blocks above kNeighbourBlockMax.
constexpr std::size_t kNeighbourBlockMax = std::size_t{128} << 10;

Status neighbour_exchange(const Group& g, P2P& p2p, unsigned char* recvbuf, std::size_t block, int tg) {
  const int n = g.size();
  const int m = n / 2;  // pairs
  const int me = g.me();
  const bool even = me % 2 == 0;
  auto slot = [&](int v) { return recvbuf + static_cast<std::size_t>(g.rank(v)) * block; };
  const int partner = even ? me + 1 : me - 1;
  if (Status s = exchange(p2p, g.rank(partner), slot(me), block, g.rank(partner), slot(partner), block, tg);
      s != Status::ok) {
    return s;
  }
  int lo = me / 2;  // the pairs held: lo .. hi (mod m)
  int hi = lo;
  int last = lo;  // the pair passed on next
  for (int j = 1; j < m; ++j) {
    const bool left = even == (j % 2 == 1);
    const int peer = g.rank(left ? (me - 1 + n) % n : (me + 1) % n);
    const int next = left ? (lo - 1 + m) % m : (hi + 1) % m;
    Requests reqs(p2p);
    for (int b = 0; b < 2; ++b) {
      if (Status s = reqs.recv(peer, slot(2 * next + b), block, tg); s != Status::ok) return s;
    }
    for (int b = 0; b < 2; ++b) {
      if (Status s = reqs.send(peer, slot(2 * last + b), block, tg); s != Status::ok) return s;
    }
    if (Status s = reqs.wait(); s != Status::ok) return s;
    if (left) {
      lo = next;
    } else {
      hi = next;
    }
    last = next;
  }
  return Status::ok;
}

}  // namespace

Status allgather(const View& view, P2P& p2p, const void* sendbuf, std::size_t block,
                 void* recvbuf) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  auto* out = bytes_of(recvbuf);
  const int n = g.size();
  unsigned char* own_slot = out + static_cast<std::size_t>(view.my_rank) * block;
  const unsigned char* mine = is_in_place(sendbuf) ? own_slot : bytes_of(sendbuf);
  if (n == 2 && block != 0) return allgather_pair(g, p2p, mine, own_slot, block, out);
  copy_bytes(own_slot, mine, block);
  if (n == 1 || block == 0) return Status::ok;
  const Tuning& tune = tuning();
  // Short blocks among 3 to DIRECT_MEMBERS members: every member to every other (direct.h);
  // from there to ALLGATHER_FAN: through the first member (fan.h). At 2 members Bruck's one
  // exchange is what direct would do.
  const auto members = static_cast<std::size_t>(n);
  if (n >= 3 && block <= kFanBlockMax) {
    if (members <= tune.direct_members) return direct_allgather(g, p2p, out, block);
    if (members <= tune.allgather_fan) return fan_allgather(g, p2p, out, block);
  } else if (block <= tune.allgather_direct &&
             members * (members - 1) * block <= kDirectBytesMax) {
    // Longer blocks, when ranks share cores: one wait instead of the ring's n - 1 (or Bruck's
    // log2 n), each a hand-over of a core; every member moves the same bytes as in the ring.
    return direct_allgather(g, p2p, out, block);
  }
  if (static_cast<std::size_t>(n) * block >= tune.allgather_large) {
    if (n % 2 == 0 && n >= 4 && block <= kNeighbourBlockMax) {
      return neighbour_exchange(g, p2p, out, block, tag::allgather);
    }
    return ring(
        g, p2p, out, [block](int c) { return static_cast<std::size_t>(c) * block; },
        [block](int) { return block; }, tag::allgather);
  }
  return allgather_bruck(g, p2p, block, out);
}

Status allgatherv(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf,
                  const std::size_t* counts, const std::size_t* displs) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  auto* out = bytes_of(recvbuf);
  if (!is_in_place(sendbuf)) copy_bytes(out + displs[view.my_rank], sendbuf, counts[view.my_rank]);
  if (g.size() == 1) return Status::ok;
  return ring(
      g, p2p, out, [displs](int c) { return displs[c]; }, [counts](int c) { return counts[c]; },
      tag::allgatherv);
}

}  // namespace ftmpi::coll
