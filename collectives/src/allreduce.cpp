// Allreduce, two algorithms (threshold in tuning.h), and for short data among 3 to
// FTMPI_COLL_DIRECT_MEMBERS members every member to every other (direct.h), from there to
// FTMPI_COLL_ALLREDUCE_FAN members a fan-in/fan-out through the first member (fan.h):
// - recursive doubling: log2(n) exchanges of the whole vector; short messages, and every
//   non-commutative operation (partners always hold adjacent rank ranges, so combining the
//   lower range first keeps rank order);
// - Rabenseifner: recursive-halving reduce-scatter then recursive-doubling allgather, each
//   member moving ~2x the vector in total; long messages with a commutative operation;
//   up to FTMPI_COLL_ALLREDUCE_DIRECT (0: opt-in, tuning.cpp says why) both halves go all
//   at once (direct.h: 2 waits instead of 2 log2(n)).
// Both handle n that is not a power of two the same way (MPICH, Thakur et al. 2005): of the
// first 2*rem members (rem = n - pof2), each even one hands its vector to its odd neighbour
// and sits out; the pof2 remaining members run the algorithm; the odd ones hand the result
// back. Member pairs keep rank order, so the fix-up is valid for non-commutative operations.
#include <algorithm>
#include <utility>
#include <vector>

#include "direct.h"
#include "fan.h"
#include "ftmpi/coll/tuning.h"
#include "group.h"
#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll {

using namespace detail;

namespace {

// Rank arithmetic of the fix-up: the member that plays "new rank" k among pof2.
struct Folded {
  const Group& g;
  int pof2;
  int rem;
  int newrank;  // -1 when I sit out
  int member_of(int newr) const { return g.rank(newr < rem ? newr * 2 + 1 : newr + rem); }
};

// Before the algorithm: even members of the first 2*rem give their vector to the odd one.
Status fold_in(const Group& g, P2P& p2p, const Reduction& r, unsigned char* acc,
               unsigned char* tmp, Folded* f) {
  const int n = g.size();
  const int me = g.me();
  f->pof2 = floor_pow2(n);
  f->rem = n - f->pof2;
  if (me < 2 * f->rem) {
    if (me % 2 == 0) {
      f->newrank = -1;
      return p2p.send(g.rank(me + 1), acc, r.bytes(), tag::allreduce);
    }
    f->newrank = me / 2;
    Status s = p2p.recv(g.rank(me - 1), tmp, r.bytes(), tag::allreduce);
    if (s != Status::ok) return s;
    r.combine(tmp, acc, r.count);  // acc = left neighbour op mine
    return Status::ok;
  }
  f->newrank = me - f->rem;
  return Status::ok;
}

// After the algorithm: the odd members hand the result back to the even ones.
Status fold_out(const Group& g, P2P& p2p, const Reduction& r, unsigned char* acc,
                const Folded& f) {
  const int me = g.me();
  if (me >= 2 * f.rem) return Status::ok;
  if (me % 2 == 1) return p2p.send(g.rank(me - 1), acc, r.bytes(), tag::allreduce);
  return p2p.recv(g.rank(me + 1), acc, r.bytes(), tag::allreduce);
}

Status recursive_doubling(const Group& g, P2P& p2p, const Reduction& r, unsigned char* result) {
  const std::size_t bytes = r.bytes();
  Scratch tmp_space(bytes), alt_space(bytes);
  unsigned char* acc = result;
  unsigned char* tmp = tmp_space.data();
  Folded f{g, 0, 0, -1};
  if (Status s = fold_in(g, p2p, r, acc, tmp, &f); s != Status::ok) return s;
  if (f.newrank >= 0) {
    // A non-commutative combine writes into the partner's buffer; swapping with a third
    // buffer avoids copying back, and the result is copied once at the end if needed.
    unsigned char* spare = alt_space.data();
    for (int mask = 1; mask < f.pof2; mask <<= 1) {
      const int partner_new = f.newrank ^ mask;
      const int partner = f.member_of(partner_new);
      Status s = exchange(p2p, partner, acc, bytes, partner, tmp, bytes, tag::allreduce);
      if (s != Status::ok) return s;
      if (partner_new < f.newrank) {
        r.combine(tmp, acc, r.count);  // acc = lower op mine
      } else {
        // Lower range first on both partners, so both compute bit-identical results even
        // for a user operation that is only approximately commutative.
        r.combine(acc, tmp, r.count);  // tmp = mine op higher
        std::swap(acc, tmp);
        if (tmp == result) std::swap(tmp, spare);  // never receive into the result's home
      }
    }
    if (acc != result) copy_bytes(result, acc, bytes);
  }
  return fold_out(g, p2p, r, result, f);
}

// `send`: the caller's input when it is not in `acc` yet (nullptr when it is). Only when the
// member count is a power of two (no fold-in, which needs the whole vector in acc): the first
// halving step then sends the given-away half straight from `send` and copies only the kept
// half, so 1/2 instead of all of the vector is copied.
Status rabenseifner(const Group& g, P2P& p2p, const Reduction& r, const unsigned char* send,
                    unsigned char* acc) {
  const std::size_t es = r.elem_size;
  Scratch tmp_space(r.bytes());
  unsigned char* tmp = tmp_space.data();
  Folded f{g, 0, 0, -1};
  if (Status s = fold_in(g, p2p, r, acc, tmp, &f); s != Status::ok) return s;
  if (f.newrank >= 0) {
    const int pof2 = f.pof2;
    // The vector as pof2 blocks of nearly equal element counts.
    std::vector<std::size_t> cnts(pof2), disps(pof2 + 1);
    for (int i = 0; i < pof2; ++i) {
      cnts[i] = r.count / pof2 + (static_cast<std::size_t>(i) < r.count % pof2 ? 1 : 0);
      disps[i + 1] = disps[i] + cnts[i];
    }
    auto span = [&](int lo, int hi) { return (disps[hi] - disps[lo]) * es; };

    // Reduce-scatter by recursive halving: each step keeps half of the current range and
    // gives the partner the other half (MPICH's index bookkeeping).
    int send_idx = 0, recv_idx = 0, last_idx = pof2;
    int mask = 1;
    for (; mask < pof2;) {
      const int partner_new = f.newrank ^ mask;
      const int partner = f.member_of(partner_new);
      std::size_t send_bytes, recv_bytes;
      if (f.newrank < partner_new) {
        send_idx = recv_idx + pof2 / (mask * 2);
        send_bytes = span(send_idx, last_idx);
        recv_bytes = span(recv_idx, send_idx);
      } else {
        recv_idx = send_idx + pof2 / (mask * 2);
        send_bytes = span(send_idx, recv_idx);
        recv_bytes = span(recv_idx, last_idx);
      }
      const unsigned char* from = send != nullptr ? send : acc;
      Status s = exchange(p2p, partner, from + disps[send_idx] * es, send_bytes, partner,
                          tmp + disps[recv_idx] * es, recv_bytes, tag::allreduce);
      if (s != Status::ok) return s;
      unsigned char* mine = acc + disps[recv_idx] * es;
      const unsigned char* theirs = tmp + disps[recv_idx] * es;
      if (send != nullptr) {
        // Copy and combine piece by piece, so each piece is combined while still in cache.
        const std::size_t piece = std::max<std::size_t>(1, (32 << 10) / es) * es;
        for (std::size_t off = 0; off < recv_bytes; off += piece) {
          const std::size_t len = std::min(piece, recv_bytes - off);
          copy_bytes(mine + off, send + disps[recv_idx] * es + off, len);
          r.combine(theirs + off, mine + off, len / es);
        }
        send = nullptr;
      } else {
        r.combine(theirs, mine, recv_bytes / es);
      }
      send_idx = recv_idx;
      mask <<= 1;
      if (mask < pof2) last_idx = recv_idx + pof2 / mask;
    }

    // Allgather by recursive doubling, retracing the halving steps in reverse.
    for (mask >>= 1; mask > 0; mask >>= 1) {
      const int partner_new = f.newrank ^ mask;
      const int partner = f.member_of(partner_new);
      std::size_t send_bytes, recv_bytes;
      if (f.newrank < partner_new) {
        if (mask != pof2 / 2) last_idx += pof2 / (mask * 2);
        recv_idx = send_idx + pof2 / (mask * 2);
        send_bytes = span(send_idx, recv_idx);
        recv_bytes = span(recv_idx, last_idx);
      } else {
        recv_idx = send_idx - pof2 / (mask * 2);
        send_bytes = span(send_idx, last_idx);
        recv_bytes = span(recv_idx, send_idx);
      }
      Status s = exchange(p2p, partner, acc + disps[send_idx] * es, send_bytes, partner,
                          acc + disps[recv_idx] * es, recv_bytes, tag::allreduce);
      if (s != Status::ok) return s;
      if (f.newrank > partner_new) send_idx = recv_idx;
    }
  }
  return fold_out(g, p2p, r, acc, f);
}

}  // namespace

Status allreduce(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf,
                 const Reduction& r) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  auto* result = bytes_of(recvbuf);
  const int n = g.size();
  // Rabenseifner needs at least one element per block of the halving.
  const bool large = n > 1 && r.commutative && r.bytes() >= tuning().allreduce_large &&
                     r.count >= static_cast<std::size_t>(floor_pow2(n));
  // Ranks sharing cores: the same bytes in two waits instead of 2 log2(n) (direct.h).
  if (large && n >= 3 && r.bytes() <= tuning().allreduce_direct &&
      r.count >= static_cast<std::size_t>(n)) {
    return direct_allreduce_long(g, p2p, r, is_in_place(sendbuf) ? nullptr : bytes_of(sendbuf),
                                 result);
  }
  if (large && n == floor_pow2(n) && !is_in_place(sendbuf)) {
    return rabenseifner(g, p2p, r, bytes_of(sendbuf), result);
  }
  if (!is_in_place(sendbuf)) copy_bytes(result, sendbuf, r.bytes());
  if (n == 1 || r.bytes() == 0) return Status::ok;
  if (large) return rabenseifner(g, p2p, r, nullptr, result);
  // Short data among 3 to DIRECT_MEMBERS members: every member to every other (direct.h);
  // from there to ALLREDUCE_FAN: fan-in/fan-out (fan.h). At 2 members recursive doubling's
  // one exchange is what direct would do, and a single message latency where the fan has two
  // in a row. Their scratch holds n - 1 vectors, so they stay below the long-message threshold
  // whatever the operation.
  const auto members = static_cast<std::size_t>(n);
  if (n >= 3 && r.bytes() < tuning().allreduce_large) {
    if (members <= tuning().direct_members) return direct_allreduce(g, p2p, r, result);
    if (members <= tuning().allreduce_fan) return fan_allreduce(g, p2p, r, result);
  }
  return recursive_doubling(g, p2p, r, result);
}

}  // namespace ftmpi::coll
