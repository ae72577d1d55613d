// Failure simulation of a multi-level checkpointed run (seed 002, section 2.2, tables 1-2).
//
// Two clocks as in the seed: `work` (T_comp, useful computation done) and `wall` (T_cur).
// Failures of level i arrive as a Poisson process in wall time with rate 1/MTBF_i, so they
// strike during computation, during checkpointing and during recovery. Saves follow a nested
// pattern: one save every `slot` seconds of work, level i at every every[i]-th save (a save
// of level i also writes all lower levels, cost sum of their C). A level-i failure destroys
// checkpoints of levels below i; the restart point is the newest save of level >= i.
//  * coordinated: everyone rolls back there and recomputes; wall += R_i (table 1).
//  * asynchronous with k spares: survivors wait while k spares replay the lost work from
//    logged messages k times faster; work is not rolled back; wall += R_i + lost / k
//    (table 2). Failures of levels above `async_max_level` fall back to coordinated.
// The seed steps time in increments of dt = 0.5 s; this simulator is event driven (the
// dt -> 0 limit), which removes the quantisation without changing the model.
#pragma once

#include <cstdint>
#include <vector>

#include "ftckpt/period_plan.hpp"

namespace ftckpt {

enum class RecoveryStrategy { coordinated, asynchronous };

struct SimConfig {
  double work = 3600.0;          // T_3: planned failure-free computation, seconds
  std::vector<LevelCost> levels; // per-level C, R, MTBF, level 0 first
  double slot = 0;               // work between consecutive saves (the level-0 period)
  std::vector<int> every;        // level i saved at every every[i]-th save; every[0] = 1
  RecoveryStrategy strategy = RecoveryStrategy::coordinated;
  int spares = 1;                // k, asynchronous only
  int async_max_level = 1 << 30; // highest level (0-based) recovered asynchronously
  int runs = 1000;
  std::uint64_t seed = 1;
};

// Fills slot/every from plan_pattern(levels) (the integer nested plan).
void apply_plan(SimConfig& cfg);

struct RunResult {
  double overhead = 0;           // wall - work
  std::vector<int> failures;     // per level, including failures during saves and recovery
};

struct SimStats {
  int runs = 0;
  double mean_overhead = 0;
  double std_overhead = 0;       // sample standard deviation
  std::vector<double> mean_failures;
};

// One run. Run r of a given seed sees the same failure arrival times under every strategy
// (common random numbers), so strategy differences are not sampling noise.
// Throws std::invalid_argument for an inconsistent configuration.
RunResult simulate_run(const SimConfig& cfg, std::uint64_t run_index);

SimStats simulate(const SimConfig& cfg);

}  // namespace ftckpt
