// Asynchronous progress for nonblocking collectives (issue 19 item 2): one thread per process
// that moves them on while the application computes outside MPI.
//
// Without it a nonblocking collective (nbc.h) advances only inside MPI calls, so a rank that
// posts MPI_Iallreduce and computes holds up every peer that needs its part, and no overlap
// happens. The agent:
// - exists from the first nonblocking collective on (FTMPI_ASYNC_PROGRESS=1, the default);
//   a process that never starts one has no thread and pays nothing;
// - runs only while some are outstanding; otherwise it sleeps on a condition variable;
// - never spins: it takes the library lock, drives the engine for a short burst (a few polls
//   after the last one that moved anything), arms the transport's doorbell (Endpoint::
//   arm_wakeup: the next message that arrives wakes it), polls once more, gives the lock back
//   and blocks in Endpoint::wait_for_wakeup. On 2 oversubscribed cores it costs the computing
//   ranks one short burst per message that arrives, not a core;
// - shares the engine with the application through the library lock (library_lock.h): under
//   MPI_THREAD_MULTIPLE it is on anyway; below, the first nonblocking collective switches it
//   on (LibraryLock::adopt) before the thread starts, so the two never run the engine at once;
// - stays out while the application drives progress itself: before each burst it looks whether
//   the engine was polled by anyone else since its last look (note_poll, counted by Engine::
//   progress) or an application thread is blocked in an MPI wait (LibraryLock::app_waiting);
//   if so it naps kDeferMs on its own timer and looks again, touching neither the library lock
//   nor the doorbell, and nobody wakes it when the wait ends. So it works only once the
//   application has left MPI for a while (computing), and a loop of I<call> + MPI_Wait pays no
//   handover: on oversubscribed cores every one (the agent woken at the end of each wait,
//   taking the lock from the caller, the caller yielding until it had it) was a context
//   switch or several, and each woken agent could preempt a rank the collective waited for;
// - notices failures without a message: its wait has a timeout (kWaitMs), after which it polls
//   again (the engine drains the runtime's failure reports there), so a collective whose
//   participant died completes with its error while the application computes;
// - ends in MPI_Finalize (stop(), before the transport closes); it never outlives the process's
//   MPI and, being a plain thread, never keeps a process alive (exit ends it).
// Fibers: the agent resumes the collectives' fibers on its own thread, and the application's
// MPI_Test/MPI_Wait on its thread; a fiber is resumed by one thread at a time (under the lock),
// as under MPI_THREAD_MULTIPLE already. A user's reduction operation of a nonblocking
// collective may therefore run on the agent's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace ftmpi {

class Engine;

class ProgressAgent {
 public:
  // pending() says whether work is outstanding (called with the library lock held).
  ProgressAgent(Engine* engine, bool (*pending)(void*), void* arg)
      : engine_(engine), pending_(pending), pending_arg_(arg) {}
  ~ProgressAgent();
  ProgressAgent(const ProgressAgent&) = delete;
  ProgressAgent& operator=(const ProgressAgent&) = delete;

  // FTMPI_ASYNC_PROGRESS (read once).
  static bool wanted();
  // Work became outstanding (a nonblocking collective started; the caller is inside an MPI
  // call). The first time, switches the library lock on and starts the thread.
  void work_started();
  // Nothing is outstanding any more (the last pending one completed; the caller holds the
  // library lock): the agent goes back to its ticks, then to sleep, without a burst to find out.
  void work_ended() { active_.store(false, std::memory_order_relaxed); }
  // MPI_Finalize: ends the thread (waits for it), before the engine shuts down.
  void stop();
  // Engine::progress was called (by whoever holds the library lock, or the only thread).
  static void note_poll() {
    polls_.store(polls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // Longest block without a message: bounds how late a failure report (which rings no
  // doorbell) or a wake-up lost to the sender's unfenced check is noticed.
  static constexpr int kWaitMs = 10;
  // Polls in a row that moved nothing before the agent blocks.
  static constexpr int kIdlePolls = 16;
  // How long the application must leave the engine alone before the agent polls it: the agent
  // looks (a timer wake-up of a sleeping thread) kDeferMs after work starts, and the
  // asynchronous progress of a computing rank starts at most about that late. Every look
  // that finds the application driving progress itself doubles the interval up to
  // kMaxDeferMs, and a look that finds work left alone brings it back: on
  // oversubscribed cores each wake-up of a sleeping agent preempts a rank, and at one look per
  // ms a loop of 8 B I<call> + MPI_Wait at 8 ranks on 2 cores paid 1.3-4 context switches and
  // 10-40% more time per operation than with the agent off. After a long stretch of MPI calls
  // a rank that starts to compute gets progress at most kMaxDeferMs late, then kDeferMs.
  static constexpr int kDeferMs = 1;
  static constexpr int kMaxDeferMs = 16;

 private:
  void main();
  // One burst under the lock: done (nothing outstanding any more), idle (armed: block until
  // a message) or busy (still moving after its bound: go again).
  enum class Burst { done, idle, busy };
  Burst burst();  // takes the lock and drives
  Burst drive();
  // Someone else polled the engine since the agent last looked, or is blocked in a wait now.
  bool application_polled();
  // Sleeps up to ms on mutex_'s condition variable; false when stop() was asked.
  bool nap(int ms);

  Engine* engine_;
  bool (*pending_)(void*);
  void* pending_arg_;
  std::thread thread_;
  std::mutex mutex_;  // guards active_, stop_
  std::condition_variable cv_;
  // Work may be outstanding: run. Written under mutex_ and, after the thread started, the
  // library lock too (work_started's caller; the agent's burst), so a start may read it
  // without mutex_ (a relaxed load: nothing to do when it is already set).
  std::atomic<bool> active_{false};
  bool stop_ = false;
  // Nothing outstanding: the agent first looks every look_ms_ (work_started does not wake it
  // meanwhile), and after kQuietBeforeSleepMs of quiet looks sleeps until work_started wakes
  // it.
  static constexpr int kQuietBeforeSleepMs = 100;
  bool ticking_ = false;
  int quiet_ms_ = 0;
  // The interval between looks (kDeferMs..kMaxDeferMs, doubling; the agent's thread only).
  int look_ms_ = kDeferMs;
  // A look found no need for the agent: wait longer next time.
  void look_later() { look_ms_ = look_ms_ * 2 < kMaxDeferMs ? look_ms_ * 2 : kMaxDeferMs; }
  // Times burst() took the library lock (the agent's thread only; logged by stop()).
  unsigned long long bursts_ = 0;
  // Engine polls so far (only the library lock's holder, or the only thread, writes: no RMW),
  // and their count at the agent's last look (its own polls are no sign of the application's).
  static std::atomic<std::uint64_t> polls_;
  std::uint64_t seen_polls_ = 0;
};

}  // namespace ftmpi
