// Placement formula (1) of Bondarenko & Yakobovsky 2014 and its inverse.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "ftckpt/placement.hpp"

using ftckpt::Placement;

namespace {
// The paper's own code, verbatim apart from names, as the reference.
int paper_receiver(int i, int j, int k, int df, int sd, int n) {
  return (i + j * static_cast<int>(std::pow(static_cast<double>(df), k % sd)) + k % sd) % n;
}
}  // namespace

TEST_CASE("receiver matches hand-computed values", "[ftckpt][placement]") {
  Placement pl(10, 2, 3);
  CHECK(pl.receiver(3, 1, 0) == 4);  // 3 + 1*1 + 0
  CHECK(pl.receiver(3, 2, 0) == 5);
  CHECK(pl.receiver(3, 1, 1) == 6);  // 3 + 1*2 + 1
  CHECK(pl.receiver(3, 2, 1) == 8);  // 3 + 2*2 + 1
  CHECK(pl.receiver(3, 1, 2) == 9);  // 3 + 1*4 + 2
  CHECK(pl.receiver(3, 2, 2) == 3);  // 3 + 2*4 + 2 = 13: the copy lands on its owner
  CHECK(pl.receiver(3, 2, 5) == pl.receiver(3, 2, 2));  // only k mod SD matters
  CHECK(pl.receiver(9, 2, 1) == 4);  // wraps around
  CHECK(pl.holders(3, 1) == std::vector<int>{6, 8});
}

TEST_CASE("receiver equals the paper's code for many parameters", "[ftckpt][placement]") {
  for (int n : {1, 2, 5, 16, 37, 100})
    for (int df = 1; df <= 4; ++df)
      for (int sd = 1; sd <= 4; ++sd) {
        Placement pl(n, df, sd);
        for (int i = 0; i < n; ++i)
          for (int j = 1; j <= df; ++j)
            for (int k = 0; k < 2 * sd + 1; ++k)
              REQUIRE(pl.receiver(i, j, k) == paper_receiver(i, j, k, df, sd, n));
      }
}

TEST_CASE("large DF^SD does not overflow", "[ftckpt][placement]") {
  Placement pl(1000003, 64, 16);  // 64^15 far exceeds 64 bits
  for (int j = 1; j <= 64; ++j) {
    int r = pl.receiver(5, j, 15);
    CHECK(r >= 0);
    CHECK(r < 1000003);
  }
}

TEST_CASE("copies_held_by inverts receiver", "[ftckpt][placement]") {
  for (int n : {3, 7, 20}) {
    Placement pl(n, 3, 3);
    for (int k = 0; k < 3; ++k) {
      int total = 0;
      for (int r = 0; r < n; ++r) {
        auto held = pl.copies_held_by(r, k);
        total += static_cast<int>(held.size());
        for (const auto& c : held) REQUIRE(pl.receiver(c.owner, c.copy, k) == r);
      }
      CHECK(total == n * 3);  // every copy is held exactly once
    }
  }
}

TEST_CASE("paper's MNF and condition", "[ftckpt][placement]") {
  CHECK(ftckpt::paper_mnf(2, 2) == 3);
  CHECK(ftckpt::paper_mnf(3, 4) == 9);
  CHECK(ftckpt::paper_mnf(1, 5) == 1);
  CHECK_FALSE(ftckpt::paper_condition_holds(6, 2, 2));  // needs N > 4 + 2
  CHECK(ftckpt::paper_condition_holds(7, 2, 2));
  CHECK(ftckpt::paper_condition_holds(86, 3, 4));      // 81 + 4 = 85
  CHECK_FALSE(ftckpt::paper_condition_holds(85, 3, 4));
  CHECK_FALSE(ftckpt::paper_condition_holds(1000, 64, 16));  // saturates, no overflow
}

TEST_CASE("invalid parameters are rejected", "[ftckpt][placement]") {
  std::string why;
  CHECK_FALSE(Placement::valid_params(0, 1, 1, &why));
  CHECK_FALSE(why.empty());
  CHECK_FALSE(Placement::valid_params(4, 0, 1, nullptr));
  CHECK_FALSE(Placement::valid_params(4, 1, 0, nullptr));
  CHECK_FALSE(Placement::valid_params(4, 1, 17, nullptr));
  CHECK_THROWS_AS(Placement(4, 0, 2), std::invalid_argument);
  Placement pl(4, 2, 2);
  CHECK(pl.memory_units() == 6);
  CHECK_THROWS_AS(pl.receiver(4, 1, 0), std::out_of_range);
  CHECK_THROWS_AS(pl.receiver(0, 3, 0), std::out_of_range);
}
