// Checkpoint periods: Young/Daly for one level, and the multi-level pattern used by
// Bondarenko, Lyakhov & Yakobovsky 2019 (seed 002, figure 5, after Benoit et al. 2016).
//
// Pattern model (first order). A pattern of length W (work seconds) holds N_i saves of
// level i, nested: every level-(i+1) save instant also saves level i, N_K = 1 for the top
// level K. Per unit of work the expected waste is
//     H(W, N) = sum_i N_i C_i / W  +  (W / 2) * sum_i lambda_i / N_i  +  sum_i lambda_i R_i
// (checkpoint cost spread over the pattern, plus half a level-i segment lost per level-i
// failure, plus the recovery itself). Setting the derivatives to zero gives figure 5:
//     N_i = sqrt(C_K lambda_i / (lambda_K C_i)),   W = sqrt(2 sum N_i C_i / sum lambda_i / N_i),
// and for one level W = sqrt(2 C M), Young's interval.
#pragma once

#include <vector>

namespace ftckpt {

struct LevelCost {
  double ckpt;      // C_i: seconds to save one level-i checkpoint
  double recovery;  // R_i: seconds to restart from level i
  double mtbf;      // M_i = 1 / lambda_i: mean seconds between failures that need level i
};

// Young 1974: sqrt(2 C M).
double young_interval(double ckpt, double mtbf);

// Daly 2006, higher-order estimate of the compute time between checkpoints:
//   sqrt(2 C M) * (1 + sqrt(C / (2M)) / 3 + C / (18 M)) - C   for C < 2M, else M.
double daly_interval(double ckpt, double mtbf);

struct PatternPlan {
  std::vector<double> counts_real;  // N_i from figure 5, level 0 first; the top level is 1
  double length_real = 0;           // W for counts_real
  std::vector<int> counts;          // nested integers: counts[i] is a multiple of counts[i+1]
  double length = 0;                // optimal W for the integer counts
  std::vector<double> period;       // length / counts[i]: work between two level-i saves
  std::vector<int> every;           // counts[0] / counts[i]: level i at every n-th level-0 save
  double waste_real = 0;            // H for the real-valued optimum (a lower bound)
  double waste = 0;                 // H for the integer plan
};

// Levels ordered from most frequent/cheapest to rarest/most expensive, as in the seed.
// Rounds each ratio N_i / N_{i+1} down or up (at least 1) and keeps the combination with the
// smallest H. Throws std::invalid_argument on empty input or non-positive C or MTBF.
PatternPlan plan_pattern(const std::vector<LevelCost>& levels);

// H(W, counts) as defined above.
double pattern_waste(const std::vector<LevelCost>& levels, const std::vector<double>& counts,
                     double length);

}  // namespace ftckpt
