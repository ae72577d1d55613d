#include "ftmpi/debug_log.h"

#include <time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ftmpi_knobs/knobs.h"

namespace ftmpi::debug_log {

namespace detail {
std::atomic<int> g_state{-1};

int read_environment() {
  // Read once; racing first readers compute the same answer.
  const int s = knobs::flag(knobs::Id::debug) ? 1 : 0;
  g_state.store(s, std::memory_order_relaxed);
  return s;
}
}  // namespace detail

namespace {
std::atomic<int> g_rank{-1};
}  // namespace

void set_rank(int rank) { g_rank.store(rank, std::memory_order_relaxed); }

void write(const char* component, const char* fmt, ...) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  char line[1024];
  int n = std::snprintf(line, sizeof line, "ftmpi-debug %ld.%06ld rank %d pid %ld %s: ",
                        static_cast<long>(ts.tv_sec), ts.tv_nsec / 1000,
                        g_rank.load(std::memory_order_relaxed), static_cast<long>(getpid()),
                        component);
  if (n < 0) return;
  std::size_t used = static_cast<std::size_t>(n) < sizeof line ? static_cast<std::size_t>(n)
                                                               : sizeof line - 1;
  va_list ap;
  va_start(ap, fmt);
  int m = std::vsnprintf(line + used, sizeof line - used, fmt, ap);
  va_end(ap);
  if (m > 0) used += static_cast<std::size_t>(m);
  if (used > sizeof line - 2) used = sizeof line - 2;  // truncated: still one line
  line[used++] = '\n';
  // One write() per line: lines of concurrent threads and processes do not interleave.
  ssize_t ignored = ::write(STDERR_FILENO, line, used);
  (void)ignored;
}

}  // namespace ftmpi::debug_log
