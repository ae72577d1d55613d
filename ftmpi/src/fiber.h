// Fibers: a function run on its own small stack, which can hand control back to whoever
// resumed it (yield) and be resumed later where it left off. Nonblocking collectives (nbc.h)
// run the blocking collective code on one: every wait inside it (Engine::wait_until) yields
// instead of blocking, so MPI_Test/MPI_Wait and every other wait of the process drive it one
// step at a time while the application computes. One thread only; fibers never nest.
#pragma once

#include <ucontext.h>

#include <atomic>
#include <cstddef>
#include <functional>

namespace ftmpi {

class Fiber {
 public:
  explicit Fiber(std::function<void()> body);
  ~Fiber();  // a fiber is destroyed only once finished (or never resumed)
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the body until it yields or returns; true once it has returned.
  bool resume();
  bool finished() const { return finished_; }

  // On a fiber: back to whoever resumed it. Returns when it is resumed again.
  static void yield();
  // True while a fiber's body runs (on this thread). Asked on every wait and collective entry:
  // a thread-local in a shared library costs a __tls_get_addr call (~11 instructions), so a
  // process-wide count of resumed fibers answers first; it is 0 unless a nonblocking
  // collective is being stepped somewhere. A thread with a fiber of its own running has
  // raised it itself before (program order), so it never reads 0 then.
  static bool running() {
    return resumed_.load(std::memory_order_relaxed) != 0 && current_ != nullptr;
  }

 private:
  static void entry();
  void switch_out(bool final);

  std::function<void()> body_;
  ucontext_t context_{};
  ucontext_t caller_{};
  unsigned char* stack_ = nullptr;  // mapped, with a guard page at the low end
  bool finished_ = false;
  // AddressSanitizer's view of the stack switches (unused in other builds).
  void* fake_stack_ = nullptr;
  const void* caller_bottom_ = nullptr;
  std::size_t caller_size_ = 0;

  static thread_local Fiber* current_;
  static std::atomic<int> resumed_;  // fibers resumed and not yet back, all threads
};

}  // namespace ftmpi
