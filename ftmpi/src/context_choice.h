// How every constructor picks its new communicator's context id: one piece of code for the
// used-context mask on the wire, the "lowest pair free at every member" rule and the offer
// rounds of context_claims.h. Dup, split and create (construct.cpp), the intercommunicator
// constructors (intercomm.cpp), MPI_Comm_create_group and the repair of a communicator each
// exchange the masks their own way (an agreement, the leaders' exchange, a gather at the
// group's first member); what they do with the masks is written here once.
//
// A construction's life: ContextChoice(...) enters the claims; contribution() is this member's
// mask, flagged "not offered" unless the construction holds this process's offer; the caller
// gives the union of every member's contribution to pick(), with a function that runs one more
// exchange of contributions over the same members. pick() repeats that exchange until a union
// is usable (every member offered in the same round), then takes the lowest pair free in it.
// The union is the same at every member, so all take the same number of rounds and the same id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "comm.h"
#include "consensus.h"
#include "context_claims.h"
#include "error.h"

namespace ftmpi {

// One bit per context pair, pair i at byte i / 8, bit i % 8.
constexpr std::size_t kContextMaskBytes = CommTable::kContextPairs / 8;
// Pairs at and above this are never handed out by a construction among several processes: the
// 128 private ids of one-process constructions (ContextChoice::pick_private), then the two "not
// offered" flags (ContextClaims::kNoEagerOffer, kNotOffered).
constexpr std::size_t kSharedContextPairs = ContextClaims::kNoEagerOffer - 128;

void put_context_mask(const CommTable::ContextMask& m, std::uint8_t* out);  // kContextMaskBytes
std::vector<std::uint8_t> context_mask_bytes(const CommTable::ContextMask& m);
// ORs the mask in `bytes` into *m; bytes beyond `n` count as 0.
void merge_context_mask(const std::uint8_t* bytes, std::size_t n, CommTable::ContextMask* m);

// The ids this process uses, without the "not offered" flags (a mask adopted from a union,
// rebuild.cpp, may carry it).
CommTable::ContextMask local_contexts(const CommTable& comms);

// The lowest pair free in `used` (after skipping `skip` free ones: a split of an
// intercommunicator gives the k-th color the k-th free pair) in [first, end): marked
// in *used and in this process's table, and its agreements count from 0 again (the id may have
// served a freed communicator). 0 when none is left (callers report it).
std::uint32_t take_context(CommTable* comms, Consensus* consensus, CommTable::ContextMask* used,
                           int skip = 0, std::size_t first = 0,
                           std::size_t end = kSharedContextPairs);

class ContextChoice {
 public:
  using Round = std::function<Err(CommTable::ContextMask* mask)>;

  ContextChoice(ContextClaims* claims, CommTable* comms, Consensus* consensus,
                ContextClaims::Key key);
  ~ContextChoice();  // leaves the claims on every path out, errors included
  ContextChoice(const ContextChoice&) = delete;
  ContextChoice& operator=(const ContextChoice&) = delete;

  // This member's contribution to an exchange: local_contexts(), with the "not offered" flag
  // of each offer (main, eager) this construction does not hold (or now get).
  CommTable::ContextMask contribution();
  // The construction now goes by `key` in the offer order (an intercommunicator's two groups
  // learn a common key only after their first exchange).
  void rekey(ContextClaims::Key key);
  // `united`: the union of every member's contribution. While it is not usable (some member
  // lacks the offer the others made, or every member offered the eager range and it has no
  // pair free), `round` replaces *mask (this member's next contribution) by the next union.
  // Then the lowest free pair (take_context with `skip`) of the union and of the ids used
  // here, in the offered range.
  Err pick(CommTable::ContextMask united, const Round& round, std::uint32_t* context, int skip = 0);
  // A construction on a communicator of this process alone: an id at once from the private
  // range, which constructions among several processes never use (no offer, no round).
  // false when all 128 are in use (then pick() serves).
  bool pick_private(std::uint32_t* context);

 private:
  ContextClaims* claims_;
  CommTable* comms_;
  Consensus* consensus_;
  ContextClaims::Ticket ticket_;
  bool first_round_ = true;
};

}  // namespace ftmpi
