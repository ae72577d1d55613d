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
//
// Below MPI_THREAD_MULTIPLE the lock is switched on later, by the first nonblocking collective
// when the asynchronous progress thread is wanted (progress_agent.h): the calling thread
// adopts it (adopt(): it takes the lock inside a call whose Entry did not), and that Entry
// gives it back when the call returns. From then on every call takes it, as under MULTIPLE.
#pragma once

#include <atomic>
#include <cstdint>

#include "futex_mutex.h"
#include "tls_fast.h"

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
      if (taken_) {
        leave();
      } else if (__builtin_expect(enabled(), 0)) {
        leave_adopted();  // switched on inside this call (adopt)
      }
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

  // Switches the lock on from inside a call (the application's only thread in the library:
  // below MULTIPLE) and takes it for the rest of that call. No-op when already on.
  static void adopt();
  // A library thread's own hold (the progress agent): takes the lock, gives it back.
  class Hold {
   public:
    Hold() { enter(); }
    ~Hold() { leave(); }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
  };
  // An application thread blocked in an MPI wait (Engine::wait_until, outside a fiber) while
  // the lock is on: it drives progress itself, so the progress agent keeps out meanwhile
  // instead of taking the lock from it at every message (on oversubscribed cores each handover
  // is a context switch: osu_ibcast's blocking latency at 4 ranks went 3 -> 41 us without).
  class Waiting {
   public:
    Waiting() : counted_(enabled()) {
      if (counted_) waiters_.fetch_add(1, std::memory_order_acq_rel);
    }
    ~Waiting() {
      if (counted_) waiters_.fetch_sub(1, std::memory_order_acq_rel);
    }
    Waiting(const Waiting&) = delete;
    Waiting& operator=(const Waiting&) = delete;

   private:
    bool counted_;
  };
  static bool app_waiting() { return waiters_.load(std::memory_order_acquire) > 0; }
  // Without the lock: lets a thread blocked taking it have it first (the mutex is not fair).
  static void yield_to_waiters();

  // Gives the lock up for a scope if this thread holds it (MPI_Finalize joining the agent).
  class Released {
   public:
    Released();
    ~Released();
    Released(const Released&) = delete;
    Released& operator=(const Released&) = delete;

   private:
    int depth_ = 0;
  };

 private:
  static void enter();
  static void leave();
  static void acquire();
  static void leave_adopted();

  static std::atomic<bool> on_;
  static FutexMutex mutex_;
  static std::atomic<int> waiting_;             // threads blocked in acquire()
  // Acquisitions so far (see idle_released); only the holder writes it, so no RMW.
  static std::atomic<std::uint64_t> handovers_;
  // initial-exec: read without a __tls_get_addr call, since every entry point touches depth_
  // once the lock is on (libftmpi is linked by the program, so its few bytes of static TLS
  // are reserved at load; also fits glibc's surplus when a language binding dlopens us).
  static thread_local int depth_ FTMPI_TLS_FAST;
  // This thread adopted the lock in its current call.
  static thread_local bool adopted_ FTMPI_TLS_FAST;
  static std::atomic<int> waiters_;          // threads inside Waiting
};

}  // namespace ftmpi
