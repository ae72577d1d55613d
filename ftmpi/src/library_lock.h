// MPI_THREAD_MULTIPLE: one process-wide lock around the whole library.
//
// Every C entry point takes it (the generated wrappers, locked_api.cpp, built by
// gen_locked_api.py from the public headers, so no call can be missed), and a blocked call
// gives it up while it waits (Engine::wait_until): a thread blocked in MPI_Recv never stops
// another thread's MPI_Send, and whichever thread polls completes everybody's requests and
// runs the failure path (FailureState::drain, the purges) under the lock.
//
// The lock is only switched on when MPI_Init_thread grants MPI_THREAD_MULTIPLE; otherwise an
// entry costs one relaxed load and a branch (single-thread path measured in README "Threads").
// The depth count is per thread, so an MPI call made from inside the library (a user's
// attribute callback, error handler or reduction, the Fortran layer) does not lock twice.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace ftmpi {

class WaitPolicy;

class LibraryLock {
 public:
  // MPI_Init_thread granted MPI_THREAD_MULTIPLE (called before the user can start threads
  // that use MPI, so a relaxed flag is enough: thread creation orders it).
  static void enable() { on_.store(true, std::memory_order_relaxed); }
  static bool enabled() { return on_.load(std::memory_order_relaxed); }
  // Whether this thread is inside the library with the lock held.
  static bool held_here() { return enabled() && depth_ > 0; }
  // held_here() and another thread is queued for the lock.
  static bool contended() {
    return held_here() && waiting_.load(std::memory_order_relaxed) > 0;
  }

  // One C entry point's scope.
  class Entry {
   public:
    Entry() : taken_(enabled()) {
      if (taken_) enter();
    }
    ~Entry() {
      if (taken_) leave();
    }
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;

   private:
    bool taken_;  // decided once: the flag may turn on inside MPI_Init_thread itself
  };

  // A blocked call found nothing to do: let the other threads in, back off as `policy` says,
  // and take the lock again. Only for a thread that holds it (held_here()).
  static void idle_released(WaitPolicy& policy);
  // A test or probe found nothing: when other threads are queued for the lock, let one of
  // them have it before this thread goes on (a thread polling MPI_Iprobe in a loop would
  // otherwise take the unfair mutex back at once, again and again). Only for held_here().
  static void let_waiters_in();

 private:
  static void enter();
  static void leave();
  static void acquire();
  static void wait_for_handover();

  static std::atomic<bool> on_;
  static std::mutex mutex_;
  static std::atomic<int> waiting_;             // threads blocked in acquire()
  static std::atomic<std::uint64_t> handovers_;  // acquisitions so far (see idle_released)
  static thread_local int depth_;
};

}  // namespace ftmpi
