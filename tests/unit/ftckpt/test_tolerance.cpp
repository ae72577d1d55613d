// Exact tolerance search against two independent brute forces, and the counterexamples to
// the paper's claim it finds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>

#include "ftckpt/placement.hpp"
#include "ftckpt/tolerance.hpp"

using ftckpt::Placement;
using ftckpt::PhaseMask;

namespace {

// Second reference: minimise |union of one closed group per phase| over all owner tuples
// (owner 0 fixed for the first phase by rotation symmetry). Polynomial in N, so it reaches
// sizes the subset enumeration cannot.
int tuple_brute_force(const Placement& pl, PhaseMask mask) {
  std::vector<int> phases;
  for (int p = 0; p < pl.sd(); ++p)
    if (mask >> p & 1) phases.push_back(p);
  const int n = pl.n();
  std::vector<int> owner(phases.size(), 0);
  std::vector<int> mark(n, -1);
  int best = n, stamp = 0;
  while (true) {
    int size = 0;
    ++stamp;
    for (std::size_t t = 0; t < phases.size(); ++t) {
      auto visit = [&](int v) {
        if (mark[v] != stamp) mark[v] = stamp, ++size;
      };
      visit(owner[t]);
      for (int h : pl.holders(owner[t], phases[t])) visit(h);
    }
    best = std::min(best, size);
    std::size_t t = 1;
    while (t < owner.size() && ++owner[t] == n) owner[t++] = 0;
    if (t >= owner.size()) break;
  }
  return best - 1;
}

std::vector<char> as_failed(const Placement& pl, const std::vector<int>& set) {
  std::vector<char> failed(pl.n(), 0);
  for (int r : set) failed[r] = 1;
  return failed;
}

}  // namespace

TEST_CASE("tolerance equals subset brute force for small N", "[ftckpt][tolerance]") {
  for (int n = 1; n <= 11; ++n)
    for (int df = 1; df <= 3; ++df)
      for (int sd = 1; sd <= 3; ++sd) {
        Placement pl(n, df, sd);
        for (PhaseMask mask = 1; mask <= ftckpt::all_phases(sd); ++mask) {
          INFO("N=" << n << " DF=" << df << " SD=" << sd << " mask=" << mask);
          auto fast = ftckpt::compute_tolerance(pl, mask);
          auto slow = ftckpt::brute_force_tolerance(pl, mask);
          REQUIRE(fast.tolerated == slow.tolerated);
          REQUIRE(static_cast<int>(fast.killing_set.size()) == fast.tolerated + 1);
          REQUIRE(ftckpt::is_fatal(pl, as_failed(pl, fast.killing_set), mask));
        }
      }
}

TEST_CASE("tolerance equals tuple brute force for medium N", "[ftckpt][tolerance]") {
  struct Case { int n, df, sd; };
  for (Case c : {Case{20, 2, 3}, Case{33, 3, 3}, Case{50, 2, 3}, Case{31, 3, 3},
                 Case{40, 4, 2}, Case{21, 2, 4}, Case{13, 2, 4}}) {
    Placement pl(c.n, c.df, c.sd);
    INFO("N=" << c.n << " DF=" << c.df << " SD=" << c.sd);
    auto fast = ftckpt::compute_tolerance(pl);
    CHECK(fast.tolerated == tuple_brute_force(pl, ftckpt::all_phases(c.sd)));
    CHECK(ftckpt::is_fatal(pl, as_failed(pl, fast.killing_set), ftckpt::all_phases(c.sd)));
  }
}

TEST_CASE("the paper's claim fails for N=86, DF=3, SD=4", "[ftckpt][tolerance]") {
  Placement pl(86, 3, 4);
  REQUIRE(ftckpt::paper_condition_holds(86, 3, 4));
  auto t = ftckpt::compute_tolerance(pl);
  CHECK(t.tolerated == 8);
  CHECK(t.tolerated < ftckpt::paper_mnf(3, 4));
  CHECK(t.tolerated == tuple_brute_force(pl, ftckpt::all_phases(4)));
  CHECK(ftckpt::is_fatal(pl, as_failed(pl, t.killing_set), ftckpt::all_phases(4)));
  // Each phase's victim really loses all its copies inside the killing set.
  for (int p = 0; p < 4; ++p) {
    REQUIRE(t.victim[p] >= 0);
    CHECK(std::binary_search(t.killing_set.begin(), t.killing_set.end(), t.victim[p]));
    for (int h : pl.holders(t.victim[p], p))
      CHECK(std::binary_search(t.killing_set.begin(), t.killing_set.end(), h));
  }
  // Away from the wrap-around the claim holds again.
  CHECK(ftckpt::compute_tolerance(Placement(88, 3, 4)).tolerated == 9);
  CHECK(ftckpt::compute_tolerance(Placement(261, 4, 4)).tolerated == 12);  // MNF 13
}

TEST_CASE("the paper's claim holds where the search says so", "[ftckpt][tolerance]") {
  CHECK(ftckpt::compute_tolerance(Placement(16, 2, 2)).tolerated == 3);
  CHECK(ftckpt::compute_tolerance(Placement(100, 2, 3)).tolerated == 4);
  CHECK(ftckpt::compute_tolerance(Placement(100, 3, 3)).tolerated == 7);
}

TEST_CASE("tolerance drops while a save overwrites a slot", "[ftckpt][tolerance]") {
  Placement one(10, 2, 1);
  int phase = -1;
  CHECK(ftckpt::compute_tolerance_during_save(one, &phase).tolerated == 0);
  Placement pl(20, 2, 3);
  auto during = ftckpt::compute_tolerance_during_save(pl, &phase);
  int worst = 1 << 30;
  for (int p = 0; p < 3; ++p)
    worst = std::min(worst, ftckpt::brute_force_tolerance(pl, 7u & ~(1u << p)).tolerated);
  CHECK(during.tolerated == worst);
  CHECK(during.tolerated < ftckpt::compute_tolerance(pl).tolerated);
  CHECK(ftckpt::compute_tolerance(pl, 0).tolerated == 0);  // nothing saved yet
}

TEST_CASE("ring phases follow the saves that completed", "[ftckpt][tolerance]") {
  Placement pl(20, 2, 3);
  CHECK(ftckpt::ring_phases(pl, -1) == 0u);
  CHECK(ftckpt::ring_phases(pl, 0) == 1u);
  CHECK(ftckpt::ring_phases(pl, 1) == 3u);
  CHECK(ftckpt::ring_phases(pl, 7) == 7u);                  // steady state: all phases
  CHECK(ftckpt::ring_phases(pl, 7, {false}) == 5u);         // save of k=7 (phase 1) in flight
  CHECK(ftckpt::ring_phases(pl, 8, {true, false, true}) == 5u);
  // Early in the run fewer failures are survivable than in the steady state.
  CHECK(ftckpt::compute_tolerance(pl, ftckpt::ring_phases(pl, 0)).tolerated <
        ftckpt::compute_tolerance(pl).tolerated);
}

TEST_CASE("search is fast for a few hundred processes", "[ftckpt][tolerance]") {
  auto start = std::chrono::steady_clock::now();
  int checked = 0;
  for (int n = 250; n <= 300; n += 10)
    for (int df = 2; df <= 4; ++df) {
      Placement pl(n, df, 4);
      auto t = ftckpt::compute_tolerance(pl);
      CHECK(ftckpt::is_fatal(pl, as_failed(pl, t.killing_set), ftckpt::all_phases(4)));
      ++checked;
    }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(checked == 18);
  CHECK(secs < 5.0);  // ~0.1 s measured on 2 cores; generous for loaded CI machines
}
