// Inclusive scan by recursive doubling (MPICH): in step k a member exchanges its running
// total of the aligned group of 2^k members with the neighbouring group. Results from a lower
// group are folded into both the running total and my prefix; from a higher group only into
// the total. Groups are contiguous rank ranges, so placing the lower operand first keeps a
// non-commutative operation in rank order. ceil(log2 n) steps for any n.
#include <utility>

#include "group.h"
#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll {

using namespace detail;

Status scan(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf, const Reduction& r) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  const std::size_t bytes = r.bytes();
  auto* prefix = bytes_of(recvbuf);
  if (!is_in_place(sendbuf)) copy_bytes(prefix, sendbuf, bytes);
  const int n = g.size();
  const int me = g.me();
  if (n == 1 || bytes == 0) return Status::ok;

  Scratch total_space(bytes), tmp_space(bytes);
  unsigned char* total = total_space.data();  // my group's reduction so far
  unsigned char* tmp = tmp_space.data();
  copy_bytes(total, prefix, bytes);
  for (int mask = 1; mask < n; mask <<= 1) {
    const int partner = me ^ mask;
    if (partner >= n) continue;
    const int peer = g.rank(partner);
    Status s = exchange(p2p, peer, total, bytes, peer, tmp, bytes, tag::scan);
    if (s != Status::ok) return s;
    if (partner < me) {
      r.combine(tmp, prefix, r.count);  // prefix = lower op prefix
      r.combine(tmp, total, r.count);   // total  = lower op total
    } else if (r.commutative) {
      r.combine(tmp, total, r.count);
    } else {
      r.combine(total, tmp, r.count);  // tmp = total op higher
      std::swap(total, tmp);
    }
  }
  return Status::ok;
}

}  // namespace ftmpi::coll
