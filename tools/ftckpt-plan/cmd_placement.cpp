// ftckpt-plan placement: the honest tolerance of a placement, compared with the paper's MNF.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_args.hpp"
#include "commands.hpp"
#include "ftckpt/placement.hpp"
#include "ftckpt/tolerance.hpp"

namespace ftckpt_plan {

namespace {

const char kHelp[] =
    "usage: ftckpt-plan placement --n N --df DF --sd SD [--json]\n"
    "       ftckpt-plan placement --sweep [--n-max 128] [--df-max 4] [--sd-max 4]\n"
    "\n"
    "Copy j of process i at save k goes to (i + j*DF^(k mod SD) + k mod SD) mod N.\n"
    "Prints the largest number of simultaneous failures that always leaves one of the last\n"
    "SD iterations recoverable (exact search), the paper's MNF = (DF-1)*SD+1, whether the\n"
    "paper's condition N > DF^SD + SD holds, and a smallest failure set that defeats the\n"
    "scheme. Also shows the worst case while a save overwrites the oldest slot in place.\n"
    "\n"
    "  --json     print {\"n\":..,\"df\":..,\"sd\":..,\"mnf\":..,\"tolerated\":..,\"killing_set\":[..]}\n"
    "  --sweep    for every DF <= df-max, SD <= sd-max and every N from DF^SD+SD+1 to\n"
    "             n-max, count the N where the paper's claim fails\n";

void print_json(const ftckpt::Placement& pl, const ftckpt::Tolerance& t) {
  // ordered_json: the keys stay in the documented order above.
  const nlohmann::ordered_json j = {{"n", pl.n()},
                                    {"df", pl.df()},
                                    {"sd", pl.sd()},
                                    {"mnf", ftckpt::paper_mnf(pl.df(), pl.sd())},
                                    {"tolerated", t.tolerated},
                                    {"killing_set", t.killing_set}};
  std::printf("%s\n", j.dump().c_str());
}

void print_report(const ftckpt::Placement& pl, const ftckpt::Tolerance& t, double ms) {
  const int mnf = ftckpt::paper_mnf(pl.df(), pl.sd());
  const bool cond = ftckpt::paper_condition_holds(pl.n(), pl.df(), pl.sd());
  int in_flight = 0;
  ftckpt::Tolerance during = ftckpt::compute_tolerance_during_save(pl, &in_flight);

  std::printf("placement N=%d DF=%d SD=%d\n", pl.n(), pl.df(), pl.sd());
  std::printf("  memory per process          : %lld local-checkpoint sizes (SD*(DF+1))\n",
              static_cast<long long>(pl.memory_units()));
  std::printf("  paper condition N > DF^SD+SD: %s\n", cond ? "holds" : "does not hold");
  std::printf("  paper MNF = (DF-1)*SD+1     : %d\n", mnf);
  std::printf("  tolerated (ring complete)   : %d\n", t.tolerated);
  std::printf("  tolerated during a save     : %d (worst when phase %d is being overwritten;\n"
              "                                keep SD+1 slots to avoid this drop)\n",
              during.tolerated, in_flight);
  std::printf("  smallest killing set (%zu)   :", t.killing_set.size());
  for (int r : t.killing_set) std::printf(" %d", r);
  std::printf("\n");
  for (int p = 0; p < pl.sd(); ++p) {
    if (t.victim[p] < 0) continue;
    std::printf("    iterations with k mod SD = %d: process %d loses every copy (holders", p,
                t.victim[p]);
    for (int h : pl.holders(t.victim[p], p)) std::printf(" %d", h);
    std::printf(")\n");
  }
  if (t.tolerated >= mnf)
    std::printf("  verdict: tolerates at least the paper's MNF\n");
  else if (cond)
    std::printf("  verdict: PAPER CLAIM FAILS: condition holds, yet %zu failures are fatal "
                "(MNF %d)\n", t.killing_set.size(), mnf);
  else
    std::printf("  verdict: below MNF, but the paper's condition does not hold either\n");
  std::printf("  search: %llu nodes, %.3f ms\n",
              static_cast<unsigned long long>(t.search_nodes), ms);
}

int run_sweep(const Args& args) {
  const long n_max = args.integer("n-max", 128);
  const long df_max = args.integer("df-max", 4);
  const long sd_max = args.integer("sd-max", 4);
  std::printf("%3s %3s %4s %6s %6s %8s %9s %s\n", "DF", "SD", "MNF", "N from", "N to",
              "N failing", "min tol.", "first failing N (tolerated)");
  for (long df = 1; df <= df_max; ++df) {
    for (long sd = 1; sd <= sd_max; ++sd) {
      long n0 = 1;
      while (!ftckpt::paper_condition_holds(static_cast<int>(n0), static_cast<int>(df),
                                            static_cast<int>(sd)) && n0 <= n_max)
        ++n0;
      if (n0 > n_max) continue;
      const int mnf = ftckpt::paper_mnf(static_cast<int>(df), static_cast<int>(sd));
      long failing = 0, first = -1;
      int min_tol = 1 << 30, first_tol = 0;
      for (long n = n0; n <= n_max; ++n) {
        ftckpt::Placement pl(static_cast<int>(n), static_cast<int>(df), static_cast<int>(sd));
        int tol = ftckpt::compute_tolerance(pl).tolerated;
        min_tol = std::min(min_tol, tol);
        if (tol < mnf) {
          ++failing;
          if (first < 0) first = n, first_tol = tol;
        }
      }
      std::printf("%3ld %3ld %4d %6ld %6ld %8ld %9d ", df, sd, mnf, n0, n_max, failing, min_tol);
      if (first >= 0) std::printf("%ld (%d)\n", first, first_tol);
      else std::printf("-\n");
    }
  }
  return 0;
}

}  // namespace

int run_placement(const std::vector<std::string>& argv) {
  Args args(argv, {"n", "df", "sd", "n-max", "df-max", "sd-max"}, {"json", "help", "sweep"});
  if (args.flag("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args.flag("sweep")) return run_sweep(args);
  const long n = args.required_integer("n"), df = args.required_integer("df"),
             sd = args.required_integer("sd");
  std::string why;
  if (n > 1000000 || df > 1000 || sd > 1000 ||
      !ftckpt::Placement::valid_params(static_cast<int>(n), static_cast<int>(df),
                                       static_cast<int>(sd), &why))
    throw UsageError(why.empty() ? std::string("parameters out of range") : why);
  ftckpt::Placement pl(static_cast<int>(n), static_cast<int>(df), static_cast<int>(sd));
  auto start = std::chrono::steady_clock::now();
  ftckpt::Tolerance t = ftckpt::compute_tolerance(pl);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
  if (args.flag("json"))
    print_json(pl, t);
  else
    print_report(pl, t, ms);
  return 0;
}

}  // namespace ftckpt_plan
