// Fan-in/fan-out through the first member, for a few members and short data: every other
// member sends to the first one and waits for its answer. Two message latencies and one wait
// per member, against ceil(log2 n) dependent rounds (and waits) of dissemination or recursive
// doubling. When ranks outnumber cores every wait is a process switched out and back in, so
// fewer waits win there (tests/bench/coll_switches.c counts them); the first member's 2(n-1)
// messages bound it to small n (tuning.h: FTMPI_COLL_BARRIER_FAN, FTMPI_COLL_ALLREDUCE_FAN,
// FTMPI_COLL_ALLTOALL_FAN, FTMPI_COLL_ALLGATHER_FAN), and two hops in a row lose to one exchange at n = 2: from 3 on.
// Up to FTMPI_COLL_DIRECT_MEMBERS (4) members direct exchange wins over the fan (direct.h:
// n - 1 waits per operation against the fan's n), so by default the fan serves 5 to 8.
// Open MPI's tuned component picks the fan's shape (basic linear) for a 4-rank barrier.
#pragma once

#include "group.h"

namespace ftmpi::coll::detail {

// Barrier: zero-byte messages in and out. A member leaves only after the first member heard
// from everyone, as with dissemination (what ATOMIC mode's settle relies on).
Status fan_barrier(const Group& g, P2P& p2p);

// Allreduce of `result` (holding my input): the first member combines every contribution in
// rank order (valid for non-commutative operations) and sends the result back, so all members
// get bit-identical bytes and a clean finish implies every member contributed.
Status fan_allreduce(const Group& g, P2P& p2p, const Reduction& r, unsigned char* result);

// Alltoall of uniform blocks (`block` bytes per communicator rank, slots indexed by
// communicator rank as in alltoall()): every other member sends its whole row to the first
// member, which transposes and sends each member its column: 2(n - 1) messages instead of
// n(n - 1), one wait per member. Meant for short blocks (the first member moves n^2 of them).
Status fan_alltoall(const Group& g, P2P& p2p, const unsigned char* send, unsigned char* recv,
                    std::size_t block);

// Allgather of uniform blocks (`block` bytes per communicator rank, my block already in my
// slot of `out`, slots indexed by communicator rank as in allgather()): every other member
// sends its block to the first member, which answers each with all members' blocks in
// virtual-rank order: 2(n - 1) messages and one wait per member, against ceil(log2 n) rounds
// of Bruck's algorithm. A clean finish implies every member's block arrived (the settle of
// ATOMIC mode relies on it). Meant for short blocks (the first member sends n(n - 1) of them).
Status fan_allgather(const Group& g, P2P& p2p, unsigned char* out, std::size_t block);

}  // namespace ftmpi::coll::detail
