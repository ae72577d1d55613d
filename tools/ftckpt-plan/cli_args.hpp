// ftckpt-plan's options: "--name value" options and "--flag" switches, each subcommand declaring
// which names it accepts so typos are reported, not ignored. The words are split by the tools'
// one option parser (CLI11, see tools/cli).
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ftckpt_plan {

// Thrown for bad command lines; main() prints the message and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // argv excludes the program and subcommand names.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& options,
       const std::set<std::string>& flags);

  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }

  long integer(const std::string& name, long fallback) const;
  long required_integer(const std::string& name) const;
  double number(const std::string& name, double fallback) const;
  std::string text(const std::string& name, const std::string& fallback) const;
  // Comma-separated numbers, e.g. "1,6"; empty vector when absent.
  std::vector<double> numbers(const std::string& name) const;
  std::vector<long> integers(const std::string& name) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
};

// Strict conversions: the whole string must be a number.
long parse_integer(const std::string& what, const std::string& s);
double parse_number(const std::string& what, const std::string& s);

}  // namespace ftckpt_plan
