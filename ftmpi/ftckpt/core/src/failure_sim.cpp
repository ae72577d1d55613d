#include "ftckpt/failure_sim.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace ftckpt {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// One independent arrival stream per level. mt19937_64 and the hand-made exponential are
// fully specified, unlike std::exponential_distribution, so a seed gives the same numbers
// with every standard library.
class FailureStream {
 public:
  FailureStream(std::uint64_t seed, double mtbf) : rng_(seed), mtbf_(mtbf) { advance(0.0); }
  double next() const { return next_; }
  void advance(double now) {
    double u = (static_cast<double>(rng_() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    next_ = now - std::log(u) * mtbf_;
  }

 private:
  std::mt19937_64 rng_;
  double mtbf_;
  double next_ = 0;
};

// Guard against configurations where failures outpace progress forever.
constexpr double kMaxWallFactor = 1000.0;

class Run {
 public:
  Run(const SimConfig& cfg, std::uint64_t run_index) : cfg_(cfg) {
    const std::size_t k = cfg.levels.size();
    for (std::size_t l = 0; l < k; ++l) {
      std::uint64_t s = splitmix64(cfg.seed ^ splitmix64(run_index * 1315423911ull + l));
      streams_.emplace_back(s, cfg.levels[l].mtbf);
    }
    last_save_.assign(k, 0.0);  // the initial state counts as saved at every level
    result_.failures.assign(k, 0);
  }

  RunResult go() {
    const double max_wall = cfg_.work * kMaxWallFactor;
    while (work_ < cfg_.work && wall_ < max_wall) {
      double duration;
      if (pending_save_ > 0) {
        duration = save_cost(pending_save_);
      } else {
        long next = static_cast<long>(std::floor(work_ / cfg_.slot + 1e-9)) + 1;
        double target = std::min(next * cfg_.slot, cfg_.work);
        duration = target - work_;
        next_position_ = target < cfg_.work ? next : 0;
      }
      int level;
      double when = next_failure(&level);
      if (when >= wall_ + duration) {
        wall_ += duration;
        if (pending_save_ > 0) {
          finish_save(pending_save_);
          pending_save_ = 0;
        } else {
          work_ += duration;
          pending_save_ = next_position_;
        }
        continue;
      }
      // Failure in the middle of computing or saving: elapsed work still counts as done
      // (it is what an asynchronous replay must redo); an interrupted save does not.
      if (pending_save_ == 0) work_ += when - wall_;
      wall_ = when;
      strike(level);
      recover(level);
    }
    result_.overhead = wall_ - cfg_.work;
    return result_;
  }

 private:
  double save_cost(long position) const {
    double c = 0;
    for (std::size_t l = 0; l < cfg_.levels.size(); ++l)
      if (position % cfg_.every[l] == 0) c += cfg_.levels[l].ckpt;
    return c;
  }
  void finish_save(long position) {
    for (std::size_t l = 0; l < cfg_.levels.size(); ++l)
      if (position % cfg_.every[l] == 0) last_save_[l] = position * cfg_.slot;
  }
  double next_failure(int* level) const {
    double best = streams_[0].next();
    *level = 0;
    for (std::size_t l = 1; l < streams_.size(); ++l)
      if (streams_[l].next() < best) best = streams_[l].next(), *level = static_cast<int>(l);
    return best;
  }
  void strike(int level) {
    ++result_.failures[level];
    streams_[level].advance(wall_);
  }
  bool asynchronous(int level) const {
    return cfg_.strategy == RecoveryStrategy::asynchronous && level <= cfg_.async_max_level;
  }

  // Recovery can itself be hit; it then restarts, from the higher of the two levels since a
  // higher-level failure also destroyed the data the lower-level recovery was reading.
  void recover(int level) {
    while (true) {
      double lost = work_ - last_save_[level];
      double duration = cfg_.levels[level].recovery;
      if (asynchronous(level)) duration += lost / cfg_.spares;
      int next_level;
      double when = next_failure(&next_level);
      if (when >= wall_ + duration) {
        wall_ += duration;
        break;
      }
      wall_ = when;
      strike(next_level);
      level = std::max(level, next_level);
      if (wall_ >= cfg_.work * kMaxWallFactor) break;
    }
    // Lower-level checkpoints newer than the restart point died with the failed node.
    for (int l = 0; l < level; ++l) last_save_[l] = std::min(last_save_[l], last_save_[level]);
    if (!asynchronous(level)) {
      work_ = last_save_[level];
      pending_save_ = 0;  // the restart point is a completed save
    }
    // Asynchronous: survivors kept their state; an interrupted save is simply redone.
  }

  const SimConfig& cfg_;
  std::vector<FailureStream> streams_;
  std::vector<double> last_save_;  // work position of the newest save stored at each level
  double work_ = 0, wall_ = 0;
  long pending_save_ = 0;          // save index waiting at the current position, 0 = none
  long next_position_ = 0;
  RunResult result_;
};

void validate(const SimConfig& cfg) {
  if (cfg.levels.empty()) throw std::invalid_argument("simulate: no levels");
  if (!(cfg.work > 0)) throw std::invalid_argument("simulate: work must be positive");
  if (!(cfg.slot > 0)) throw std::invalid_argument("simulate: slot must be positive");
  if (cfg.every.size() != cfg.levels.size())
    throw std::invalid_argument("simulate: one 'every' entry per level");
  for (int e : cfg.every)
    if (e < 1) throw std::invalid_argument("simulate: 'every' entries must be >= 1");
  for (const auto& l : cfg.levels)
    if (!(l.mtbf > 0) || l.ckpt < 0 || l.recovery < 0)
      throw std::invalid_argument("simulate: MTBF must be positive, costs non-negative");
  if (cfg.strategy == RecoveryStrategy::asynchronous && cfg.spares < 1)
    throw std::invalid_argument("simulate: asynchronous recovery needs at least one spare");
  if (cfg.runs < 1) throw std::invalid_argument("simulate: runs must be >= 1");
}

}  // namespace

void apply_plan(SimConfig& cfg) {
  PatternPlan plan = plan_pattern(cfg.levels);
  cfg.slot = plan.period[0];
  cfg.every = plan.every;
}

RunResult simulate_run(const SimConfig& cfg, std::uint64_t run_index) {
  validate(cfg);
  return Run(cfg, run_index).go();
}

SimStats simulate(const SimConfig& cfg) {
  validate(cfg);
  SimStats s;
  s.runs = cfg.runs;
  s.mean_failures.assign(cfg.levels.size(), 0.0);
  // Welford's update keeps the variance accurate over many runs.
  double mean = 0, m2 = 0;
  for (int r = 0; r < cfg.runs; ++r) {
    RunResult one = Run(cfg, static_cast<std::uint64_t>(r)).go();
    double delta = one.overhead - mean;
    mean += delta / (r + 1);
    m2 += delta * (one.overhead - mean);
    for (std::size_t l = 0; l < one.failures.size(); ++l) s.mean_failures[l] += one.failures[l];
  }
  s.mean_overhead = mean;
  s.std_overhead = cfg.runs > 1 ? std::sqrt(m2 / (cfg.runs - 1)) : 0.0;
  for (double& f : s.mean_failures) f /= cfg.runs;
  return s;
}

}  // namespace ftckpt
