// Which of this process's pending communicator constructions may offer its free context ids.
//
// A construction's context id is the lowest one free at every member: each member contributes
// the ids it uses, and the union decides (construct.cpp). That is only right if nothing else
// takes an id here between the contribution and the pick. With several constructions under
// way at once in one process (MPI_Comm_idup's duplications run as fibers, nbc.h; dup, split
// and create on different communicators from several threads) another one could take the
// very id the first one's union leaves free at the other members. So one construction at a
// time "offers" (MPICH's context mask lock): the others mark their contribution "not
// offered", which makes the union unusable for every member alike, and try again in another
// round. The offer goes to the lowest pending construction by (parent context id, number of
// the construction on the parent): that order is the same in every process, so the globally
// lowest one is eventually offered by all its members in the same round (no livelock).
// Every constructor takes part (context_choice.h holds the rounds): dup, split, create,
// create_group, the intercommunicator constructors.
//
// One process-wide instance (Constructor's), used under the library lock with threads.
#pragma once

#include <cstdint>
#include <set>
#include <utility>

#include "comm.h"

namespace ftmpi {

class ContextClaims {
 public:
  // The last id pair is never handed out (take_context skips it): its bit in a contributed
  // mask says "this member did not offer".
  static constexpr std::size_t kNotOffered = CommTable::kContextPairs - 1;
  // (parent context, construction number on it), the same at every member. MPI_Comm_create_group
  // numbers by its tag (kGroupTag set), an intercommunicator's creation by the lower of its two
  // groups' keys (context_choice.h).
  using Key = std::pair<std::uint32_t, std::uint64_t>;
  static constexpr std::uint64_t kGroupTag = std::uint64_t{1} << 63;
  // One pending construction here: its key and a number unique in this process (two unrelated
  // constructions may share a key; each still has its own place).
  using Ticket = std::pair<Key, std::uint64_t>;

  // A construction begins / ends (every path out, errors included).
  Ticket enter(Key key);
  void leave(Ticket t);
  // Whether `t` offers now: nobody else offers and it is the lowest pending construction.
  // It keeps the offer until release() (after its pick, or a round that was not usable).
  bool try_offer(Ticket t);
  void release(Ticket t);

 private:
  std::set<Ticket> pending_;
  std::uint64_t serial_ = 0;
  bool offered_ = false;
  Ticket offerer_{};
};

}  // namespace ftmpi
