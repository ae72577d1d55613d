#include "wait_policy.h"

#include <sched.h>
#include <time.h>

#include <cstdlib>

namespace ftmpi {
namespace {
std::uint64_t env_u64(const char* name, std::uint64_t dflt) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return dflt;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v, &end, 10);
  return (end != nullptr && *end == '\0') ? x : dflt;
}
}  // namespace

void WaitPolicy::configure(bool oversubscribed) {
  // Oversubscribed, spinning only burns the time slice the process we wait for needs: 50
  // polls before yielding made 8-rank barrier/allreduce/alltoall on 2 cores ~1.5x slower
  // than 0-3 polls (tests/bench/collbench, FTMPI_SPIN_POLLS sweep).
  spin_polls_ = env_u64("FTMPI_SPIN_POLLS", oversubscribed ? 3 : 20000);
  yield_polls_ = env_u64("FTMPI_YIELD_POLLS", oversubscribed ? 2000 : 200);
  max_sleep_us_ = static_cast<unsigned>(env_u64("FTMPI_MAX_SLEEP_US", 500));
  if (max_sleep_us_ == 0) max_sleep_us_ = 1;
}

void WaitPolicy::idle() {
  ++idle_;
  if (idle_ <= spin_polls_) return;
  if (idle_ <= spin_polls_ + yield_polls_) {
    sched_yield();
    return;
  }
  // Sleep 1, 2, 4 ... µs up to the cap, growing with the number of idle rounds.
  std::uint64_t step = idle_ - spin_polls_ - yield_polls_;
  unsigned us = step >= 20 ? max_sleep_us_ : static_cast<unsigned>(1u << (step / 2));
  if (us > max_sleep_us_) us = max_sleep_us_;
  timespec ts{0, static_cast<long>(us) * 1000};
  nanosleep(&ts, nullptr);
}

}  // namespace ftmpi
