#include "cli_args.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace ftckpt_plan {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& options,
           const std::set<std::string>& flags) {
  for (std::size_t a = 0; a < argv.size(); ++a) {
    const std::string& s = argv[a];
    if (s.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + s + "'");
    std::string name = s.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (flags.count(name)) {
      if (inline_value) throw UsageError("--" + name + " takes no value");
      flags_.insert(name);
    } else if (options.count(name)) {
      if (!inline_value) {
        if (a + 1 >= argv.size()) throw UsageError("--" + name + " needs a value");
        value = argv[++a];
      }
      values_[name] = value;
    } else {
      throw UsageError("unknown option --" + name);
    }
  }
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
