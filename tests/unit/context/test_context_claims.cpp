// The offer rule of context_claims.h: one main offer to the lowest pending construction, one
// eager offer to a construction in its first round, never both to one construction.
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

TEST_CASE("main goes to the lowest pending construction that does not hold the eager offer") {
  // MPICH's comm_create_group_idup at an odd rank: MPI_Comm_idup started first (its first
  // round waits for ranks still in MPI_Comm_create_group), then MPI_Comm_create_group.
  ContextClaims claims;
  const auto idup = claims.enter({0, 0});
  const auto group = claims.enter({0, ContextClaims::kGroupTag});
  CHECK(claims.try_offer(idup, true) == Offer::eager);
  CHECK(claims.try_offer(group, true) == Offer::main);
  claims.release(group);
  CHECK(claims.try_offer(group, false) == Offer::main);
  claims.leave(group);
  claims.leave(idup);
}

TEST_CASE("a construction that is not the lowest waits for the main offer") {
  ContextClaims claims;
  const auto low = claims.enter({0, 1});
  const auto high = claims.enter({0, 2});
  CHECK(claims.try_offer(high, false) == Offer::none);
  CHECK(claims.try_offer(low, false) == Offer::main);
  CHECK(claims.try_offer(high, true) == Offer::eager);  // the eager one is still free
  claims.leave(low);
  claims.release(high);
  CHECK(claims.try_offer(high, false) == Offer::main);
  claims.leave(high);
}

TEST_CASE("an offer moves with a construction that changes its key") {
  ContextClaims claims;
  const auto t = claims.enter({9, 9});
  const auto other = claims.enter({5, 0});
  CHECK(claims.try_offer(t, true) == Offer::eager);
  const auto moved = claims.rekey(t, {1, 0});
  CHECK(claims.try_offer(moved, false) == Offer::eager);
  // The eager holder does not count for the main offer: `other` is the lowest of the rest.
  CHECK(claims.try_offer(other, true) == Offer::main);
  claims.release(other);
  claims.release(moved);
  CHECK(claims.try_offer(other, false) == Offer::none);
  CHECK(claims.try_offer(moved, false) == Offer::main);
  claims.leave(moved);
  claims.leave(other);
}
