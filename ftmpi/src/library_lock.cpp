#include "library_lock.h"

#include <sched.h>

#include "wait_policy.h"

namespace ftmpi {

std::atomic<bool> LibraryLock::on_{false};
std::mutex LibraryLock::mutex_;
std::atomic<int> LibraryLock::waiting_{0};
std::atomic<std::uint64_t> LibraryLock::handovers_{0};
thread_local int LibraryLock::depth_ = 0;

void LibraryLock::acquire() {
  waiting_.fetch_add(1, std::memory_order_relaxed);
  mutex_.lock();
  waiting_.fetch_sub(1, std::memory_order_relaxed);
  handovers_.fetch_add(1, std::memory_order_relaxed);
}

void LibraryLock::enter() {
  if (depth_++ == 0) acquire();
}

void LibraryLock::leave() {
  if (--depth_ == 0) mutex_.unlock();
}

// A mutex is not fair: a thread that unlocks and locks again at once (the first polls of a wait
// do not sleep; an application loops on MPI_Iprobe) takes it back before the thread it just
// woke runs. So when someone is queued, wait until somebody else has had the lock.
void LibraryLock::wait_for_handover() {
  if (waiting_.load(std::memory_order_relaxed) > 0) {
    const std::uint64_t seen = handovers_.load(std::memory_order_relaxed);
    while (waiting_.load(std::memory_order_relaxed) > 0 &&
           handovers_.load(std::memory_order_relaxed) == seen) {
      sched_yield();
    }
  }
}

void LibraryLock::idle_released(WaitPolicy& policy) {
  mutex_.unlock();
  wait_for_handover();
  policy.idle();
  acquire();
}

void LibraryLock::let_waiters_in() {
  if (waiting_.load(std::memory_order_relaxed) == 0) return;
  mutex_.unlock();
  wait_for_handover();
  acquire();
}

}  // namespace ftmpi
