#include "cli_args.hpp"

#include <cmath>
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <sstream>

namespace ftckpt_plan {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& options,
           const std::set<std::string>& flags) {
  // The tools' one option parser (CLI11) splits the words; values stay text here and are
  // converted strictly on use (parse_integer/parse_number), where the error names the option.
  CLI::App app{"ftckpt-plan"};
  app.set_help_flag();  // --help is one of `flags`, printed by the subcommand
  std::map<std::string, std::string> values;
  std::map<std::string, bool> given;
  for (const std::string& name : options)
    app.add_option("--" + name, values[name])->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  for (const std::string& name : flags) app.add_flag("--" + name, given[name])->disable_flag_override();
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  for (const std::string& name : options)
    if (app.get_option("--" + name)->count() > 0) values_[name] = values[name];
  for (const auto& [name, on] : given)
    if (on) flags_.insert(name);
}

long parse_integer(const std::string& what, const std::string& s) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0') throw UsageError(what + ": '" + s + "' is not an integer");
  return v;
}

double parse_number(const std::string& what, const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0') throw UsageError(what + ": '" + s + "' is not a number");
  // strtod also takes "inf", "nan" and 1e999 (= inf): no cost, time or MTBF can be that.
  if (!std::isfinite(v)) throw UsageError(what + ": '" + s + "' is not a finite number");
  return v;
}

long Args::integer(const std::string& name, long fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : parse_integer("--" + name, it->second);
}

long Args::required_integer(const std::string& name) const {
  if (!has(name)) throw UsageError("--" + name + " is required");
  return integer(name, 0);
}

double Args::number(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : parse_number("--" + name, it->second);
}

std::string Args::text(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::vector<double> Args::numbers(const std::string& name) const {
  std::vector<double> out;
  auto it = values_.find(name);
  if (it == values_.end()) return out;
  std::stringstream ss(it->second);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(parse_number("--" + name, item));
  return out;
}

std::vector<long> Args::integers(const std::string& name) const {
  std::vector<long> out;
  auto it = values_.find(name);
  if (it == values_.end()) return out;
  std::stringstream ss(it->second);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(parse_integer("--" + name, item));
  return out;
}

}  // namespace ftckpt_plan
