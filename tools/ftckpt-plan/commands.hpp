// Subcommands of ftckpt-plan. Each takes the arguments after its own name and returns the
// process exit status; UsageError escapes to main() for bad command lines.
#pragma once

#include <string>
#include <vector>

namespace ftckpt_plan {

int run_placement(const std::vector<std::string>& argv);
int run_period(const std::vector<std::string>& argv);
int run_simulate(const std::vector<std::string>& argv);

}  // namespace ftckpt_plan
