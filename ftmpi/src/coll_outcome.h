// The outcome of a collective in FTMPI_COLL_MODE_ATOMIC (SPEC 4.4): every survivor returns
// the same one. Two ways to get there (ftmpi/CONSENSUS.md, "Settled collectives"):
// - agree_outcome: one agreement on "did it work here" after the collective (any collective);
// - settle_outcome: collectives in which every member that succeeds ends with the same bytes
//   and a clean finish implies that every member took part (allreduce, allgather, barrier;
//   bcast and reduce through the algorithms they switch to in ATOMIC mode, may_settle)
//   settle without any message when nothing failed; only a member that could not finish
//   runs the agreement, and it gets the result from a member that settled.
#pragma once

#include <cstddef>
#include <cstdint>

#include <ftmpi/coll/p2p.h>

#include "comm.h"
#include "fiber.h"

namespace ftmpi {

// Whether collectives on `c` end with an outcome step: a fault-tolerant FT-MPI mode (not
// ABORT, not ULFM) with the ATOMIC collective mode, more than one member.
// Inline: every collective asks, once or twice. ABORT mode (the default) and RELAXED skip the
// outcome step. ULFM mode has none either: as in Open MPI, a collective may fail at some
// members and succeed at others; MPIX_Comm_agree is how a ULFM application gets a uniform
// answer. A nonblocking collective (on a fiber) has no outcome step: nbc.h says why.
inline bool atomic_mode(const Comm* c) {
  if (Fiber::running()) return false;
  return c->comm_mode != FTMPI_COMM_MODE_ABORT && c->comm_mode != FTMPI_COMM_MODE_ULFM &&
         c->coll_mode == FTMPI_COLL_MODE_ATOMIC && c->size() > 1;
}

// The agreement on the outcome: true when the collective worked at every member and nobody
// failed. `ok_here`: it worked at this member.
bool agree_outcome(Comm* c, bool ok_here);

// A result every succeeding member holds alike, and whether this collective may settle.
struct UniformResult {
  void* data = nullptr;    // the bytes the algorithm wrote here (packed if staged)
  std::size_t bytes = 0;
  bool from_everyone = false;  // a clean finish here implies every member's message arrived
};

// Whether a collective whose result is `bytes` long (the same at every member) may settle on
// `c`: ATOMIC mode, at least two members, a result small enough to keep. Every member gets the
// same answer, so callers may choose a different algorithm on it (a broadcast or reduction
// that reaches every member from every member, so that its result becomes uniform).
// Inline: every 8 B bcast and reduce asks (a call was ~18 instructions; coll_cost.sh 2).
// Above kMaxSettledBytes a result is not kept for others: copying it on every call would cost
// more than the agreement it saves (a 16 KiB copy ~1 us; the agreement ~2 message latencies +
// ~1 us).
inline constexpr std::size_t kMaxSettledBytes = 16 << 10;
inline bool may_settle(const Comm* c, const coll::View& v, std::size_t bytes) {
  return atomic_mode(c) && bytes <= kMaxSettledBytes && v.members.size() >= 2;
}

// The outcome of a uniform-result collective: true when it succeeded everywhere. A member
// whose algorithm failed but that learns another member settled gets its result copied into
// `r.data` and returns true as well.
bool settle_outcome(Comm* c, const coll::View& v, bool ok_here, const UniformResult& r);

// Before a communicator's settled decisions go away (MPI_Comm_free, MPI_Finalize): if its
// latest instance may have been settled somewhere, one more agreement, so that no member is
// still asking for it. Every member takes the same branch (it depends on the call sequence).
void confirm_settled(Comm* c);
// The same for every communicator at once (MPI_Finalize).
void confirm_all_settled();

}  // namespace ftmpi
