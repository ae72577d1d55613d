// ftckpt-plan placement: the honest tolerance of a placement, compared with the paper's MNF.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_args.hpp"
#include "commands.hpp"
#include "ftckpt/host_tolerance.hpp"
#include "ftckpt/placement.hpp"
#include "ftckpt/tolerance.hpp"

namespace ftckpt_plan {

namespace {

const char kHelp[] =
    "usage: ftckpt-plan placement --n N --df DF --sd SD [--ranks-per-host R | --host-map LIST]\n"
    "                             [--json]\n"
    "       ftckpt-plan placement --sweep [--n-max 128] [--df-max 4] [--sd-max 4]\n"
    "\n"
    "Copy j of process i at save k goes to (i + j*DF^(k mod SD) + k mod SD) mod N.\n"
    "Prints the largest number of simultaneous failures that always leaves one of the last\n"
    "SD iterations recoverable (exact search), the paper's MNF = (DF-1)*SD+1, whether the\n"
    "paper's condition N > DF^SD + SD holds, and a smallest failure set that defeats the\n"
    "scheme. Also shows the worst case while a save overwrites the oldest slot in place.\n"
    "\n"
    "  --ranks-per-host R  ranks 0..R-1 on host 0, R..2R-1 on host 1, ... (as --map-by slot)\n"
    "  --host-map LIST     host of every rank, e.g. 0,0,1,1,2,2 (N entries)\n"
    "             With several hosts no copy goes to its owner's host (the formula runs along\n"
    "             a ring visiting the hosts round-robin, see ftmpi/ftckpt/README.md), and the\n"
    "             tolerance is also given in whole hosts lost at once.\n"
    "  --json     print {\"n\":..,\"df\":..,\"sd\":..,\"mnf\":..,\"tolerated\":..,\"killing_set\":[..]}\n"
    "             and, with hosts, \"hosts\":..,\"tolerated_hosts\":..,\"killing_hosts\":[..]\n"
    "  --sweep    for every DF <= df-max, SD <= sd-max and every N from DF^SD+SD+1 to\n"
    "             n-max, count the N where the paper's claim fails\n";

void print_json(const ftckpt::Placement& pl, const ftckpt::Tolerance& t,
                const ftckpt::HostTolerance* ht) {
  // ordered_json: the keys stay in the documented order above.
  nlohmann::ordered_json j = {{"n", pl.n()},
                              {"df", pl.df()},
                              {"sd", pl.sd()},
                              {"mnf", ftckpt::paper_mnf(pl.df(), pl.sd())},
                              {"tolerated", t.tolerated},
                              {"killing_set", t.killing_set}};
  if (ht) {
    j["hosts"] = ht->hosts;
    j["tolerated_hosts"] = ht->tolerated;
    j["killing_hosts"] = ht->killing_hosts;
  }
  std::printf("%s\n", j.dump().c_str());
}

void print_hosts(const ftckpt::Placement& pl, const ftckpt::HostTolerance& ht, const std::vector<int>& map) {
  std::printf("  hosts                       : %d (no copy on its owner's host%s)\n", pl.hosts(),
              pl.hosts() > 1 ? "" : ": impossible with one host");
  std::printf("  tolerated hosts (ring compl.): %d whole hosts lost at once\n", ht.tolerated);
  std::printf("  smallest killing host set   :");
  for (int h : ht.killing_hosts) std::printf(" %d", h);
  std::printf(" (ranks");
  for (int r : ht.killing_ranks) std::printf(" %d", r);
  std::printf(")\n");
  // The same hosts with formula (1) on the ranks, as without host awareness.
  const ftckpt::Placement flat(pl.n(), pl.df(), pl.sd());
  std::printf("  formula (1) on these hosts  : tolerates %d rank(s), %d whole host(s)\n",
              ftckpt::compute_tolerance(flat).tolerated,
              ftckpt::compute_host_tolerance(flat, map, ftckpt::all_phases(pl.sd())).tolerated);
}

// Host of every rank from --ranks-per-host or --host-map; empty without either.
std::vector<int> host_map(const Args& args, long n) {
  if (args.has("ranks-per-host") && args.has("host-map"))
    throw UsageError("give --ranks-per-host or --host-map, not both");
  std::vector<int> map;
  if (args.has("ranks-per-host")) {
    const long per = args.integer("ranks-per-host", 1);
    if (per < 1 || per > n) throw UsageError("--ranks-per-host must be between 1 and N");
    for (long r = 0; r < n; ++r) map.push_back(static_cast<int>(r / per));
  } else if (args.has("host-map")) {
    for (long h : args.integers("host-map")) {
      if (h < 0 || h > 1000000) throw UsageError("--host-map: host numbers are 0..1000000");
      map.push_back(static_cast<int>(h));
    }
    if (static_cast<long>(map.size()) != n)
      throw UsageError("--host-map needs N entries, got " + std::to_string(map.size()));
  }
  return map;
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
  Args args(argv, {"n", "df", "sd", "n-max", "df-max", "sd-max", "ranks-per-host", "host-map"},
            {"json", "help", "sweep"});
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
  const std::vector<int> hosts = host_map(args, n);
  const ftckpt::Placement pl =
      hosts.empty() ? ftckpt::Placement(static_cast<int>(n), static_cast<int>(df), static_cast<int>(sd))
                    : ftckpt::Placement(static_cast<int>(n), static_cast<int>(df), static_cast<int>(sd), hosts);
  auto start = std::chrono::steady_clock::now();
  ftckpt::Tolerance t = ftckpt::compute_tolerance(pl);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
  ftckpt::HostTolerance ht;
  if (!hosts.empty()) ht = ftckpt::compute_host_tolerance(pl);
  if (args.flag("json")) {
    print_json(pl, t, hosts.empty() ? nullptr : &ht);
  } else {
    print_report(pl, t, ms);
    if (!hosts.empty()) print_hosts(pl, ht, hosts);
  }
  return 0;
}

}  // namespace ftckpt_plan
