// Direct exchange among few members: every member messages every other one, all at once, and
// waits once for all of them. When ranks outnumber cores every wait is a process switched out
// and back in, and that, not the message, is the cost (tests/bench/coll_switches.c). Through
// the first member (fan.h) every other member waits for its answer and the first member waits
// for them: n waits per operation. Direct, the last member to arrive finds every message there
// and goes on without waiting: n - 1 (4 ranks on 2 cores: 3.0 context switches per barrier
// against the fan's 4.0; collectives/README.md). Its n(n - 1) messages, and n - 1 combines
// per member for allreduce, are what limit it to few members: FTMPI_COLL_DIRECT_MEMBERS (4).
// alltoall's direct form is its all-at-once schedule (alltoall.cpp).
// Each member hears from every member itself, so a clean finish implies that every member
// took part (what ATOMIC mode's settle relies on).
#pragma once

#include "group.h"

namespace ftmpi::coll::detail {

// Zero-byte messages to and from every other member.
Status direct_barrier(const Group& g, P2P& p2p);

// Allreduce of `result` (holding my input): every member sends its input to every other one
// and combines all n in rank order, x_0 op x_1 op ... op x_{n-1}, the same fold everywhere, so
// all members get bit-identical bytes, for non-commutative operations too.
Status direct_allreduce(const Group& g, P2P& p2p, const Reduction& r, unsigned char* result);

// Allreduce of a long vector with a commutative operation, for ranks sharing cores: the
// vector as n blocks; every member sends block v of its input to member v, which combines the
// n pieces (with recursive doubling's association: Rabenseifner's bits), then sends the
// result block to every member. Two waits instead of Rabenseifner's 2 log2(n), the same bytes
// per member. `send`: the input when not in `result` already (nullptr: it is). Needs
// r.count >= n.
Status direct_allreduce_long(const Group& g, P2P& p2p, const Reduction& r,
                             const unsigned char* send, unsigned char* result);

// Allgather of uniform blocks (`block` bytes per communicator rank, my block already in my
// slot of `out`): my block to every other member, theirs straight into their slots.
Status direct_allgather(const Group& g, P2P& p2p, unsigned char* out, std::size_t block);

}  // namespace ftmpi::coll::detail
