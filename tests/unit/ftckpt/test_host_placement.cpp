// Host-aware placement (placement.hpp, several hosts) and the host tolerance: hand-checked
// small cases, and brute forces for random host maps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "ftckpt/host_tolerance.hpp"
#include "ftckpt/placement.hpp"
#include "ftckpt/tolerance.hpp"

using ftckpt::Placement;

namespace {

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void check_no_copy_on_own_host(const Placement& pl) {
  for (int p = 0; p < pl.sd(); ++p)
    for (int i = 0; i < pl.n(); ++i)
      for (int r : pl.holders(i, p)) {
        INFO("owner " << i << " phase " << p << " holder " << r);
        CHECK(pl.host_of(r) != pl.host_of(i));
      }
}

void check_inverse(const Placement& pl) {
  for (int p = 0; p < pl.sd(); ++p) {
    std::size_t total = 0;
    for (int r = 0; r < pl.n(); ++r)
      for (const auto& h : pl.copies_held_by(r, p)) {
        CHECK(pl.receiver(h.owner, h.copy, p) == r);
        ++total;
      }
    CHECK(total == static_cast<std::size_t>(pl.n()) * pl.df());
  }
}

}  // namespace

TEST_CASE("one host: the host-aware constructor is formula (1) unchanged") {
  for (int n : {1, 2, 5, 10, 17})
    for (int df = 1; df <= 3; ++df)
      for (int sd = 1; sd <= 3; ++sd) {
        Placement plain(n, df, sd), hosted(n, df, sd, std::vector<int>(n, 42));
        CHECK(hosted.hosts() == 1);
        CHECK(hosted.ring_invariant());
        for (int k = 0; k < sd; ++k)
          for (int i = 0; i < n; ++i) CHECK(hosted.holders(i, k) == plain.holders(i, k));
      }
}

TEST_CASE("3 hosts x 2 ranks, DF=1, SD=1: a ring over the hosts") {
  // Ring 0 2 4 1 3 5 (hosts 0 1 2 0 1 2); offset 1 along it already leaves the host.
  Placement pl(6, 1, 1, {0, 0, 1, 1, 2, 2});
  CHECK(pl.hosts() == 3);
  CHECK(pl.ring_order() == std::vector<int>{0, 2, 4, 1, 3, 5});
  const int expect[6] = {2, 3, 4, 5, 1, 0};  // receiver of ranks 0..5
  for (int i = 0; i < 6; ++i) CHECK(pl.receiver(i, 1, 0) == expect[i]);
  check_no_copy_on_own_host(pl);
  // Two ranks (owner and its copy, on two hosts) or two hosts are fatal.
  CHECK(ftckpt::compute_tolerance(pl).tolerated == 1);
  const auto ht = ftckpt::compute_host_tolerance(pl);
  CHECK(ht.hosts == 3);
  CHECK(ht.tolerated == 1);
  CHECK(ht.killing_hosts.size() == 2);
  CHECK(ht.killing_ranks.size() == 4);
  // Formula (1) on the ranks puts rank 0's copy on rank 1, its own host: one host is fatal.
  Placement flat(6, 1, 1);
  CHECK(flat.receiver(0, 1, 0) == 1);
}

TEST_CASE("3 hosts x 2 ranks, DF=2, SD=2: copies on both other hosts, any 2 hosts survivable") {
  Placement pl(6, 2, 2, {0, 0, 1, 1, 2, 2});
  // Phase 0: offsets 1, 2 along the ring (hosts h+1, h+2). Phase 1: formula offsets 3, 5;
  // 3 lands on the owner's host and moves one step to 4 (host h+1); 5 is host h+2.
  CHECK(pl.ring_invariant());
  CHECK(pl.copy_offsets(0) == std::vector<int>{1, 2});
  CHECK(pl.copy_offsets(1) == std::vector<int>{4, 5});
  CHECK(pl.holders(0, 0) == std::vector<int>{2, 4});
  CHECK(pl.holders(0, 1) == std::vector<int>{3, 5});
  CHECK(pl.holders(3, 1) == std::vector<int>{4, 1});  // position 4: +4 = 2 (rank 4), +5 = 3 (rank 1)
  check_no_copy_on_own_host(pl);
  check_inverse(pl);
  // Every closed group spans all three hosts: only losing all three is fatal.
  const auto ht = ftckpt::compute_host_tolerance(pl);
  CHECK(ht.tolerated == 2);
  CHECK(ht.killing_hosts == std::vector<int>{0, 1, 2});
  // Ranks: C_0(v) = {v, v+1, v+2} equals C_1(v+2) = {v+2, v, v+1}; positions 0 1 2 are
  // ranks 0 2 4, one per host, so 3 rank failures are fatal.
  const auto t = ftckpt::compute_tolerance(pl);
  CHECK(t.tolerated == 2);
  CHECK(t.killing_set == std::vector<int>{0, 2, 4});
  CHECK(ftckpt::brute_force_tolerance(pl, ftckpt::all_phases(2)).tolerated == 2);
}

TEST_CASE("two unequal hosts: every copy leaves the host, even onto one rank") {
  Placement pl(4, 2, 1, {5, 5, 5, 9});
  CHECK(pl.hosts() == 2);
  for (int i = 0; i < 3; ++i) CHECK(pl.holders(i, 0) == std::vector<int>{3, 3});
  // Ring 0 3 1 2: rank 3's copies start at ranks 1 and 2, both on the other host.
  CHECK(sorted(pl.holders(3, 0)) == std::vector<int>{1, 2});
  check_no_copy_on_own_host(pl);
  check_inverse(pl);
  // Either host alone leaves the other's copies: 1 host tolerated. Ranks: {0, 3} is fatal.
  CHECK(ftckpt::compute_host_tolerance(pl).tolerated == 1);
  CHECK(ftckpt::compute_tolerance(pl).tolerated == 1);
}

TEST_CASE("random host maps: exact searches agree with brute force") {
  std::mt19937 rng(15);
  for (int round = 0; round < 400; ++round) {
    const int n = 2 + static_cast<int>(rng() % 10);
    const int df = 1 + static_cast<int>(rng() % 3);
    const int sd = 1 + static_cast<int>(rng() % 3);
    const int hosts = 2 + static_cast<int>(rng() % 4);
    std::vector<int> map(n);
    for (int& h : map) h = static_cast<int>(rng() % hosts);
    if (round % 3 == 0) std::sort(map.begin(), map.end());  // contiguous, as --map-by slot
    Placement pl(n, df, sd, map);
    INFO("n " << n << " df " << df << " sd " << sd << " round " << round);
    if (pl.hosts() > 1) check_no_copy_on_own_host(pl);
    check_inverse(pl);
    const ftckpt::PhaseMask mask = 1 + rng() % ftckpt::all_phases(sd);
    const auto t = ftckpt::compute_tolerance(pl, mask);
    CHECK(t.tolerated == ftckpt::brute_force_tolerance(pl, mask).tolerated);
    std::vector<char> failed(n, 0);
    for (int r : t.killing_set) failed[r] = 1;
    CHECK(ftckpt::is_fatal(pl, failed, mask));
    const auto ht = ftckpt::compute_host_tolerance(pl, mask);
    CHECK(ht.tolerated == ftckpt::brute_force_host_tolerance(pl, mask).tolerated);
    std::fill(failed.begin(), failed.end(), 0);
    for (int r : ht.killing_ranks) failed[r] = 1;
    CHECK(ftckpt::is_fatal(pl, failed, mask));
  }
}

TEST_CASE("equal hosts stay a rotation along the ring: balanced and the fast search") {
  for (int hosts : {2, 3, 4, 8})
    for (int per : {1, 2, 4, 16}) {
      std::vector<int> map;
      for (int h = 0; h < hosts; ++h) map.insert(map.end(), per, h);
      Placement pl(hosts * per, 2, 3, map);
      INFO(hosts << " hosts x " << per);
      CHECK(pl.ring_invariant());
      check_no_copy_on_own_host(pl);
      for (int r = 0; r < pl.n(); ++r) CHECK(pl.copies_held_by(r, 1).size() == 2u);
      CHECK(ftckpt::compute_host_tolerance(pl).tolerated >= 1);
    }
}

TEST_CASE("formula (1) judged on explicit hosts: one host lost can be fatal") {
  // 3 hosts x 2 ranks, DF=2, SD=2 without host awareness: copy 1 of rank 0 is rank 1 (same
  // host). Hosts {0, 1} = ranks 0-3 kill both phases (phase 0: rank 0 -> 1, 2; phase 1:
  // rank 3 -> 0, 2), while any one host does not: tolerated 1.
  Placement flat(6, 2, 2);
  const std::vector<int> map{7, 7, 8, 8, 9, 9};
  const auto ht = ftckpt::compute_host_tolerance(flat, map, ftckpt::all_phases(2));
  CHECK(ht.hosts == 3);
  CHECK(ht.tolerated == 1);
  CHECK(ht.killing_ranks.size() == 4u);
  std::vector<char> failed(6, 0);
  for (int r : ht.killing_ranks) failed[r] = 1;
  CHECK(ftckpt::is_fatal(flat, failed, ftckpt::all_phases(2)));
  // 2 hosts x 8 ranks, DF=2, SD=2: formula (1) loses everything with either host.
  std::vector<int> two(16);
  for (int r = 0; r < 16; ++r) two[r] = r / 8;
  CHECK(ftckpt::compute_host_tolerance(Placement(16, 2, 2), two, ftckpt::all_phases(2)).tolerated == 0);
  CHECK(ftckpt::compute_host_tolerance(Placement(16, 2, 2, two)).tolerated == 1);
}
