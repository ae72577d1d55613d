#include "library_lock.h"

#include <sched.h>

#include "wait_policy.h"

namespace ftmpi {

std::atomic<bool> LibraryLock::on_{false};
FutexMutex LibraryLock::mutex_;
std::atomic<int> LibraryLock::waiting_{0};
std::atomic<std::uint64_t> LibraryLock::handovers_{0};
thread_local int LibraryLock::depth_ FTMPI_TLS_FAST = 0;
thread_local bool LibraryLock::adopted_ FTMPI_TLS_FAST = false;
std::atomic<int> LibraryLock::waiters_{0};

void LibraryLock::acquire() {
  // Uncontended (one application thread, the agent asleep): one atomic operation; queued
  // threads are counted only when they really queue.
  if (!mutex_.try_lock()) {
    waiting_.fetch_add(1, std::memory_order_relaxed);
    mutex_.lock();
    waiting_.fetch_sub(1, std::memory_order_relaxed);
  }
  handovers_.store(handovers_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void LibraryLock::enter() {
  if (depth_++ == 0) acquire();
}

void LibraryLock::leave() {
  if (--depth_ == 0) mutex_.unlock();
}

void LibraryLock::idle_released(WaitPolicy& policy) {
  mutex_.unlock();
  // A mutex is not fair: a waiter that spins (the first polls of a wait do not sleep) would
  // take the lock back before the thread it just woke runs. So when someone is queued, wait
  // until somebody else has had the lock before taking it again.
  yield_to_waiters();
  policy.idle();
  acquire();
}

void LibraryLock::let_waiters_in() {
  if (waiting_.load(std::memory_order_relaxed) == 0) return;
  mutex_.unlock();
  yield_to_waiters();
  acquire();
}

void LibraryLock::adopt() {
  if (enabled()) return;
  // Nobody else can be inside the library now (below MULTIPLE calls never overlap, and the
  // agent thread is started only after this), so turning the flag on cannot race an entry.
  on_.store(true, std::memory_order_relaxed);
  enter();
  adopted_ = true;
}

void LibraryLock::leave_adopted() {
  // The outermost call of the adopting thread ends: it held the lock since adopt() (depth 1;
  // calls nested after adopt() took and left it themselves).
  if (!adopted_ || depth_ != 1) return;
  adopted_ = false;
  leave();
}

LibraryLock::Released::Released() {
  if (!held_here()) return;
  depth_ = LibraryLock::depth_;
  LibraryLock::depth_ = 0;
  mutex_.unlock();
}

LibraryLock::Released::~Released() {
  if (depth_ == 0) return;
  acquire();
  LibraryLock::depth_ = depth_;
}

void LibraryLock::yield_to_waiters() {
  if (waiting_.load(std::memory_order_relaxed) == 0) return;
  const std::uint64_t seen = handovers_.load(std::memory_order_relaxed);
  while (waiting_.load(std::memory_order_relaxed) > 0 &&
         handovers_.load(std::memory_order_relaxed) == seen) {
    sched_yield();
  }
}

}  // namespace ftmpi
