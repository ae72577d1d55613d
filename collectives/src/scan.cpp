// Inclusive scan by recursive doubling (MPICH): in step k a member exchanges its running
// total of the aligned group of 2^k members with the neighbouring group. Results from a lower
// group are folded into both the running total and my prefix; from a higher group only into
// the total. Groups are contiguous rank ranges, so placing the lower operand first keeps a
// non-commutative operation in rank order. ceil(log2 n) steps for any n. The exclusive scan
// (MPI-2 MPI_Exscan) is the same loop without my own contribution in my prefix.
#include <utility>

#include "group.h"
#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll {

using namespace detail;

namespace {

// Both prefixes in one loop. `have`: my prefix already holds something (an exclusive scan's
// first member never gets anything, and MPI leaves its recvbuf undefined).
Status prefix_scan(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf,
                   const Reduction& r, bool inclusive, int msg_tag) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const std::size_t bytes = r.bytes();
  auto* prefix = bytes_of(recvbuf);
  const int n = g.size();
  const int me = g.me();
  if (bytes == 0) return Status::ok;
  if (inclusive && !is_in_place(sendbuf)) copy_bytes(prefix, sendbuf, bytes);
  if (n == 1) return Status::ok;

  Scratch total_space(bytes), tmp_space(bytes);
  unsigned char* total = total_space.data();  // my group's reduction so far
  unsigned char* tmp = tmp_space.data();
  copy_bytes(total, inclusive || is_in_place(sendbuf) ? prefix : sendbuf, bytes);
  bool have = inclusive;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int partner = me ^ mask;
    if (partner >= n) continue;
    const int peer = g.rank(partner);
    Status s = exchange(p2p, peer, total, bytes, peer, tmp, bytes, msg_tag);
    if (s != Status::ok) return s;
    if (partner < me) {
      if (have) {
        r.combine(tmp, prefix, r.count);  // prefix = lower op prefix
      } else {
        copy_bytes(prefix, tmp, bytes);
        have = true;
      }
      r.combine(tmp, total, r.count);  // total = lower op total
    } else if (r.commutative) {
      r.combine(tmp, total, r.count);
    } else {
      r.combine(total, tmp, r.count);  // tmp = total op higher
      std::swap(total, tmp);
    }
  }
  return Status::ok;
}

}  // namespace

Status scan(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf, const Reduction& r) {
  return prefix_scan(view, p2p, sendbuf, recvbuf, r, true, tag::scan);
}

Status exscan(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf, const Reduction& r) {
  return prefix_scan(view, p2p, sendbuf, recvbuf, r, false, tag::exscan);
}

}  // namespace ftmpi::coll
