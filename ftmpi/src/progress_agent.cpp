// The asynchronous progress thread (progress_agent.h).
#include "progress_agent.h"

#include "engine.h"
#include "ftmpi/debug_log.h"
#include "ftmpi_knobs/knobs.h"
#include "library_lock.h"

namespace ftmpi {

std::atomic<std::uint64_t> ProgressAgent::polls_{0};

bool ProgressAgent::wanted() {
  static const bool on = knobs::flag(knobs::Id::async_progress);
  return on;
}

ProgressAgent::~ProgressAgent() {
  // The process ends without MPI_Finalize (exit() from the application): the engine is
  // destroyed after us (Library's member order), so the thread must be gone first.
  stop();
}

void ProgressAgent::work_started() {
  if (!thread_.joinable()) {
    if (!wanted()) return;
    // Before the thread exists: from now on every MPI call takes the library lock.
    LibraryLock::adopt();
    active_ = true;
    thread_ = std::thread([this] { main(); });
    FTMPI_DLOG("progress", "asynchronous progress thread started");
    return;
  }
  if (active_.load(std::memory_order_relaxed)) return;  // the usual case: no mutex
  std::lock_guard<std::mutex> lock(mutex_);
  if (active_) return;
  active_ = true;
  // Between collectives the agent looks every look_ms_ by itself: waking it for each one would
  // make a collective completed by MPI_Wait right after its start wait for the woken thread
  // (Ibarrier + Wait cost 22.6 us instead of 1.7 at 2 ranks on 2 cores).
  if (!ticking_) cv_.notify_one();
}

void ProgressAgent::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_one();
  engine_->wake();
  // The agent may be waiting for the library lock this thread holds (MPI_Finalize's Entry).
  LibraryLock::Released released;
  thread_.join();
  // How often the thread took the library lock (tests/e2e/async_progress: a loop of
  // I<call> + MPI_Wait, where the caller drives progress itself, should see almost none).
  FTMPI_DLOG("progress", "asynchronous progress thread ends: %llu bursts", bursts_);
}

ProgressAgent::Burst ProgressAgent::burst() {
  LibraryLock::Hold hold;
  ++bursts_;
  const Burst b = drive();
  // Its own polls are no sign of the application's.
  seen_polls_ = polls_.load(std::memory_order_relaxed);
  return b;
}

ProgressAgent::Burst ProgressAgent::drive() {
  // A bound on one hold of the lock, so that a stream of messages does not keep the
  // application's next MPI call out (the library lock is not fair; see LibraryLock::idle_released).
  constexpr int kMaxPolls = 256;
  int idle = 0;
  for (int polls = 0; polls < kMaxPolls; ++polls) {
    if (!pending_(pending_arg_)) {
      std::lock_guard<std::mutex> lock(mutex_);
      active_ = false;  // a new start sets it again (it holds the library lock: ordered)
      return Burst::done;
    }
    // The application came into MPI (waiting for the lock or blocked in a wait, where it
    // drives progress itself): hand over.
    if (LibraryLock::contended() || LibraryLock::app_waiting()) return Burst::busy;
    if (engine_->progress()) {
      idle = 0;
    } else if (++idle >= kIdlePolls) {
      // Arm, then one more poll: a message published before the arm is seen here, one
      // published after it rings.
      engine_->arm_wakeup();
      if (!engine_->progress()) return Burst::idle;
      idle = 0;
    }
  }
  return Burst::busy;
}

void ProgressAgent::main() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!active_ && quiet_ms_ < kQuietBeforeSleepMs) {
        ticking_ = true;
        cv_.wait_for(lock, std::chrono::milliseconds(look_ms_), [this] { return stop_; });
        if (stop_) return;
        if (!active_) {
          // Not spaced out: a quiet look says nothing of how the application drives
          // progress, and a collective started after a quiet spell (then, maybe, compute)
          // should get its first look within look_ms_ as it stood.
          quiet_ms_ += look_ms_;
          continue;
        }
      }
      ticking_ = false;
      if (!active_) look_ms_ = kDeferMs;  // after a sleep: a start may well be followed by compute
      cv_.wait(lock, [this] { return stop_ || active_; });
      if (stop_) return;
      quiet_ms_ = 0;
    }
    // The application drives progress itself (it polled since the last look, or is blocked
    // in a wait): taking the lock from it would cost both a context switch.
    if (application_polled()) {
      const int ms = look_ms_;
      look_later();
      if (!nap(ms)) return;
      continue;
    }
    look_ms_ = kDeferMs;  // the application left work alone: look often again
    const Burst b = burst();
    if (b == Burst::done) continue;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
    }
    if (b == Burst::busy) {
      LibraryLock::yield_to_waiters();  // an application thread wants the lock: first
      std::this_thread::yield();
      continue;
    }
    // Blocks until a message arrives (or kWaitMs): no polling while the application computes.
    engine_->wait_for_wakeup(kWaitMs);
  }
}

bool ProgressAgent::application_polled() {
  const std::uint64_t polls = polls_.load(std::memory_order_relaxed);
  const bool polled = polls != seen_polls_;
  seen_polls_ = polls;
  return polled || LibraryLock::app_waiting();
}

bool ProgressAgent::nap(int ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  ticking_ = true;  // a start meanwhile need not wake it: it looks again within ms
  cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_; });
  ticking_ = false;
  return !stop_;
}

}  // namespace ftmpi
