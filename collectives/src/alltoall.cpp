// Alltoall and alltoallv. Short blocks: every receive and send posted at once, so the P2P
// layer overlaps them all (MPICH's medium algorithm; starting at my right neighbour spreads
// the load). Long blocks (FTMPI_COLL_ALLTOALL_LARGE): pairwise exchange, one partner per step,
// which bounds outstanding traffic and keeps every member busy; partners are me XOR i when
// n is a power of two (symmetric pairs), me +/- i otherwise.
// Zero-byte blocks are skipped; sender and receiver agree on the size (MPI's rule), so they
// skip the same messages. Both variants share the two schedules through a block layout.
// Uniform blocks of at most kFanBlockMax bytes among more than FTMPI_COLL_DIRECT_MEMBERS (4)
// and up to FTMPI_COLL_ALLTOALL_FAN (8) members go through the first member instead (fan.h:
// 2(n - 1) messages, not n(n - 1), and one wait per member). Among few members all at once
// wins: the last member to arrive finds every block there and never waits, so n - 1 members
// wait per operation, not n (4 ranks on 2 cores: 3.0 context switches per 8 B alltoall
// against the fan's 4.0, tests/bench/coll_switches.c); at 2 members the direct exchange is
// one message each way.
#include <algorithm>

#include "fan.h"
#include "ftmpi/coll/tuning.h"
#include "group.h"
#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll {

using namespace detail;

namespace {

// The first member of the fan moves n^2 blocks through its memory: short blocks only.
constexpr std::size_t kFanBlockMax = 256;

// Where the block for/from communicator rank c lives: uniform blocks (alltoall) need no
// count or displacement arrays, so the call allocates nothing (two vectors of comm_size
// were a tenth of an 8 B alltoall's instructions at 2 ranks).
struct Layout {
  const unsigned char* send;
  const std::size_t* scount;  // nullptr: every block is `block` bytes at c * block
  const std::size_t* sdispl;
  unsigned char* recv;
  const std::size_t* rcount;
  const std::size_t* rdispl;
  std::size_t block = 0;

  std::size_t sbytes(int c) const { return scount ? scount[c] : block; }
  std::size_t rbytes(int c) const { return rcount ? rcount[c] : block; }
  const unsigned char* sblock(int c) const {
    return send + (sdispl ? sdispl[c] : static_cast<std::size_t>(c) * block);
  }
  unsigned char* rblock(int c) const {
    return recv + (rdispl ? rdispl[c] : static_cast<std::size_t>(c) * block);
  }
};

// P2P::all_to_all_sends for a scope (its early returns included).
struct AllToAllSends {
  explicit AllToAllSends(P2P& p) : p2p(p) { p2p.all_to_all_sends(true); }
  ~AllToAllSends() { p2p.all_to_all_sends(false); }
  AllToAllSends(const AllToAllSends&) = delete;
  AllToAllSends& operator=(const AllToAllSends&) = delete;
  P2P& p2p;
};

Status post_all(const Group& g, P2P& p2p, const Layout& l, int tg) {
  const int n = g.size();
  const int me = g.me();
  Requests reqs(p2p);
  for (int i = 1; i < n; ++i) {
    const int c = g.rank((me - i + n) % n);
    if (l.rbytes(c) == 0) continue;
    if (Status s = reqs.recv(c, l.rblock(c), l.rbytes(c), tg); s != Status::ok) return s;
  }
  {
    AllToAllSends hint(p2p);  // every receive is posted: see P2P::all_to_all_sends
    for (int i = 1; i < n; ++i) {
      const int c = g.rank((me + i) % n);
      if (l.sbytes(c) == 0) continue;
      if (Status s = reqs.send(c, l.sblock(c), l.sbytes(c), tg); s != Status::ok) return s;
    }
  }
  return reqs.wait();
}

Status pairwise(const Group& g, P2P& p2p, const Layout& l, int tg) {
  const int n = g.size();
  const int me = g.me();
  const bool pof2 = (n & (n - 1)) == 0;
  for (int i = 1; i < n; ++i) {
    const int dst = g.rank(pof2 ? (me ^ i) : (me + i) % n);
    const int src = g.rank(pof2 ? (me ^ i) : (me - i + n) % n);
    Status s = exchange(p2p, dst, l.sblock(dst), l.sbytes(dst), src, l.rblock(src),
                        l.rbytes(src), tg);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

Status run(const Group& g, P2P& p2p, const Layout& l, int my_rank, bool long_blocks, int tg) {
  copy_bytes(l.rblock(my_rank), l.sblock(my_rank), l.rbytes(my_rank));
  if (g.size() == 1) return Status::ok;
  return long_blocks ? pairwise(g, p2p, l, tg) : post_all(g, p2p, l, tg);
}

}  // namespace

Status alltoall(const View& view, P2P& p2p, const void* sendbuf, std::size_t block,
                void* recvbuf) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  if (block == 0) return Status::ok;
  const std::size_t total = static_cast<std::size_t>(view.comm_size) * block;
  // In place: send from a copy of recvbuf (only members' slots matter, gaps are never sent).
  Scratch copy(is_in_place(sendbuf) ? total : 0);
  if (is_in_place(sendbuf)) {
    for (int v = 0; v < g.size(); ++v) {
      const std::size_t at = static_cast<std::size_t>(g.rank(v)) * block;
      copy_bytes(copy.data() + at, bytes_of(recvbuf) + at, block);
    }
    sendbuf = copy.data();
  }
  const int n = g.size();
  // Up to FTMPI_COLL_DIRECT_MEMBERS all at once (n - 1 waits among all members: the last to
  // arrive finds its column there), above through the first member (n waits, fewer messages).
  const auto members = static_cast<std::size_t>(n);
  if (n >= 3 && members > tuning().direct_members && members <= tuning().alltoall_fan &&
      block <= kFanBlockMax) {
    return fan_alltoall(g, p2p, bytes_of(sendbuf), bytes_of(recvbuf), block);
  }
  const Layout l{bytes_of(sendbuf), nullptr, nullptr, bytes_of(recvbuf), nullptr, nullptr, block};
  return run(g, p2p, l, view.my_rank, block >= tuning().alltoall_large, tag::alltoall);
}

Status alltoallv(const View& view, P2P& p2p, const void* sendbuf, const std::size_t* sendcounts,
                 const std::size_t* sdispls, void* recvbuf, const std::size_t* recvcounts,
                 const std::size_t* rdispls) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  std::size_t extent = 0;  // bytes of recvbuf the members' blocks span
  std::size_t sent = 0;
  for (int v = 0; v < g.size(); ++v) {
    const int c = g.rank(v);
    extent = std::max(extent, rdispls[c] + recvcounts[c]);
    sent += is_in_place(sendbuf) ? recvcounts[c] : sendcounts[c];
  }
  Scratch copy(is_in_place(sendbuf) ? extent : 0);
  if (is_in_place(sendbuf)) {
    for (int v = 0; v < g.size(); ++v) {
      const int c = g.rank(v);
      copy_bytes(copy.data() + rdispls[c], bytes_of(recvbuf) + rdispls[c], recvcounts[c]);
    }
    sendbuf = copy.data();
    sendcounts = recvcounts;
    sdispls = rdispls;
  }
  const Layout l{bytes_of(sendbuf), sendcounts, sdispls, bytes_of(recvbuf), recvcounts, rdispls, 0};
  // Block sizes differ per member, so each picks its schedule from its own average; the
  // schedules use the same tag and pair the same messages, so mixing them is safe.
  const bool long_blocks = sent / g.size() >= tuning().alltoall_large;
  return run(g, p2p, l, view.my_rank, long_blocks, tag::alltoallv);
}

}  // namespace ftmpi::coll
