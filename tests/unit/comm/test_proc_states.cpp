// ProcStates is the one owner of a communicator's process states: every write moves its
// version, and MembersView (the collectives' participants) is rebuilt exactly when the version,
// my rank or the size moved, so a collective after a failure notice or a repair sees it.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <vector>

#include "proc_states.h"

using ftmpi::MembersView;
using ftmpi::ProcStates;

namespace {
std::vector<int> members(const ftmpi::coll::View& v) { return v.members; }
}  // namespace

TEST_CASE("every write moves the version; a copy never shares one") {
  ProcStates s;
  s.assign(4, FTMPI_PROC_OK);
  const auto v1 = s.version();
  CHECK(v1 != 0);
  s.set(2, FTMPI_PROC_UNAVAILABLE);
  const auto v2 = s.version();
  CHECK(v2 != v1);
  s.set(2, FTMPI_PROC_FAILED);
  CHECK(s.version() != v2);
  ProcStates copy(s);
  CHECK(copy.version() != s.version());
  CHECK(copy[2] == FTMPI_PROC_FAILED);
  ProcStates assigned;
  assigned = s;
  CHECK(assigned.version() != s.version());
  CHECK(assigned.size() == 4);
}

TEST_CASE("the members view is cached until a state changes, and then sees it at once") {
  ProcStates s;
  s.assign(5, FTMPI_PROC_OK);
  MembersView cache;
  const ftmpi::coll::View* first = &cache.of(s, 1, 5);
  CHECK(members(*first) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(first->my_rank == 1);
  CHECK(first->comm_size == 5);
  CHECK(&cache.of(s, 1, 5) == first);  // the same object, not rebuilt

  s.set(3, FTMPI_PROC_FAILED);  // a failure notice
  CHECK(members(cache.of(s, 1, 5)) == std::vector<int>{0, 1, 2, 4});

  s.set(0, FTMPI_PROC_UNAVAILABLE);  // suspected only: still a member
  CHECK(members(cache.of(s, 1, 5)) == std::vector<int>{0, 1, 2, 4});

  // A SHRINK repair: fewer ranks, renumbered.
  s.assign(3, FTMPI_PROC_OK);
  const auto& shrunk = cache.of(s, 0, 3);
  CHECK(members(shrunk) == std::vector<int>{0, 1, 2});
  CHECK(shrunk.my_rank == 0);
  CHECK(shrunk.comm_size == 3);
}

TEST_CASE("my rank or the size changing alone rebuilds the view") {
  ProcStates s;
  s.assign(3, FTMPI_PROC_OK);
  MembersView cache;
  CHECK(cache.of(s, 2, 3).my_rank == 2);
  CHECK(cache.of(s, 0, 3).my_rank == 0);
  CHECK(cache.of(s, 0, 2).comm_size == 2);
  CHECK(members(cache.of(s, 0, 2)) == std::vector<int>{0, 1});
}

TEST_CASE("build() fills a view of its own and leaves the cache alone") {
  ProcStates s;
  s.assign(4, FTMPI_PROC_OK);
  MembersView cache;
  const ftmpi::coll::View* cached = &cache.of(s, 0, 4);
  s.set(1, FTMPI_PROC_FAILED);
  ftmpi::coll::View own;
  own.members = {9, 9, 9, 9, 9, 9};
  MembersView::build(s, 0, 4, &own);
  CHECK(members(own) == std::vector<int>{0, 2, 3});
  CHECK(members(*cached) == std::vector<int>{0, 1, 2, 3});  // untouched until the next of()
  CHECK(members(cache.of(s, 0, 4)) == std::vector<int>{0, 2, 3});
}
