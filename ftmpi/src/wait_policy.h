// How a blocked call waits. Spinning gives the best latency when every rank has a core; when
// ranks outnumber cores, spinning steals the core from the very process we wait for, so we yield
// early and, once a wait gets long, sleep in growing steps. Knobs (see README):
//   FTMPI_SPIN_POLLS    polls before the first yield (default 20000, 3 when oversubscribed)
//   FTMPI_YIELD_POLLS   sched_yield polls before sleeping (default 200, 2000 when oversubscribed,
//                       10 when oversubscribed and the process polls a libfabric endpoint too)
// Oversubscribed = more live processes of the job on this machine than it has cores
// (Engine::configure_waits: namespace hosts of one machine count together).
//   FTMPI_MAX_SLEEP_US  longest single sleep of an idle wait (default 500)
//   FTMPI_NBC_START_POLLS  polls a nonblocking collective's start makes before returning
//                       (default 32, 0 when oversubscribed; nbc.cpp)
#pragma once

#include <cstdint>

namespace ftmpi {

class WaitPolicy {
 public:
  // network_polls: each poll also reads a libfabric completion queue (peers on other hosts).
  void configure(bool oversubscribed, bool network_polls);
  void reset() { idle_ = 0; }
  // Called after a poll that found nothing.
  void idle();
  // Called when a test or probe the application polls in its own loop (MPI_Test, MPI_Iprobe,
  // ...) found nothing: when ranks outnumber cores it yields the core, never sleeps (the
  // caller decides when to ask again); with a core per rank it returns at once.
  void missed_poll() const;
  // Polls the start of a nonblocking collective makes before it returns (Nbc::start).
  int start_polls() const { return start_polls_; }

 private:
  std::uint64_t idle_ = 0;
  bool yield_on_miss_ = false;  // oversubscribed
  std::uint64_t spin_polls_ = 20000;
  std::uint64_t yield_polls_ = 2000;
  unsigned max_sleep_us_ = 500;
  int start_polls_ = 0;
};

}  // namespace ftmpi
