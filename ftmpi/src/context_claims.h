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
// Only a construction whose first round is over counts as pending, and only a pending one gets
// the main offer (MPICH: a construction joins the list only after its first allreduce). The
// first round's exchange completes once every member has come; until then a construction may
// wait for members still busy in other constructions of their own processes, and if it held
// the offer (or stood lowest in the order) meanwhile, those constructions, needing this
// process's offer, could never finish, nor free the members it waits for: MPICH's
// comm_create_group_threads2 (threads on one communicator with their own tags, first over
// half the ranks, then over all) hung in endless rounds at every run so. After the first
// round all members go on with rounds until the construction is done, so holding the offer
// then keeps nobody waiting for long.
// A second, small "eager" offer (MPICH's eager context mask) goes to any construction in its
// first round while it is free, for ids of its own range: the first round can succeed only
// with it (a lone construction: one exchange), and a nonblocking construction whose first
// round waits for members still busy elsewhere holds only that range (MPICH's
// comm_create_group_idup: half the ranks call MPI_Comm_create_group then MPI_Comm_idup, the
// other half the reverse; the construction without it takes the main one in its second
// round). A construction holds at most one of the two.
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
  // Likewise for the eager offer: its bit says "this member did not offer the eager range".
  static constexpr std::size_t kNoEagerOffer = CommTable::kContextPairs - 2;
  // Pairs [0, kEagerPairs) are the eager range, the main offer picks above it.
  static constexpr std::size_t kEagerPairs = 64;
  enum class Offer { none, eager, main };
  // (parent context, construction number on it), the same at every member. MPI_Comm_create_group
  // numbers by its tag (kGroupTag set), an intercommunicator's creation by the lower of its two
  // groups' keys (context_choice.h).
  using Key = std::pair<std::uint32_t, std::uint64_t>;
  static constexpr std::uint64_t kGroupTag = std::uint64_t{1} << 63;
  // One pending construction here: its key and a number unique in this process (two unrelated
  // constructions may share a key; each still has its own place).
  using Ticket = std::pair<Key, std::uint64_t>;

  // A construction begins (it is pending only once its first round is over) / ends (every
  // path out, errors included).
  Ticket enter(Key key);
  void leave(Ticket t);
  // What `t` offers now: the offer it holds; else in its first round the eager one if free;
  // else (a later round: `t` is pending from now on) the main one if free and `t` is the
  // lowest pending construction. It keeps the offer until release() (after its pick, or an
  // unusable round).
  Offer try_offer(Ticket t, bool first_round);
  void release(Ticket t);
  // The construction goes on under a new key; an offer it holds goes with it.
  Ticket rekey(Ticket t, Key key);

 private:
  struct Slot {
    bool held = false;
    Ticket by{};
  };
  std::set<Ticket> pending_;
  std::uint64_t serial_ = 0;
  Slot main_;
  Slot eager_;
};

}  // namespace ftmpi
