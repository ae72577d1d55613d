// Failure simulator: determinism, exact failure-free cost, and the qualitative results of
// the seed's table 3.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "ftckpt/failure_sim.hpp"

using Catch::Detail::Approx;
using ftckpt::RecoveryStrategy;
using ftckpt::SimConfig;

namespace {

SimConfig seed_config(double mtbf1, double mtbf2, RecoveryStrategy s, int spares, int runs) {
  SimConfig cfg;
  cfg.levels = {{1, 0.5, mtbf1}, {6, 4, mtbf2}};
  ftckpt::apply_plan(cfg);
  cfg.strategy = s;
  cfg.spares = spares;
  cfg.runs = runs;
  cfg.seed = 42;
  return cfg;
}

}  // namespace

TEST_CASE("same seed, same result; other seed, other result", "[ftckpt][sim]") {
  auto cfg = seed_config(360, 1800, RecoveryStrategy::coordinated, 1, 300);
  auto a = ftckpt::simulate(cfg), b = ftckpt::simulate(cfg);
  CHECK(a.mean_overhead == b.mean_overhead);
  CHECK(a.std_overhead == b.std_overhead);
  CHECK(a.mean_failures == b.mean_failures);
  cfg.seed = 43;
  CHECK(ftckpt::simulate(cfg).mean_overhead != a.mean_overhead);
  auto r1 = ftckpt::simulate_run(cfg, 7), r2 = ftckpt::simulate_run(cfg, 7);
  CHECK(r1.overhead == r2.overhead);
  CHECK(r1.failures == r2.failures);
}

TEST_CASE("without failures the overhead is exactly the saves", "[ftckpt][sim]") {
  SimConfig cfg;
  cfg.work = 100;
  cfg.levels = {{1, 0.5, 1e15}, {6, 4, 1e15}};
  cfg.slot = 10;
  cfg.every = {1, 5};
  cfg.runs = 3;
  // Saves after 10..90 s of work (none at the end): nine level-1 saves, one level-2 at 50.
  auto st = ftckpt::simulate(cfg);
  CHECK(st.mean_overhead == Approx(9 * 1 + 6));
  CHECK(st.std_overhead == Approx(0).margin(1e-9));
  CHECK(st.mean_failures == std::vector<double>{0, 0});
}

TEST_CASE("overhead grows as MTBF shrinks", "[ftckpt][sim]") {
  const double pairs[][2] = {{1800, 36000}, {720, 3600}, {360, 1800}, {180, 900}};
  for (auto [s, k] : {std::pair{RecoveryStrategy::coordinated, 1},
                      std::pair{RecoveryStrategy::asynchronous, 2}}) {
    double previous = 0;
    for (auto& p : pairs) {
      double mean = ftckpt::simulate(seed_config(p[0], p[1], s, k, 1000)).mean_overhead;
      CHECK(mean > previous);
      previous = mean;
    }
  }
}

TEST_CASE("asynchronous recovery beats rollback, more spares beat fewer", "[ftckpt][sim]") {
  for (auto& p : {std::pair{1800.0, 36000.0}, std::pair{180.0, 900.0}}) {
    double coord = ftckpt::simulate(seed_config(p.first, p.second, RecoveryStrategy::coordinated,
                                                1, 2000)).mean_overhead;
    double k2 = ftckpt::simulate(seed_config(p.first, p.second, RecoveryStrategy::asynchronous,
                                             2, 2000)).mean_overhead;
    double k5 = ftckpt::simulate(seed_config(p.first, p.second, RecoveryStrategy::asynchronous,
                                             5, 2000)).mean_overhead;
    CHECK(k2 < coord);
    CHECK(k5 < k2);
  }
}

TEST_CASE("failure counts follow wall time / MTBF", "[ftckpt][sim]") {
  auto cfg = seed_config(180, 900, RecoveryStrategy::coordinated, 1, 3000);
  auto st = ftckpt::simulate(cfg);
  double wall = cfg.work + st.mean_overhead;
  CHECK(st.mean_failures[0] == Approx(wall / 180).epsilon(0.05));
  CHECK(st.mean_failures[1] == Approx(wall / 900).epsilon(0.08));
  // The seed's table 3 (simulation row) reports 955 s; the model matches within noise.
  CHECK(st.mean_overhead == Approx(955).epsilon(0.10));
}

TEST_CASE("inconsistent simulator input is rejected", "[ftckpt][sim]") {
  SimConfig cfg;
  CHECK_THROWS_AS(ftckpt::simulate(cfg), std::invalid_argument);  // no levels
  cfg.levels = {{1, 0.5, 100}};
  cfg.slot = 10;
  cfg.every = {1, 2};
  CHECK_THROWS_AS(ftckpt::simulate(cfg), std::invalid_argument);  // every size mismatch
  cfg.every = {1};
  cfg.strategy = RecoveryStrategy::asynchronous;
  cfg.spares = 0;
  CHECK_THROWS_AS(ftckpt::simulate(cfg), std::invalid_argument);
}
