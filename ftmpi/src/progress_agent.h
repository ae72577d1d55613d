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
//   a blocked MPI call gives it up while idle (Engine::wait_until), so the agent gets in then;
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
  // MPI_Finalize: ends the thread (waits for it), before the engine shuts down.
  void stop();

  // Longest block without a message: bounds how late a failure report (which rings no
  // doorbell) or a wake-up lost to the sender's unfenced check is noticed.
  static constexpr int kWaitMs = 10;
  // Polls in a row that moved nothing before the agent blocks.
  static constexpr int kIdlePolls = 16;

 private:
  void main();
  // One burst under the lock: done (nothing outstanding any more), idle (armed: block until
  // a message) or busy (still moving after its bound: go again).
  enum class Burst { done, idle, busy };
  Burst burst();

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
  // Nothing outstanding: the agent first looks every kTickMs (work_started does not wake it
  // meanwhile), and after kTicksBeforeSleep quiet looks sleeps until work_started wakes it.
  static constexpr int kTickMs = 1;
  static constexpr int kTicksBeforeSleep = 100;
  bool ticking_ = false;
  int quiet_ticks_ = 0;
};

}  // namespace ftmpi
