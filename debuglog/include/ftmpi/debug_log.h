// FTMPI_DEBUG: a library log of what the failure path (and, later, start-up) did and when.
//
//   FTMPI_DEBUG unset, empty or 0: off (the default). Each log site then costs one load of a
//                                  cached flag and a predicted branch; its arguments are not
//                                  evaluated.
//   FTMPI_DEBUG=1 (any other value): one line per event on stderr:
//     ftmpi-debug <CLOCK_MONOTONIC seconds> rank <R> pid <P> <component>: <message>
//   CLOCK_MONOTONIC is one clock for every process of a host, so lines of different ranks
//   can be merged and ordered (sort -k2 -n).
//
// Use FTMPI_DLOG("failure", "process %u declared failed (%s)", proc, why): the component names
// the layer ("failure", "transport", "startup", ...). Thread-safe: each line is one write().
#pragma once

#include <atomic>

namespace ftmpi::debug_log {

namespace detail {
// -1: FTMPI_DEBUG not read yet; 0: off; 1: on.
extern std::atomic<int> g_state;
int read_environment();
}  // namespace detail

inline bool enabled() {
  int s = detail::g_state.load(std::memory_order_relaxed);
  if (__builtin_expect(s < 0, 0)) s = detail::read_environment();
  return s > 0;
}

// The rank printed on every line from now on (-1 until MPI_Init knows it).
void set_rank(int rank);

// Writes one line (the caller checked enabled()).
void write(const char* component, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace ftmpi::debug_log

#define FTMPI_DLOG(component, ...)                                          \
  do {                                                                      \
    if (__builtin_expect(::ftmpi::debug_log::enabled(), 0)) {               \
      ::ftmpi::debug_log::write(component, __VA_ARGS__);                    \
    }                                                                       \
  } while (0)
