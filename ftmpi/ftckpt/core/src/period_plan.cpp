#include "ftckpt/period_plan.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ftckpt {

double young_interval(double ckpt, double mtbf) { return std::sqrt(2.0 * ckpt * mtbf); }

double daly_interval(double ckpt, double mtbf) {
  if (ckpt >= 2.0 * mtbf) return mtbf;  // checkpointing costs more than it saves
  double r = ckpt / (2.0 * mtbf);
  return std::sqrt(2.0 * ckpt * mtbf) * (1.0 + std::sqrt(r) / 3.0 + r / 9.0) - ckpt;
}

namespace {

// W minimising H for fixed counts: argmin of A/W + W B/2 is sqrt(2A/B).
double optimal_length(const std::vector<LevelCost>& levels, const std::vector<double>& counts) {
  double top = 0, bottom = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    top += counts[i] * levels[i].ckpt;
    bottom += (1.0 / levels[i].mtbf) / counts[i];
  }
  return std::sqrt(2.0 * top / bottom);
}

}  // namespace

double pattern_waste(const std::vector<LevelCost>& levels, const std::vector<double>& counts,
                     double length) {
  double h = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    double lambda = 1.0 / levels[i].mtbf;
    h += counts[i] * levels[i].ckpt / length + length / 2.0 * lambda / counts[i] +
         lambda * levels[i].recovery;
  }
  return h;
}

PatternPlan plan_pattern(const std::vector<LevelCost>& levels) {
  if (levels.empty()) throw std::invalid_argument("plan_pattern: no levels");
  for (const auto& l : levels)
    if (!(l.ckpt > 0) || !(l.mtbf > 0) || l.recovery < 0)
      throw std::invalid_argument("plan_pattern: costs and MTBF must be positive");
  const std::size_t k = levels.size();
  if (k > 20) throw std::invalid_argument("plan_pattern: at most 20 levels");

  PatternPlan plan;
  const LevelCost& top = levels.back();
  for (const auto& l : levels)
    plan.counts_real.push_back(std::sqrt(top.ckpt * (1.0 / l.mtbf) / ((1.0 / top.mtbf) * l.ckpt)));
  plan.length_real = optimal_length(levels, plan.counts_real);
  plan.waste_real = pattern_waste(levels, plan.counts_real, plan.length_real);

  // Nesting needs integer ratios between neighbouring levels; each real ratio is rounded
  // down or up and the 2^(K-1) combinations are compared by H (K is small).
  std::vector<double> ratio(k, 1.0);
  for (std::size_t i = 0; i + 1 < k; ++i) ratio[i] = plan.counts_real[i] / plan.counts_real[i + 1];
  double best = std::numeric_limits<double>::infinity();
  for (unsigned combo = 0; combo < (1u << (k - 1)); ++combo) {
    std::vector<int> counts(k, 1);
    for (std::size_t i = k - 1; i-- > 0;) {
      double r = (combo >> i & 1) ? std::ceil(ratio[i]) : std::floor(ratio[i]);
      counts[i] = counts[i + 1] * static_cast<int>(std::max(1.0, r));
    }
    std::vector<double> c(counts.begin(), counts.end());
    double w = optimal_length(levels, c);
    double h = pattern_waste(levels, c, w);
    if (h < best) {
      best = h;
      plan.counts = counts;
      plan.length = w;
      plan.waste = h;
    }
  }
  for (std::size_t i = 0; i < k; ++i) {
    plan.period.push_back(plan.length / plan.counts[i]);
    plan.every.push_back(plan.counts[0] / plan.counts[i]);
  }
  return plan;
}

}  // namespace ftckpt
