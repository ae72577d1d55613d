// ftckpt-plan period: how often to save, for one level or a multi-level pattern.
#include <cstdio>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "commands.hpp"
#include "ftckpt/period_plan.hpp"

namespace ftckpt_plan {

namespace {

const char kHelp[] =
    "usage: ftckpt-plan period --ckpt C[,C2,..] --mtbf M[,M2,..] [--recovery R[,R2,..]]\n"
    "\n"
    "One level (single values): Young's interval sqrt(2CM) and Daly's higher-order\n"
    "  sqrt(2CM)(1 + sqrt(C/2M)/3 + C/(18M)) - C, in seconds of computation between saves.\n"
    "Several levels (lists, cheapest/most frequent level first): the save pattern of\n"
    "  Bondarenko, Lyakhov & Yakobovsky 2019 (fig. 5, after Benoit et al. 2016):\n"
    "    N_i = sqrt(C_K lambda_i / (lambda_K C_i)),  W = sqrt(2 sum N_i C_i / sum lambda_i/N_i)\n"
    "  where lambda_i = 1/M_i, then rounded to nested integer counts (each level's count a\n"
    "  multiple of the next one's) choosing the rounding with the least expected waste\n"
    "    H = sum N_i C_i / W + (W/2) sum lambda_i / N_i + sum lambda_i R_i.\n"
    "\n"
    "  --ckpt      checkpoint cost per level, seconds (e.g. 1,6)\n"
    "  --recovery  recovery cost per level, seconds (default 0; only enters H)\n"
    "  --mtbf      mean time between failures needing each level, seconds (e.g. 1800,36000)\n";

std::vector<ftckpt::LevelCost> read_levels(const Args& args) {
  std::vector<double> c = args.numbers("ckpt"), m = args.numbers("mtbf"),
                      r = args.numbers("recovery");
  if (c.empty() || m.empty()) throw UsageError("--ckpt and --mtbf are required");
  if (c.size() != m.size()) throw UsageError("--ckpt and --mtbf need the same number of values");
  if (!r.empty() && r.size() != c.size())
    throw UsageError("--recovery needs one value per level");
  std::vector<ftckpt::LevelCost> levels;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!(c[i] > 0) || !(m[i] > 0)) throw UsageError("costs and MTBFs must be positive");
    levels.push_back({c[i], r.empty() ? 0.0 : r[i], m[i]});
  }
  return levels;
}

void print_single(const ftckpt::LevelCost& l) {
  double young = ftckpt::young_interval(l.ckpt, l.mtbf);
  double daly = ftckpt::daly_interval(l.ckpt, l.mtbf);
  std::printf("one level: checkpoint %.6g s, MTBF %.6g s\n", l.ckpt, l.mtbf);
  std::printf("  Young (1974) sqrt(2CM)        : %.3f s of work between saves\n", young);
  std::printf("  Daly (2006) higher order      : %.3f s of work between saves\n", daly);
  std::printf("  expected waste at Young       : %.2f %% (C/T + T/2M + R/M)\n",
              100.0 * ftckpt::pattern_waste({l}, {1.0}, young));
}

void print_pattern(const std::vector<ftckpt::LevelCost>& levels) {
  ftckpt::PatternPlan plan = ftckpt::plan_pattern(levels);
  std::printf("multi-level pattern (seed 002 fig. 5)\n");
  std::printf("%6s %9s %9s %10s %9s %6s %10s %7s\n", "level", "C (s)", "R (s)", "MTBF (s)",
              "N real", "N", "period (s)", "every");
  for (std::size_t i = 0; i < levels.size(); ++i)
    std::printf("%6zu %9.4g %9.4g %10.6g %9.3f %6d %10.2f %7d\n", i + 1, levels[i].ckpt,
                levels[i].recovery, levels[i].mtbf, plan.counts_real[i], plan.counts[i],
                plan.period[i], plan.every[i]);
  std::printf("  pattern length W: %.2f s of work (real-valued optimum %.2f s)\n", plan.length,
              plan.length_real);
  std::printf("  expected waste H: %.2f %% (real-valued optimum %.2f %%)\n", 100.0 * plan.waste,
              100.0 * plan.waste_real);
  // Spell the pattern out when it is short enough to read.
  if (plan.counts[0] <= 40) {
    std::printf("  one pattern     :");
    for (int s = 1; s <= plan.counts[0]; ++s) {
      std::size_t top = 0;
      for (std::size_t i = 0; i < levels.size(); ++i)
        if (s % plan.every[i] == 0) top = i;
      std::printf(" L%zu", top + 1);
    }
    std::printf("   (L<i>: save of levels 1..i)\n");
  }
}

}  // namespace

int run_period(const std::vector<std::string>& argv) {
  Args args(argv, {"ckpt", "mtbf", "recovery"}, {"help"});
  if (args.flag("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  std::vector<ftckpt::LevelCost> levels = read_levels(args);
  if (levels.size() == 1)
    print_single(levels[0]);
  else
    print_pattern(levels);
  return 0;
}

}  // namespace ftckpt_plan
