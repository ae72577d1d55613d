// Level 3 (XOR groups) geometry and the choice of a recovery level from the failure
// topology (level_select.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "ftckpt/level_select.hpp"
#include "ftckpt/recovery_line.hpp"
#include "ftckpt/xor_groups.hpp"

using namespace ftckpt;

namespace {

std::vector<int> iota_ranks(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

std::vector<char> dead_of(int n, const std::vector<int>& lost) {
  std::vector<char> d(n, 0);
  for (int r : lost) d[r] = 1;
  return d;
}

LevelQuery query(const Placement& pl, std::int64_t last, const std::vector<int>& lost,
                 const XorGroups* groups = nullptr, std::int64_t file = -1) {
  LevelQuery q;
  q.placement = &pl;
  q.last_saved = last;
  q.dead = dead_of(pl.n(), lost);
  q.groups = groups;
  q.newest_file = file;
  return q;
}

// Parity of the member at position m, computed the way save.cpp does: the XOR of every
// other member's chunk in column m, zero padded.
std::vector<char> parity_of(const std::vector<std::vector<char>>& images, int m, std::size_t c) {
  std::vector<char> p(c, 0);
  for (int i = 0; i < static_cast<int>(images.size()); ++i) {
    if (i == m) continue;
    ChunkSpan s = xor_chunk_span(images[i].size(), c, xor_chunk(i, m));
    xor_into(p.data(), images[i].data() + s.offset, s.length);
  }
  return p;
}

// The lost member's image rebuilt from the survivors' pieces, as recover.cpp does.
std::vector<char> rebuild(const std::vector<std::vector<char>>& images,
                          const std::vector<std::vector<char>>& parity, int lost, std::size_t c) {
  const int s = static_cast<int>(images.size());
  std::vector<char> out(c * static_cast<std::size_t>(s - 1), 0);
  for (int q = 0; q < s; ++q) {
    if (q == lost) continue;
    for (int col = 0; col < s; ++col) {
      if (col == lost) continue;
      RebuildPiece piece = xor_rebuild_piece(q, lost, col, images[q].size(), c);
      const char* src = piece.is_parity ? parity[q].data() : images[q].data() + piece.span.offset;
      xor_into(out.data() + c * static_cast<std::size_t>(xor_chunk(lost, col)), src, piece.span.length);
    }
  }
  out.resize(images[lost].size());
  return out;
}

}  // namespace

TEST_CASE("XOR groups are consecutive; a lone last member joins the group before",
          "[ftckpt][levels]") {
  XorGroups a(8, iota_ranks(8), 3);
  REQUIRE(a.count() == 3);
  CHECK(a.members(0) == std::vector<int>{0, 1, 2});
  CHECK(a.members(2) == std::vector<int>{6, 7});
  XorGroups b(7, iota_ranks(7), 3);
  REQUIRE(b.count() == 2);
  CHECK(b.members(1) == std::vector<int>{3, 4, 5, 6});
  CHECK(b.group_of(6) == 1);
  CHECK(b.position(6) == 3);
  // BLANK gaps own no data and are no members.
  XorGroups c(6, {0, 2, 3, 5}, 2);
  REQUIRE(c.count() == 2);
  CHECK(c.members(1) == std::vector<int>{3, 5});
  CHECK(c.group_of(1) == -1);
  CHECK(c.position(5) == 1);
  CHECK_FALSE(XorGroups(4, iota_ranks(4), 1).enabled());
  CHECK_FALSE(XorGroups(4, {2}, 2).enabled());
  XorGroups d(3, iota_ranks(3), 8);  // fewer ranks than g: one group of all
  REQUIRE(d.count() == 1);
  CHECK(d.members(0).size() == 3);
}

TEST_CASE("chunk geometry", "[ftckpt][levels]") {
  CHECK(xor_chunk_bytes(10, 3) == 5);
  CHECK(xor_chunk_bytes(11, 3) == 6);
  CHECK(xor_chunk_bytes(11, 2) == 11);
  CHECK(xor_chunk_bytes(11, 1) == 0);
  for (int p = 0; p < 5; ++p)
    for (int t = 0; t < 4; ++t) {
      CHECK(xor_column(p, t) != p);
      CHECK(xor_chunk(p, xor_column(p, t)) == t);
    }
  ChunkSpan s = xor_chunk_span(11, 6, 1);
  CHECK(s.offset == 6);
  CHECK(s.length == 5);
  CHECK(xor_chunk_span(5, 6, 1).length == 0);
  CHECK_THROWS(xor_rebuild_piece(1, 1, 0, 10, 5));
  CHECK_THROWS(xor_rebuild_piece(0, 1, 1, 10, 5));
}

TEST_CASE("any single member of a group is rebuilt bit-exactly from the others and parity",
          "[ftckpt][levels]") {
  std::mt19937 rng(42);
  for (int s = 2; s <= 6; ++s) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<std::vector<char>> images(s);
      std::size_t max = 0;
      for (auto& im : images) {
        // Unequal sizes, sometimes empty, sometimes not a multiple of s-1.
        im.resize(rng() % 4 == 0 ? rng() % 3 : 1 + rng() % 200);
        for (char& b : im) b = static_cast<char>(rng());
        max = std::max(max, im.size());
      }
      const std::size_t c = xor_chunk_bytes(max, s);
      std::vector<std::vector<char>> parity(s);
      for (int m = 0; m < s; ++m) parity[m] = parity_of(images, m, c);
      for (int lost = 0; lost < s; ++lost) {
        INFO("group of " << s << ", trial " << trial << ", lost position " << lost);
        CHECK(rebuild(images, parity, lost, c) == images[lost]);
      }
    }
  }
}

TEST_CASE("level 1 when nobody who owned data was lost", "[ftckpt][levels]") {
  Placement pl(4, 2, 2);
  LevelChoice c = choose_level(query(pl, 7, {}));
  CHECK(c.level == 1);
  CHECK(c.iteration == 7);
  CHECK(c.source == std::vector<int>{0, 1, 2, 3});
  // A BLANK gap is not a loss.
  LevelQuery q = query(pl, 7, {2});
  q.gap = {0, 0, 1, 0};
  c = choose_level(q);
  CHECK(c.level == 1);
  CHECK(c.source[2] == kSourceNone);
}

TEST_CASE("level 2 when every lost process has a surviving copy, even with XOR groups",
          "[ftckpt][levels]") {
  Placement pl(4, 1, 1);  // copy of i on i+1
  XorGroups g(4, iota_ranks(4), 2);
  LevelChoice c = choose_level(query(pl, 3, {3}, &g));
  CHECK(c.level == 2);
  CHECK(c.source == std::vector<int>{0, 1, 2, 0});
}

TEST_CASE("level 3: the copy holder died too, the XOR group rebuilds", "[ftckpt][levels]") {
  // DF=1, SD=1, N=4: 1's only copy is on 2. Groups {0,1} and {2,3} each lost one member.
  Placement pl(4, 1, 1);
  XorGroups g(4, iota_ranks(4), 2);
  LevelChoice c = choose_level(query(pl, 3, {1, 2}, &g));
  CHECK(c.level == 3);
  CHECK(c.iteration == 3);
  CHECK(c.source == std::vector<int>{0, kSourceParity, 3, 3});  // 2's copy on 3 survives
  // Without level 3 nothing is left.
  c = choose_level(query(pl, 3, {1, 2}));
  CHECK(c.level == 0);
  CHECK(c.lost_at_newest == std::vector<int>{1});
  // Two losses in one group, one of them without a copy: not level 3; files serve.
  c = choose_level(query(pl, 3, {0, 1}, &g));
  CHECK(c.level == 0);
  c = choose_level(query(pl, 3, {0, 1}, &g, 2));
  CHECK(c.level == 4);
  CHECK(c.iteration == 2);
  CHECK(c.source == std::vector<int>(4, kSourceFile));
}

TEST_CASE("the newest iteration wins over a lower level of an older one", "[ftckpt][levels]") {
  // DF=1, SD=2, N=4: k=5 (phase 1) copies on i+2, k=4 (phase 0) on i+1. Lost {0, 2}: at 5,
  // 0's copy is on 2 (lost); at 4 both copies survive.
  Placement pl(4, 1, 2);
  XorGroups g(4, iota_ranks(4), 2);
  LevelChoice c = choose_level(query(pl, 5, {0, 2}));
  CHECK(c.level == 2);
  CHECK(c.iteration == 4);
  c = choose_level(query(pl, 5, {0, 2}, &g));
  CHECK(c.level == 3);
  CHECK(c.iteration == 5);
  // An incomplete newest slot is skipped: then the older L2 line is the newest.
  LevelQuery q = query(pl, 5, {0, 2}, &g);
  q.complete_by_age = {false, true};
  c = choose_level(q);
  CHECK(c.level == 2);
  CHECK(c.iteration == 4);
  // Files of a newer iteration than memory can rebuild.
  c = choose_level(query(pl, 5, {0, 2}, nullptr, 5));
  CHECK(c.level == 4);
  CHECK(c.iteration == 5);
  // ... but not of an older one.
  c = choose_level(query(pl, 5, {0, 2}, nullptr, 2));
  CHECK(c.level == 2);
  CHECK(c.iteration == 4);
}

TEST_CASE("random failure sets: the choice is consistent with RLFFN and the group rule",
          "[ftckpt][levels]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 3 + static_cast<int>(rng() % 14), df = 1 + static_cast<int>(rng() % 3),
              sd = 1 + static_cast<int>(rng() % 3), gsize = 2 + static_cast<int>(rng() % 4);
    Placement pl(n, df, sd);
    XorGroups g(n, iota_ranks(n), gsize);
    std::vector<int> lost;
    for (int r = 0; r < n; ++r)
      if (rng() % 4 == 0) lost.push_back(r);
    const std::int64_t last = sd + static_cast<std::int64_t>(rng() % 10);
    INFO("n " << n << " df " << df << " sd " << sd << " g " << gsize << " lost " << lost.size());
    LevelChoice without = choose_level(query(pl, last, lost));
    RecoveryLine line = find_recovery_line(pl, last, lost);
    CHECK(without.recoverable() == line.recoverable());
    CHECK(without.iteration == line.iteration);
    if (line.recoverable()) CHECK(without.level == (lost.empty() ? 1 : 2));

    LevelChoice with = choose_level(query(pl, last, lost, &g));
    CHECK(with.iteration >= without.iteration);
    if (with.level == 3) {
      std::vector<char> dead = dead_of(n, lost);
      for (int o : lost) {
        if (with.source[o] >= 0) {
          CHECK_FALSE(dead[with.source[o]]);
          continue;
        }
        REQUIRE(with.source[o] == kSourceParity);
        CHECK(surviving_holder(pl, o, with.iteration, dead) < 0);
        for (int m : g.members(g.group_of(o))) CHECK((m == o || !dead[m]));
      }
    }
    // A group that lost at most one member each is always recoverable at the newest.
    bool one_per_group = true;
    for (int gi = 0; gi < g.count(); ++gi) {
      int count = 0;
      for (int m : g.members(gi)) count += std::find(lost.begin(), lost.end(), m) != lost.end();
      one_per_group = one_per_group && count <= 1;
    }
    if (one_per_group) {
      CHECK(with.iteration == last);
      CHECK(with.level >= 1);
    }
  }
}
