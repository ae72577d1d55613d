// Recovery line (RLFFN): newest complete iteration where every failed process has a copy
// on a survivor, and which survivor sends it.
#include <catch2/catch.hpp>

#include <random>

#include "ftckpt/recovery_line.hpp"
#include "ftckpt/tolerance.hpp"

using ftckpt::Placement;
using ftckpt::find_recovery_line;

namespace {

// Literal port of the paper's RLFFN/accessibility as the reference (returns the iteration
// and fills holders), including its first-surviving-copy choice.
long paper_rlffn(const Placement& pl, long k_end, const std::vector<int>& fault,
                 std::vector<int>& recovery) {
  recovery.assign(fault.size(), -1);
  auto in_y = [&](int r) {
    for (int f : fault)
      if (f == r) return false;
    return true;
  };
  for (long k = k_end; k > k_end - pl.sd(); --k) {
    bool impossible = false;
    for (std::size_t n = 0; n < fault.size(); ++n) {
      recovery[n] = -1;
      for (int j = 1; j <= pl.df(); ++j) {
        int r = pl.receiver(fault[n], j, k);
        if (in_y(r)) {
          recovery[n] = r;
          break;
        }
      }
      if (recovery[n] == -1) {
        impossible = true;
        break;
      }
    }
    if (!impossible) return k;
  }
  return -1;
}

}  // namespace

TEST_CASE("no failure resumes from the newest iteration", "[ftckpt][recovery]") {
  Placement pl(8, 2, 3);
  auto line = find_recovery_line(pl, 11, {});
  CHECK(line.recoverable());
  CHECK(line.iteration == 11);
  CHECK(line.holder.empty());
}

TEST_CASE("one failure is served by its first copy", "[ftckpt][recovery]") {
  Placement pl(8, 2, 3);
  auto line = find_recovery_line(pl, 7, {4});
  REQUIRE(line.iteration == 7);
  REQUIRE(line.holder.size() == 1);
  CHECK(line.holder[0] == pl.receiver(4, 1, 7));
}

TEST_CASE("a failed first holder falls back to the next copy", "[ftckpt][recovery]") {
  Placement pl(16, 3, 2);
  const int victim = 5, first = pl.receiver(5, 1, 4);
  auto line = find_recovery_line(pl, 4, {first, victim});
  REQUIRE(line.iteration == 4);
  CHECK(line.failed == std::vector<int>{std::min(victim, first), std::max(victim, first)});
  int idx = line.failed[0] == victim ? 0 : 1;
  CHECK(line.holder[idx] == pl.receiver(5, 2, 4));
}

TEST_CASE("two failures whose copies sit on each other roll back one iteration",
          "[ftckpt][recovery]") {
  // DF=1, N=8, SD=2: at even k copy of i goes to i+1, at odd k to i+2. Processes 3 and 4
  // fail at k=6: 3's only copy is on 4, so iteration 6 is lost, but at k=5 their copies sit
  // on 5 and 6.
  Placement pl(8, 1, 2);
  REQUIRE(pl.receiver(3, 1, 6) == 4);
  auto line = find_recovery_line(pl, 6, {4, 3});
  REQUIRE(line.recoverable());
  CHECK(line.iteration == 5);
  CHECK(line.failed == std::vector<int>{3, 4});
  CHECK(line.holder == std::vector<int>{5, 6});
  // Mutual copies: with N=2 and DF=1 each process holds the other's only copy.
  Placement pair(2, 1, 1);
  auto dead = find_recovery_line(pair, 3, {0, 1});
  CHECK_FALSE(dead.recoverable());
  CHECK(dead.lost_at_newest == std::vector<int>{0, 1});
}

TEST_CASE("an interrupted save is never chosen", "[ftckpt][recovery]") {
  Placement pl(8, 2, 3);
  auto line = find_recovery_line(pl, 9, {2}, {false, true, true});
  CHECK(line.iteration == 8);
  auto none = find_recovery_line(pl, 9, {2}, {false, false, false});
  CHECK_FALSE(none.recoverable());
  CHECK(none.holder == std::vector<int>{-1});
}

TEST_CASE("iterations before 0 do not exist", "[ftckpt][recovery]") {
  Placement pl(8, 1, 3);
  // Kill phase 0 (3 and its copy holder 4); with only iteration 0 saved nothing is left.
  auto line = find_recovery_line(pl, 0, {3, 4});
  CHECK_FALSE(line.recoverable());
  CHECK(line.lost_at_newest == std::vector<int>{3});
  CHECK(find_recovery_line(pl, 1, {3, 4}).iteration == 1);
}

TEST_CASE("a smallest killing set leaves nothing to recover", "[ftckpt][recovery]") {
  Placement pl(86, 3, 4);
  auto tol = ftckpt::compute_tolerance(pl);
  for (long last = 10; last < 14; ++last)
    CHECK_FALSE(find_recovery_line(pl, last, tol.killing_set).recoverable());
  // Remove any one process and some iteration survives.
  for (std::size_t drop = 0; drop < tol.killing_set.size(); ++drop) {
    auto smaller = tol.killing_set;
    smaller.erase(smaller.begin() + static_cast<long>(drop));
    CHECK(find_recovery_line(pl, 13, smaller).recoverable());
  }
}

TEST_CASE("matches the paper's RLFFN on random failure sets", "[ftckpt][recovery]") {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 2000; ++trial) {
    int n = 4 + static_cast<int>(rng() % 40), df = 1 + static_cast<int>(rng() % 3),
        sd = 1 + static_cast<int>(rng() % 4);
    Placement pl(n, df, sd);
    std::vector<int> failed;
    for (int i = 0; i < n; ++i)
      if (rng() % 5 == 0) failed.push_back(i);
    long last = sd + static_cast<long>(rng() % 20);
    std::vector<int> ref_holders;
    long ref = paper_rlffn(pl, last, failed, ref_holders);
    auto line = find_recovery_line(pl, last, failed);
    REQUIRE(line.iteration == ref);
    if (ref >= 0) REQUIRE(line.holder == ref_holders);  // failed was already sorted
  }
}

TEST_CASE("bad ranks are rejected", "[ftckpt][recovery]") {
  Placement pl(4, 1, 2);
  CHECK_THROWS_AS(find_recovery_line(pl, 3, {4}), std::out_of_range);
  CHECK_THROWS_AS(find_recovery_line(pl, 3, {-1}), std::out_of_range);
}
