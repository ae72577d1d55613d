// ftckpt-plan simulate: overhead of coordinated rollback vs asynchronous recovery with k
// spares under exponentially distributed multi-level failures (seed 002, table 3).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "commands.hpp"
#include "ftckpt/failure_sim.hpp"
#include "svg_plot.hpp"

namespace ftckpt_plan {

namespace {

const char kHelp[] =
    "usage: ftckpt-plan simulate [options]\n"
    "\n"
    "Simulates a run of --work seconds of computation with multi-level coordinated saves\n"
    "(pattern from 'ftckpt-plan period' unless --slot/--every are given) and failures of each\n"
    "level arriving as a Poisson process in wall-clock time, so they also strike during saves\n"
    "and recoveries. Strategies: coordinated rollback of every process to the newest surviving\n"
    "save, and asynchronous recovery where k spares replay the lost work from logged messages\n"
    "k times faster while the others wait. Prints, per MTBF set and strategy, the mean and\n"
    "standard deviation of the overhead (wall time minus work), the mean failure count per\n"
    "level and the gain over coordinated rollback, like table 3 of the seed.\n"
    "\n"
    "  --work S          planned computation, seconds (default 3600)\n"
    "  --ckpt C1,C2      checkpoint cost per level, seconds (default 1,6)\n"
    "  --recovery R1,R2  recovery cost per level, seconds (default 0.5,4)\n"
    "  --mtbf SETS       MTBF per level, sets separated by '/'\n"
    "                    (default 1800,36000/720,3600/360,1800/240,1200/180,900)\n"
    "  --spares K1,K2    spare counts for asynchronous recovery (default 2,5; 0 = none)\n"
    "  --async-levels L  levels 1..L recover asynchronously, higher ones roll back\n"
    "                    (default: all levels, as table 2 of the seed)\n"
    "  --slot S          work seconds between saves (default: from the pattern)\n"
    "  --every E1,E2     level i saved at every E_i-th save (default: from the pattern)\n"
    "  --runs R          runs per MTBF set and strategy (default 10000)\n"
    "  --seed X          random seed; equal seeds give identical output (default 1)\n"
    "  --plot FILE.svg   draw mean overhead (+- std) against MTBF per strategy\n";

const char kDefaultMtbf[] = "1800,36000/720,3600/360,1800/240,1200/180,900";

std::vector<std::vector<double>> parse_mtbf_sets(const std::string& text) {
  std::vector<std::vector<double>> sets;
  std::stringstream ss(text);
  for (std::string set; std::getline(ss, set, '/');) {
    std::vector<double> one;
    std::stringstream s2(set);
    for (std::string item; std::getline(s2, item, ',');) one.push_back(parse_number("--mtbf", item));
    sets.push_back(one);
  }
  return sets;
}

struct Strategy {
  std::string name;
  ftckpt::RecoveryStrategy kind;
  int spares;
};

std::string bracketed(const std::vector<double>& v) {
  std::ostringstream o;
  o << "[";
  for (std::size_t i = 0; i < v.size(); ++i) o << (i ? " " : "") << v[i];
  o << "]";
  return o.str();
}

// Refuses settings whose simulation would not end in reasonable time. A span of work + save +
// recovery restarts until no failure strikes inside it: about e^(rate * span) tries, so a tiny
// MTBF never finishes; and a run simulates work / slot saves plus work * rate failures.
void check_bounded(const ftckpt::SimConfig& cfg) {
  double rate = 0, span = 0;
  for (const auto& l : cfg.levels) {
    if (!(l.mtbf > 0) || l.ckpt < 0 || l.recovery < 0)
      throw UsageError("MTBFs must be positive, costs non-negative");
    rate += 1.0 / l.mtbf;
    span = std::max(span, l.ckpt + l.recovery);
  }
  if (!(cfg.slot > 0)) throw UsageError("--slot must be positive");
  span += cfg.slot;
  constexpr double kMaxExponent = 20;  // e^20: ~5e8 restarts of one span
  if (rate * span > kMaxExponent)
    throw UsageError("failures every " + std::to_string(1 / rate) + " s on average would interrupt nearly every " +
                     std::to_string(span) + " s span of work, save and recovery: the run would not finish");
  constexpr double kMaxEvents = 1e9;
  const double events = cfg.runs * (cfg.work / cfg.slot + cfg.work * rate);
  if (events > kMaxEvents)
    throw UsageError("--work x --runs too large: about " + std::to_string(events) +
                     " simulated saves and failures (at most 1e9); lower --work or --runs");
}

}  // namespace

int run_simulate(const std::vector<std::string>& argv) {
  Args args(argv,
            {"work", "ckpt", "recovery", "mtbf", "spares", "async-levels", "slot", "every", "runs",
             "seed", "plot"},
            {"help"});
  if (args.flag("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  std::vector<double> ckpt = args.has("ckpt") ? args.numbers("ckpt") : std::vector<double>{1, 6};
  std::vector<double> rec =
      args.has("recovery") ? args.numbers("recovery") : std::vector<double>{0.5, 4};
  auto mtbf_sets = parse_mtbf_sets(args.text("mtbf", kDefaultMtbf));
  std::vector<long> spares = args.has("spares") ? args.integers("spares") : std::vector<long>{2, 5};
  if (rec.size() != ckpt.size()) throw UsageError("--recovery needs one value per level");
  for (const auto& set : mtbf_sets)
    if (set.size() != ckpt.size()) throw UsageError("each --mtbf set needs one value per level");

  std::vector<Strategy> strategies{{"coordinated", ftckpt::RecoveryStrategy::coordinated, 0}};
  for (long k : spares) {
    if (k < 0) throw UsageError("--spares must be >= 0");
    if (k > 0)
      strategies.push_back({"async k=" + std::to_string(k), ftckpt::RecoveryStrategy::asynchronous,
                            static_cast<int>(k)});
  }

  ftckpt::SimConfig base;
  base.work = args.number("work", 3600);
  base.runs = static_cast<int>(args.integer("runs", 10000));
  base.seed = static_cast<std::uint64_t>(args.integer("seed", 1));
  if (base.runs < 1) throw UsageError("--runs must be at least 1");
  if (!(base.work > 0)) throw UsageError("--work must be positive");
  base.async_max_level = static_cast<int>(args.integer("async-levels", 1 << 30)) - 1;

  std::printf("work %.6g s, ckpt %s s, recovery %s s, %d runs, seed %llu\n", base.work,
              bracketed(ckpt).c_str(), bracketed(rec).c_str(), base.runs,
              static_cast<unsigned long long>(base.seed));
  std::printf("%-15s %-13s %-10s %8s %8s", "MTBF (s)", "strategy", "plan", "overhead", "std");
  for (std::size_t l = 0; l < ckpt.size(); ++l) std::printf("  n%-4zu", l + 1);
  std::printf(" %8s %6s\n", "dT (s)", "dT %");

  LineChart chart;
  chart.title = "Overhead vs MTBF (work " + std::to_string(static_cast<int>(base.work)) + " s)";
  chart.x_label = "MTBF per level, seconds";
  chart.y_label = "mean overhead, seconds (bars: +- 1 std)";
  chart.series.resize(strategies.size());
  for (std::size_t s = 0; s < strategies.size(); ++s) chart.series[s].name = strategies[s].name;

  auto start = std::chrono::steady_clock::now();
  for (const auto& set : mtbf_sets) {
    ftckpt::SimConfig cfg = base;
    for (std::size_t l = 0; l < ckpt.size(); ++l) cfg.levels.push_back({ckpt[l], rec[l], set[l]});
    ftckpt::apply_plan(cfg);
    if (args.has("slot")) cfg.slot = args.number("slot", cfg.slot);
    if (args.has("every")) {
      cfg.every.clear();
      for (long e : args.integers("every")) cfg.every.push_back(static_cast<int>(e));
    }
    check_bounded(cfg);
    chart.x.push_back(set[0]);
    chart.x_ticks.push_back(bracketed(set));
    double coordinated_mean = 0;
    for (std::size_t s = 0; s < strategies.size(); ++s) {
      cfg.strategy = strategies[s].kind;
      cfg.spares = strategies[s].spares > 0 ? strategies[s].spares : 1;
      ftckpt::SimStats st = ftckpt::simulate(cfg);
      std::string plan = std::to_string(static_cast<int>(cfg.slot + 0.5)) + "s";
      for (std::size_t l = 1; l < cfg.every.size(); ++l) plan += "/" + std::to_string(cfg.every[l]);
      std::printf("%-15s %-13s %-10s %8.1f %8.1f", s == 0 ? bracketed(set).c_str() : "",
                  strategies[s].name.c_str(), s == 0 ? plan.c_str() : "", st.mean_overhead,
                  st.std_overhead);
      for (double f : st.mean_failures) std::printf("  %-5.2f", f);
      if (s == 0) {
        coordinated_mean = st.mean_overhead;
        std::printf(" %8s %6s\n", "-", "-");
      } else {
        double dt = coordinated_mean - st.mean_overhead;
        std::printf(" %8.1f %5.1f%%\n", dt, coordinated_mean > 0 ? 100.0 * dt / coordinated_mean : 0);
      }
      chart.series[s].y.push_back(st.mean_overhead);
      chart.series[s].err.push_back(st.std_overhead);
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("(%.2f s) plan: seconds of work between saves / level i saved at every E_i-th save\n",
              secs);
  if (args.has("plot")) {
    write_svg(args.text("plot", ""), chart);
    std::printf("plot written to %s\n", args.text("plot", "").c_str());
  }
  return 0;
}

}  // namespace ftckpt_plan
