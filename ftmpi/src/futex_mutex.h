// The library lock's mutex (library_lock.h): a three-state futex mutex (free, locked, locked
// with sleepers), as in Drepper's "Futexes Are Tricky".
//
// Why not std::mutex: once the lock is on (MPI_THREAD_MULTIPLE, or the first nonblocking
// collective below it) every MPI call takes and gives it, and glibc's pthread_mutex_trylock
// and unlock cost ~120 instructions per MPI_Send + MPI_Recv pair (callgrind); here the
// uncontended lock is one compare-and-swap and the unlock one exchange. Not fair, like
// std::mutex: LibraryLock::yield_to_waiters supplies the fairness the library needs.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace ftmpi {

class FutexMutex {
 public:
  bool try_lock() {
    std::uint32_t expected = kFree;
    return state_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire,
                                          std::memory_order_relaxed);
  }
  void lock() {
    if (try_lock()) return;
    lock_contended();
  }
  void unlock() {
    if (state_.exchange(kFree, std::memory_order_release) == kSleepers) wake_one();
  }

 private:
  static constexpr std::uint32_t kFree = 0, kLocked = 1, kSleepers = 2;

  void lock_contended() {
    // From here on the state says "sleepers" while we hold or wait, so every unlock in
    // between wakes someone; a wake with nobody asleep costs one system call, never a hang.
    while (state_.exchange(kSleepers, std::memory_order_acquire) != kFree) {
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state_), FUTEX_WAIT_PRIVATE,
              kSleepers, nullptr, nullptr, 0);
    }
  }
  void wake_one() {
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state_), FUTEX_WAKE_PRIVATE, 1,
            nullptr, nullptr, 0);
  }

  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t),
                "the futex word is the atomic itself");
  std::atomic<std::uint32_t> state_{kFree};
};

}  // namespace ftmpi
