#include "wait_policy.h"

#include <sched.h>
#include <time.h>

#include "ftmpi_knobs/knobs.h"

namespace ftmpi {
namespace {
// The knob's value if set, else `dflt` (these defaults depend on oversubscription, so the
// table has none).
std::uint64_t env_u64(knobs::Id knob, std::uint64_t dflt) {
  auto v = knobs::get_if_set(knob);
  return v ? static_cast<std::uint64_t>(v->integer) : dflt;
}
}  // namespace

void WaitPolicy::configure(bool oversubscribed, bool network_polls) {
  // Oversubscribed, spinning only burns the time slice the process we wait for needs: 50
  // polls before yielding made 8-rank barrier/allreduce/alltoall on 2 cores ~1.5x slower
  // than 0-3 polls (tests/bench/collbench, FTMPI_SPIN_POLLS sweep).
  // A poll that also reads libfabric's queue (tcp;ofi_rxm: system calls, µs) between yields
  // keeps taking the core the awaited process needs, where a shm-only poll is a few loads:
  // oversubscribed, such a process sleeps after 10 yields. REBUILD with a hot spare on 3
  // namespace hosts (8 ranks, 2 cores, load ~27, tests/bench/spares.sh build 5 8 3): 171-190
  // ms with 2000 yields, 77-92 ms with 10; on one host (shm only) 10 made it slower (3.3 ->
  // 8.6 ms), so shm-only processes keep 2000.
  spin_polls_ = env_u64(knobs::Id::spin_polls, oversubscribed ? 3 : 20000);
  yield_polls_ = env_u64(knobs::Id::yield_polls, !oversubscribed ? 200 : network_polls ? 10 : 2000);
  max_sleep_us_ = static_cast<unsigned>(knobs::integer(knobs::Id::max_sleep_us));  // >= 1
  yield_on_miss_ = oversubscribed;
  // A 2-rank 8 B I<call> + MPI_Wait whose start polled once and returned found the peer's
  // message only after the return, MPI_Wait's entry and a fiber switch (0.78 against 0.67 us
  // polling on for up to 30 polls, Iallgather; ~1 us of polls at most). Oversubscribed, the
  // awaited process needs this core: no polls.
  start_polls_ = static_cast<int>(env_u64(knobs::Id::nbc_start_polls, oversubscribed ? 0 : 32));
}

// An application loop of MPI_Iprobe or MPI_Test never blocks in the library, so idle() never
// runs for it: oversubscribed, it spun through its whole time slice while the process it
// polled for waited for the core (3 ranks on 2 cores passing a token by MPI_Iprobe, 2000
// rounds: 60 s; 4 ms with a yield per miss). Open MPI yields in the same place when
// oversubscribed (mpi_yield_when_idle). With a core per rank, spinning is what the caller
// asked for and costs nobody.
void WaitPolicy::missed_poll() const {
  if (yield_on_miss_) sched_yield();
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
