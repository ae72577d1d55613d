// Fibers: a function run on its own small stack, which can hand control back to whoever
// resumed it (yield) and be resumed later where it left off. Nonblocking collectives (nbc.h)
// run the blocking collective code on one: every wait inside it (Engine::wait_until) yields
// instead of blocking, so MPI_Test/MPI_Wait and every other wait of the process drive it one
// step at a time while the application computes. One thread only; fibers never nest.
#pragma once

// x86-64 switches stacks with a few instructions (fiber.cpp): swapcontext also saves and
// restores the signal mask, a system call per switch (two per round of a collective).
#if defined(__x86_64__) && defined(__linux__)
#define FTMPI_FIBER_SWITCH_ASM 1
#else
#include <ucontext.h>
#endif

#include <atomic>
#include <cstddef>
#include <functional>

#include "tls_fast.h"

namespace ftmpi {

class Fiber {
 public:
  explicit Fiber(std::function<void()> body, void* owner = nullptr);
  ~Fiber();  // a fiber is destroyed only once finished (or never resumed)
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the body until it yields or returns; true once it has returned. `polls`: how many
  // times the body's waits may poll again instead of yielding, in this resume only (spin()).
  bool resume(int polls = 0);
  // A finished fiber runs its body again from the start, on the same stack (nbc.cpp reuses
  // its fibers: a fresh one costs a constructor and stack setup per nonblocking collective).
  void restart();
  bool finished() const { return finished_; }
  // Being resumed right now (by some thread): nobody else may resume it meanwhile.
  bool active() const { return active_.load(std::memory_order_relaxed); }

  // Whoever resumes it next waits for nothing else (MPI_Wait on its collective alone, nbc.h):
  // the body's waits may then block on this thread with the blocking calls' wait policy
  // (Engine::wait_until) instead of yielding after every poll. Cleared by any thread (under
  // the library lock) as soon as that stops being true; the body looks before every back-off.
  void set_may_block(bool on) { may_block_.store(on, std::memory_order_relaxed); }
  // On a fiber: whether its wait may poll once more before yielding (resume's `polls`, counted
  // down here).
  static bool spin() {
    Fiber* f = current_;
    if (f == nullptr || f->polls_ <= 0) return false;
    --f->polls_;
    return true;
  }
  // On a fiber whose resumer allowed blocking (set_may_block).
  static bool may_block() {
    return current_ != nullptr && current_->may_block_.load(std::memory_order_relaxed);
  }

  // On a fiber: back to whoever resumed it. Returns when it is resumed again.
  static void yield();
  // True while a fiber's body runs (on this thread). Asked on every wait, poll and collective
  // entry: a process-wide count of resumed fibers answers first (one shared load); it is 0
  // unless a nonblocking collective is being stepped somewhere. Then the thread-local is read
  // (initial-exec, tls_fast.h: a __tls_get_addr call per poll was ~5% of an Iallreduce's
  // instructions at 2 ranks). A thread with a fiber of its own running has
  // raised it itself before (program order), so it never reads 0 then.
  static bool running() {
    return resumed_.load(std::memory_order_relaxed) != 0 && current_ != nullptr;
  }
  // The fiber whose body runs on this thread, or nullptr (as cheap as running()).
  static Fiber* current() {
    return resumed_.load(std::memory_order_relaxed) != 0 ? current_ : nullptr;
  }
  // What the creator tied to it (nbc.cpp: its collective), for its body's callees to find
  // through current() without a thread-local of their own.
  void* owner() const { return owner_; }

 private:
  // Where a new fiber begins (public for the assembly trampolines only): start() runs the
  // body and switches back; run() (x86-64 without AddressSanitizer, called by fiber.cpp's
  // ftmpi_fiber_enter) runs it and returns, leaving the switch back to its caller.
 public:
  [[noreturn]] static void start();
#ifdef FTMPI_FIBER_SWITCH_ASM
  static void* run();  // the resumer's saved stack pointer, to switch back to
#endif

 private:
  static Fiber* run_body();  // runs current()'s body to its end
  void switch_out(bool final);
  void prepare();  // lays out the stack (or context) so that the next resume runs start()

  std::function<void()> body_;
  void* owner_ = nullptr;
#ifdef FTMPI_FIBER_SWITCH_ASM
  void* sp_ = nullptr;         // the fiber's saved stack pointer while it is not running
  void* caller_sp_ = nullptr;  // its resumer's, while it runs
#else
  ucontext_t context_{};
  ucontext_t caller_{};
#endif
  unsigned char* stack_ = nullptr;  // mapped, with a guard page at the low end
  bool finished_ = false;
  bool fresh_ = false;  // restarted, not yet resumed (fiber.cpp: FTMPI_FIBER_ENTER_DIRECT)
  int polls_ = 0;  // resume(polls): polls left before the body's waits yield
  std::atomic<bool> active_{false};
  std::atomic<bool> may_block_{false};
  // AddressSanitizer's view of the stack switches (unused in other builds).
  void* fake_stack_ = nullptr;
  const void* caller_bottom_ = nullptr;
  std::size_t caller_size_ = 0;

  static thread_local Fiber* current_ FTMPI_TLS_FAST;
  static std::atomic<int> resumed_;  // fibers resumed and not yet back, all threads
};

}  // namespace ftmpi
