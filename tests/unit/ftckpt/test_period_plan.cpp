// Planner arithmetic: Young/Daly and the multi-level pattern of seed 002, figure 5.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "ftckpt/period_plan.hpp"

using Catch::Detail::Approx;
using ftckpt::LevelCost;

TEST_CASE("Young's interval", "[ftckpt][period]") {
  CHECK(ftckpt::young_interval(1, 1800) == Approx(60.0));
  CHECK(ftckpt::young_interval(6, 36000) == Approx(std::sqrt(432000.0)));
  CHECK(ftckpt::young_interval(50, 10000) == Approx(1000.0));
}

TEST_CASE("Daly's higher-order interval", "[ftckpt][period]") {
  // sqrt(2*1*1800) * (1 + sqrt(1/3600)/3 + 1/(18*1800)) - 1
  CHECK(ftckpt::daly_interval(1, 1800) == Approx(59.33519).epsilon(1e-6));
  // C = 50, M = 10000: 1000 * (1 + sqrt(0.0025)/3 + 0.0025/9) - 50
  CHECK(ftckpt::daly_interval(50, 10000) == Approx(966.9444).epsilon(1e-6));
  CHECK(ftckpt::daly_interval(300, 100) == Approx(100.0));  // C >= 2M: save every MTBF
}

TEST_CASE("one level reduces to Young", "[ftckpt][period]") {
  auto plan = ftckpt::plan_pattern({LevelCost{2, 1, 5000}});
  REQUIRE(plan.counts == std::vector<int>{1});
  CHECK(plan.length == Approx(ftckpt::young_interval(2, 5000)));
  CHECK(plan.period[0] == Approx(plan.length));
  // H = C/W + W/(2M) + R/M at W = sqrt(2CM) is sqrt(2C/M) + R/M.
  CHECK(plan.waste == Approx(std::sqrt(2.0 * 2 / 5000) + 1.0 / 5000));
}

TEST_CASE("two-level pattern with the seed's parameters", "[ftckpt][period]") {
  std::vector<LevelCost> levels{{1, 0.5, 1800}, {6, 4, 36000}};
  auto plan = ftckpt::plan_pattern(levels);
  CHECK(plan.counts_real[0] == Approx(std::sqrt(120.0)));  // sqrt(6 * 20 / 1)
  CHECK(plan.counts_real[1] == Approx(1.0));
  // W = sqrt(2 (N1 C1 + C2) / (lambda1 / N1 + lambda2))
  double n1 = std::sqrt(120.0);
  double w = std::sqrt(2 * (n1 + 6) / (1.0 / 1800 / n1 + 1.0 / 36000));
  CHECK(plan.length_real == Approx(w));
  REQUIRE(plan.counts.size() == 2);
  CHECK((plan.counts[0] == 10 || plan.counts[0] == 11));
  CHECK(plan.counts[1] == 1);
  CHECK(plan.every == std::vector<int>{1, plan.counts[0]});
  CHECK(plan.period[0] == Approx(plan.length / plan.counts[0]));
  CHECK(plan.waste >= plan.waste_real);
  CHECK(plan.waste <= plan.waste_real * 1.01);  // rounding costs little here
  // The integer plan is the better of the two roundings.
  for (int c : {10, 11}) {
    std::vector<double> counts{double(c), 1.0};
    double wc = std::sqrt(2 * (c * 1.0 + 6) / (1.0 / 1800 / c + 1.0 / 36000));
    CHECK(plan.waste <= ftckpt::pattern_waste(levels, counts, wc) + 1e-12);
  }
}

TEST_CASE("three-level plans are nested", "[ftckpt][period]") {
  auto plan = ftckpt::plan_pattern({{0.5, 0.2, 600}, {5, 3, 7200}, {60, 40, 86400}});
  REQUIRE(plan.counts.size() == 3);
  CHECK(plan.counts[2] == 1);
  for (int i = 0; i < 2; ++i) {
    CHECK(plan.counts[i] % plan.counts[i + 1] == 0);
    CHECK(plan.counts[i] >= plan.counts[i + 1]);
    CHECK(plan.period[i] <= plan.period[i + 1]);
  }
}

TEST_CASE("bad planner input is rejected", "[ftckpt][period]") {
  CHECK_THROWS_AS(ftckpt::plan_pattern({}), std::invalid_argument);
  CHECK_THROWS_AS(ftckpt::plan_pattern({{0, 1, 100}}), std::invalid_argument);
  CHECK_THROWS_AS(ftckpt::plan_pattern({{1, 1, -5}}), std::invalid_argument);
}
