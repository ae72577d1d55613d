// Command-line values of cominfo and hostinfo: a bad one is a usage error (exit 2 and the usage
// line), never a silently clamped or wrapped number (--width 2147483647 once allocated 9 GB).
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ftmpi::tools {

// Screen widths beyond this are no terminal; a rendering line is allocated per column.
constexpr long kMaxWidth = 10000;
// Refresh period in ms: at least 10 (a daemon query each time), at most an hour.
constexpr long kMinIntervalMs = 10;
constexpr long kMaxIntervalMs = 3600 * 1000;

// `text` as a whole decimal in [min, max]; else prints why and the usage line, and exits 2.
inline long int_option(const char* tool, const std::string& option, const std::string& text, long min,
                       long max, void (*usage)(std::FILE*)) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < min || v > max) {
    std::fprintf(stderr, "%s: %s needs an integer in [%ld, %ld], got '%s'\n", tool, option.c_str(), min,
                 max, text.c_str());
    usage(stderr);
    std::exit(2);
  }
  return v;
}

}  // namespace ftmpi::tools
