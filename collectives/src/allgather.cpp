// Allgather and allgatherv.
// allgather: Bruck's algorithm for short totals (ceil(log2 n) steps for any n, unlike
// recursive doubling which needs a power of two), a ring for long ones (n-1 steps, but each
// member sends and receives only (n-1)/n of the data once, all links busy; threshold
// FTMPI_COLL_ALLGATHER_LARGE on the gathered total).
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
