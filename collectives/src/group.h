// Private helpers shared by the algorithms: the participants in "virtual rank" space, the tags
// each collective uses on the collective context, a request list that is always completed,
// and small inline helpers for byte buffers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "ftmpi/coll/collectives.h"
#include "ftmpi/coll/p2p.h"

namespace ftmpi::coll::detail {

// One tag per collective. The context is private to collectives and MPI orders collectives
// per communicator, so FIFO matching per (source, tag) would already pair messages
// correctly; distinct tags make a protocol slip show up as a hang in one test, not as data
// silently delivered to the wrong collective.
namespace tag {
constexpr int barrier = 1;
constexpr int bcast = 2;
constexpr int reduce = 3;
constexpr int allreduce = 4;
constexpr int reduce_scatter = 5;
constexpr int scan = 6;
constexpr int gather = 7;
constexpr int gatherv = 8;
constexpr int scatter = 9;
constexpr int scatterv = 10;
constexpr int allgather = 11;
constexpr int allgatherv = 12;
constexpr int alltoall = 13;
constexpr int alltoallv = 14;
constexpr int exscan = 15;
}  // namespace tag

// Participants as 0..size()-1 in the order of View::members (ascending communicator ranks),
// so every algorithm is written once for contiguous ranks and a BLANK communicator's gaps
// simply do not exist for it.
class Group {
 public:
  // Status::invalid when the view is empty or my_rank is not one of its members.
  // Inline, as is vrank_of's dense case: every collective call starts here (the two calls
  // were ~60 instructions of an 8 B broadcast; tests/bench/coll_cost.sh 2).
  static Status make(const View& view, Group* out) {
    const std::vector<int>& m = view.members;
    if (m.empty() || view.comm_size <= 0 || m.back() >= view.comm_size || m.front() < 0) {
      return Status::invalid;
    }
    out->members_ = &m;
    out->size_ = static_cast<int>(m.size());
    // Members are ascending and distinct, so n of them ending at n-1 means exactly 0..n-1.
    out->dense_ = out->size_ == view.comm_size && m.back() == out->size_ - 1;
    out->me_ = out->vrank_of(view.my_rank);
    return out->me_ < 0 ? Status::invalid : Status::ok;
  }

  int size() const { return size_; }
  int me() const { return me_; }
  int rank(int vrank) const { return (*members_)[vrank]; }  // communicator rank
  int vrank_of(int comm_rank) const {  // -1 when not a member
    if (dense_) return comm_rank >= 0 && comm_rank < size_ ? comm_rank : -1;
    return sparse_vrank_of(comm_rank);
  }
  // Members are exactly 0..comm_size-1, so virtual and communicator ranks coincide.
  bool dense() const { return dense_; }

 private:
  int sparse_vrank_of(int comm_rank) const;  // a BLANK gap's view: a binary search

  const std::vector<int>* members_ = nullptr;
  int size_ = 0;
  int me_ = -1;
  bool dense_ = false;
};

// Largest power of two <= n (n >= 1).
inline int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// Combines the inputs of n members held locally, input(0) ... input(n - 1) (a callable giving
// member v's buffer), with the association of recursive doubling (allreduce.cpp), which is
// also MPICH's and Open MPI's for short vectors: with pof2 the largest power of two <= n and
// rem = n - pof2, first input(2k) op input(2k + 1) for k < rem, then the pof2 partial results
// pairwise at distance 1, 2, 4, ... For floating-point sums the association decides the last
// bits, and applications compare their output with those MPIs' (HPCCG's final residual).
// Rank order is kept, so non-commutative operations are combined correctly. The inputs are
// overwritten; the result is left in input(n - 1), which is returned.
template <typename Input>
unsigned char* combine_as_doubling(int n, const Reduction& r, Input&& input) {
  const int pof2 = floor_pow2(n);
  const int rem = n - pof2;
  auto part = [&](int k) { return input(k < rem ? 2 * k + 1 : k + rem); };
  for (int k = 0; k < rem; ++k) r.combine(input(2 * k), input(2 * k + 1), r.count);
  // combine(a, b) computes b = a op b: parts [k, k + s) end up in part(k + s - 1).
  for (int s = 1; s < pof2; s <<= 1) {
    for (int k = 0; k < pof2; k += 2 * s) r.combine(part(k + s - 1), part(k + 2 * s - 1), r.count);
  }
  return part(pof2 - 1);
}

// Requests posted in one step of an algorithm. wait() completes them all; the destructor
// completes whatever is still posted when an error path returns early, so no receive can
// land in a scratch buffer after the algorithm has given it back. The P2P contract (after
// a failure every outstanding operation fails) keeps that final wait short.
class Requests {
 public:
  explicit Requests(P2P& p2p) : p2p_(p2p) {}
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  ~Requests() {
    if (count_ > 0) (void)p2p_.waitall(ids(), count_);
  }

  Status send(int peer, const void* buf, std::size_t bytes, int tag) {
    RequestId r;
    Status s = p2p_.isend(peer, buf, bytes, tag, &r);
    if (s == Status::ok) push(r);
    return s;
  }
  Status recv(int peer, void* buf, std::size_t bytes, int tag) {
    RequestId r;
    Status s = p2p_.irecv(peer, buf, bytes, tag, &r);
    if (s == Status::ok) push(r);
    return s;
  }
  Status wait() {
    if (count_ == 0) return Status::ok;
    Status s = p2p_.waitall(ids(), count_);
    count_ = 0;
    spill_.clear();
    return s;
  }

 private:
  // Every tree and ring step, and an alltoall of up to 17 members posting all at once (like
  // CommP2P's own inline slots), without malloc.
  static constexpr int kInline = 32;
  RequestId* ids() { return spill_.empty() ? inline_ : spill_.data(); }
  void push(RequestId r) {
    if (spill_.empty() && count_ < kInline) {
      inline_[count_++] = r;
      return;
    }
    if (spill_.empty()) spill_.assign(inline_, inline_ + count_);
    spill_.push_back(r);
    ++count_;
  }

  P2P& p2p_;
  RequestId inline_[kInline];
  std::vector<RequestId> spill_;
  int count_ = 0;
};

// Exchange with one peer per step (rings, recursive doubling, pairwise exchange). Zero-byte
// halves are skipped: both ends compute the same sizes, so they skip consistently. A small
// send goes first: nothing arrives before the wait drives progress anyway, and the partner,
// who waits for it, gets it that much sooner. A large receive is posted first: the transport
// then knows the send is half of an exchange, which on shared memory it may hand to the
// receiver's single copy instead of staging it (ShmEndpoint::send_by_cma).
inline Status exchange(P2P& p2p, int dst, const void* sbuf, std::size_t sbytes, int src,
                       void* rbuf, std::size_t rbytes, int tag) {
  constexpr std::size_t kLargeReceiveFirst = std::size_t{32} << 10;
  Requests reqs(p2p);
  Status s = Status::ok;
  const bool receive_first = rbytes >= kLargeReceiveFirst;
  if (receive_first) s = reqs.recv(src, rbuf, rbytes, tag);
  if (s == Status::ok && sbytes > 0) s = reqs.send(dst, sbuf, sbytes, tag);
  if (s == Status::ok && rbytes > 0 && !receive_first) s = reqs.recv(src, rbuf, rbytes, tag);
  if (s != Status::ok) return s;
  return reqs.wait();
}

inline unsigned char* bytes_of(void* p) { return static_cast<unsigned char*>(p); }
inline const unsigned char* bytes_of(const void* p) {
  return static_cast<const unsigned char*>(p);
}
inline bool is_in_place(const void* p) { return p == in_place; }

// memmove, not memcpy: MPI forbids aliased send and receive buffers, but a user who passes
// them anyway should get a defined (if useless) result rather than undefined behaviour.
inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n > 0 && dst != src) std::memmove(dst, src, n);
}

}  // namespace ftmpi::coll::detail
