// ftckpt-plan: offline companion of libftckpt. Answers, without starting a job, the three
// questions a user has before choosing parameters: how many failures does (N, DF, SD) really
// survive, how often should each level save, and what overhead to expect.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "commands.hpp"
#include "ftmpi_cli/cli.h"

namespace {

const char kUsage[] =
    "usage: ftckpt-plan <command> [options]\n"
    "\n"
    "commands:\n"
    "  placement  failures a placement (N, DF, SD) really tolerates, vs the paper's MNF\n"
    "  period     Young/Daly interval for one level, multi-level save pattern for several\n"
    "  simulate   overhead of coordinated vs asynchronous recovery under random failures\n"
    "\n"
    "'ftckpt-plan <command> --help' describes each command.\n";

void help(std::FILE* out) { std::fputs(kUsage, out); }

const ftmpi::cli::Tool kTool{"ftckpt-plan", "usage: ftckpt-plan <command> [options]  (ftckpt-plan <command> --help)",
                             help};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("%s\n", ftmpi::cli::version_line("ftckpt-plan").c_str());
    return 0;
  }
  try {
    if (command == "placement") return ftckpt_plan::run_placement(rest);
    if (command == "period") return ftckpt_plan::run_period(rest);
    if (command == "simulate") return ftckpt_plan::run_simulate(rest);
    std::fprintf(stderr, "ftckpt-plan: unknown command '%s'\n\n%s", command.c_str(), kUsage);
    return 2;
  } catch (const ftckpt_plan::UsageError& e) {
    return ftmpi::cli::usage_error(kTool, command + ": " + e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ftckpt-plan %s: %s\n", command.c_str(), e.what());
    return 1;
  }
}
