// The table (expanded from knob_list.h), the one parser and the environment readers.
#include "ftmpi_knobs/knobs.h"

#include <strings.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ftmpi::knobs {
namespace {

#define FTMPI_KNOB_ROW(id, name, type, dflt, min, max, choices, layer, meaning) \
  Knob{Id::id, name, Type::type, dflt, static_cast<double>(min), static_cast<double>(max), choices, layer, meaning},
constexpr std::array kTable = {FTMPI_KNOB_LIST(FTMPI_KNOB_ROW)};
#undef FTMPI_KNOB_ROW
static_assert(kTable.size() == static_cast<std::size_t>(Id::count));

// One flag per knob: an invalid value is reported once per process, not on every read.
std::array<std::atomic<bool>, kTable.size()> g_warned{};

std::string range_text(const Knob& k) {
  auto num = [](double v) {
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e18) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    } else {
      std::snprintf(buf, sizeof buf, "%g", v);
    }
    return std::string(buf);
  };
  return "[" + num(k.min) + ", " + num(k.max) + "]";
}

// Whole decimal number, optionally followed by a K/M/G suffix when `suffixes`; no sign, no
// trailing junk, no overflow.
bool parse_whole(std::string_view text, bool suffixes, long long* out) {
  std::string s(text);
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0) return false;
  unsigned shift = 0;
  if (suffixes) {
    switch (*end) {
      case 'k': case 'K': shift = 10; ++end; break;
      case 'm': case 'M': shift = 20; ++end; break;
      case 'g': case 'G': shift = 30; ++end; break;
      default: break;
    }
  }
  if (*end != '\0') return false;
  if (v > (static_cast<unsigned long long>(INT64_MAX) >> shift)) return false;
  *out = static_cast<long long>(v << shift);
  return true;
}

bool in_range(const Knob& k, double v) { return v >= k.min && v <= k.max; }

}  // namespace

const Knob* table_begin() { return kTable.data(); }
const Knob* table_end() { return kTable.data() + kTable.size(); }
const Knob& knob(Id id) { return kTable[static_cast<std::size_t>(id)]; }

const Knob* find(std::string_view name) {
  for (const Knob& k : kTable) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

const char* type_name(Type t) {
  switch (t) {
    case Type::flag: return "flag";
    case Type::integer: return "integer";
    case Type::size: return "size";
    case Type::number: return "number";
    case Type::text: return "text";
    case Type::choice: return "choice";
  }
  return "?";
}

std::string valid_values(const Knob& k) {
  switch (k.type) {
    case Type::flag: return "0|1";
    case Type::integer: return range_text(k);
    case Type::size: return range_text(k) + " bytes, K/M/G suffix";
    case Type::number: return range_text(k);
    case Type::choice: return k.choices;
    case Type::text: return "";
  }
  return "";
}

std::optional<Value> parse(const Knob& k, std::string_view text, std::string* why) {
  Value v;
  auto fail = [&](const std::string& expected) -> std::optional<Value> {
    if (why != nullptr) *why = expected;
    return std::nullopt;
  };
  switch (k.type) {
    case Type::flag: {
      for (const char* yes : {"1", "yes", "on", "true"}) {
        if (text.size() == std::strlen(yes) && strncasecmp(text.data(), yes, text.size()) == 0) {
          v.integer = 1;
          v.number = 1;
          return v;
        }
      }
      for (const char* no : {"0", "no", "off", "false"}) {
        if (text.size() == std::strlen(no) && strncasecmp(text.data(), no, text.size()) == 0) return v;
      }
      return fail("0 or 1 (also yes/no, on/off, true/false)");
    }
    case Type::integer:
    case Type::size: {
      long long n = 0;
      const bool size = k.type == Type::size;
      if (!parse_whole(text, size, &n) || !in_range(k, static_cast<double>(n))) {
        return fail(std::string(size ? "a byte count (K/M/G suffix allowed) in " : "an integer in ") +
                    range_text(k));
      }
      v.integer = n;
      v.number = static_cast<double>(n);
      return v;
    }
    case Type::number: {
      std::string s(text);
      errno = 0;
      char* end = nullptr;
      double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
      // strtod accepts "inf", "nan" and hex; a knob wants a finite decimal in range.
      if (s.empty() || errno != 0 || *end != '\0' || !std::isfinite(d) || !in_range(k, d)) {
        return fail("a number in " + range_text(k));
      }
      v.number = d;
      v.integer = static_cast<long long>(d);
      return v;
    }
    case Type::choice: {
      std::string_view rest = k.choices;
      while (!rest.empty()) {
        std::size_t bar = rest.find('|');
        std::string_view one = rest.substr(0, bar);
        if (one.size() == text.size() && strncasecmp(one.data(), text.data(), one.size()) == 0) {
          v.text = std::string(one);
          return v;
        }
        rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
      }
      return fail(std::string("one of ") + k.choices);
    }
    case Type::text:
      v.text = std::string(text);
      return v;
  }
  return fail("?");
}

std::optional<std::string> raw(Id id) {
  const char* v = std::getenv(knob(id).name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::optional<Value> get_if_set(Id id) {
  const Knob& k = knob(id);
  const char* raw = std::getenv(k.name);
  if (raw == nullptr || *raw == '\0') return std::nullopt;
  std::string why;
  std::optional<Value> v = parse(k, raw, &why);
  if (!v && !g_warned[static_cast<std::size_t>(id)].exchange(true)) {
    std::fprintf(stderr, "ftmpi: ignoring %s='%s': expected %s; using the default%s%s\n", k.name,
                 raw, why.c_str(), *k.default_value != '\0' ? " " : "", k.default_value);
  }
  return v;
}

Value get(Id id) {
  if (std::optional<Value> v = get_if_set(id)) return *v;
  const Knob& k = knob(id);
  if (*k.default_value == '\0') return Value{};
  // The table's defaults are checked by the unit test, so this parse succeeds.
  std::optional<Value> d = parse(k, k.default_value);
  return d ? *d : Value{};
}

void print_table(std::FILE* out, bool markdown) {
  if (markdown) {
    std::fprintf(out, "| variable | type | default | valid | read by | meaning |\n|---|---|---|---|---|---|\n");
    for (const Knob& k : kTable) {
      std::string valid = valid_values(k);
      for (std::size_t i = 0; (i = valid.find('|', i)) != std::string::npos; i += 2) valid.replace(i, 1, "\\|");
      std::fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", k.name, type_name(k.type),
                   *k.default_value ? k.default_value : "(see meaning)", valid.c_str(), k.layer, k.meaning);
    }
    return;
  }
  for (const Knob& k : kTable) {
    std::fprintf(out, "%s  (%s, read by %s)\n", k.name, type_name(k.type), k.layer);
    std::fprintf(out, "    default: %s", *k.default_value ? k.default_value : "see below");
    std::string valid = valid_values(k);
    if (!valid.empty()) std::fprintf(out, "   valid: %s", valid.c_str());
    if (const char* now = std::getenv(k.name); now != nullptr) std::fprintf(out, "   set: '%s'", now);
    std::fprintf(out, "\n    %s\n", k.meaning);
  }
}

}  // namespace ftmpi::knobs
