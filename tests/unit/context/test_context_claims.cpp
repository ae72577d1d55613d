// The offer rule of context_claims.h: one main offer to the lowest pending construction (one
// whose first round is over), one eager offer to a construction in its first round, never
// both to one construction.
#include <catch2/catch.hpp>

#include "context_claims.h"

using ftmpi::ContextClaims;
using Offer = ContextClaims::Offer;

TEST_CASE("a lone construction gets the eager offer first, the main one in later rounds") {
  ContextClaims claims;
  const auto t = claims.enter({4, 0});
  CHECK(claims.try_offer(t, true) == Offer::eager);
  CHECK(claims.try_offer(t, false) == Offer::eager);  // held until released
  claims.release(t);
  CHECK(claims.try_offer(t, false) == Offer::main);
  claims.leave(t);
}

TEST_CASE("a construction in its first round never gets the main offer") {
  // MPICH's comm_create_group_idup at an odd rank: MPI_Comm_idup started first (its first
  // round waits for ranks still in MPI_Comm_create_group), then MPI_Comm_create_group.
  ContextClaims claims;
  const auto idup = claims.enter({0, 0});
  const auto group = claims.enter({0, ContextClaims::kGroupTag});
  CHECK(claims.try_offer(idup, true) == Offer::eager);
  CHECK(claims.try_offer(group, true) == Offer::none);
  // Its second round: the idup, still in its first, does not stand in the order.
  CHECK(claims.try_offer(group, false) == Offer::main);
  claims.leave(group);
  claims.leave(idup);
}

TEST_CASE("a construction still waiting for its members keeps no later one from the main offer") {
  // MPICH's comm_create_group_threads2 at the last rank: the call of tag 1 waits in its first
  // round for the first ranks, still in calls over half the ranks; the call of tag 0, lower in
  // the order, came after it, and all its members have come. Before, the first held the main
  // offer (or stood lowest) and the second never got it here.
  ContextClaims claims;
  const auto early = claims.enter({0, ContextClaims::kGroupTag | 0});
  const auto waiting = claims.enter({0, ContextClaims::kGroupTag | 1});
  const auto eager_holder = claims.enter({0, ContextClaims::kGroupTag | 2});
  CHECK(claims.try_offer(eager_holder, true) == Offer::eager);
  CHECK(claims.try_offer(waiting, true) == Offer::none);   // its round waits for the others
  CHECK(claims.try_offer(early, true) == Offer::none);     // eager taken: a second round
  CHECK(claims.try_offer(early, false) == Offer::main);
  claims.leave(early);
  // A lower key in its first round does not stand before a pending one either.
  const auto late_low = claims.enter({0, 0});
  CHECK(claims.try_offer(late_low, true) == Offer::none);
  CHECK(claims.try_offer(waiting, false) == Offer::main);
  claims.leave(waiting);
  claims.leave(late_low);
  claims.leave(eager_holder);
}

TEST_CASE("among pending constructions the lowest gets the main offer") {
  ContextClaims claims;
  const auto low = claims.enter({0, 1});
  const auto high = claims.enter({0, 2});
  CHECK(claims.try_offer(low, false) == Offer::main);
  CHECK(claims.try_offer(high, false) == Offer::none);
  claims.release(low);
  CHECK(claims.try_offer(high, false) == Offer::none);  // low is still pending
  CHECK(claims.try_offer(low, false) == Offer::main);
  claims.leave(low);
  CHECK(claims.try_offer(high, false) == Offer::main);
  claims.leave(high);
}

TEST_CASE("an offer and a place in the order move with a construction that changes its key") {
  ContextClaims claims;
  const auto t = claims.enter({9, 9});
  const auto other = claims.enter({5, 0});
  CHECK(claims.try_offer(t, true) == Offer::eager);
  const auto moved = claims.rekey(t, {1, 0});
  CHECK(claims.try_offer(moved, false) == Offer::eager);
  CHECK(claims.try_offer(other, false) == Offer::main);  // `moved` is not pending yet
  claims.release(other);
  claims.release(moved);
  CHECK(claims.try_offer(moved, false) == Offer::main);  // pending now, and lower
  claims.release(moved);
  const auto again = claims.rekey(moved, {7, 0});       // pending still, now above `other`
  CHECK(claims.try_offer(again, false) == Offer::none);
  CHECK(claims.try_offer(other, false) == Offer::main);
  claims.leave(other);
  claims.leave(again);
}
