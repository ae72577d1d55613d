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
  using Key = std::pair<std::uint32_t, std::uint64_t>;  // (parent context, construction number)

  // A construction on `parent` begins / ends (every path out, errors included).
  Key enter(Comm* parent);
  void leave(Key key);
  // Whether `key` offers now: nobody else offers and it is the lowest pending construction.
  // It keeps the offer until release() (after its pick, or a round that was not usable).
  bool try_offer(Key key);
  void release(Key key);

 private:
  std::set<Key> pending_;
  bool offered_ = false;
  Key offerer_{};
};

}  // namespace ftmpi
