// Fibers over ucontext (fiber.h). Stacks are mapped with a guard page and kept in a small
// per-thread pool: a nonblocking collective would otherwise pay an mmap, a munmap and the
// page faults of a fresh stack on every call.
#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define FTMPI_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FTMPI_FIBER_ASAN 1
#endif
#endif
#ifdef FTMPI_FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace ftmpi {
namespace {

// The collective code a fiber runs keeps little on the stack (buffers are heap scratch), but
// error paths format messages and the debug log; 256 KiB leaves a wide margin and costs only
// the pages touched. Sanitized builds use several times more stack.
#ifdef FTMPI_FIBER_ASAN
constexpr std::size_t kStackBytes = std::size_t{1} << 20;
#else
constexpr std::size_t kStackBytes = std::size_t{256} << 10;
#endif
constexpr std::size_t kKeptStacks = 8;

std::size_t page_bytes() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

struct StackPool {
  std::vector<unsigned char*> free;
  ~StackPool() {
    for (unsigned char* s : free) munmap(s - page_bytes(), kStackBytes + page_bytes());
  }
};
thread_local StackPool t_stacks;

unsigned char* take_stack() {
  if (!t_stacks.free.empty()) {
    unsigned char* s = t_stacks.free.back();
    t_stacks.free.pop_back();
    return s;
  }
  const std::size_t guard = page_bytes();
  void* m = mmap(nullptr, kStackBytes + guard, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "ftmpi: cannot map a %zu-byte stack for a nonblocking collective\n",
                 kStackBytes);
    std::abort();
  }
  mprotect(m, guard, PROT_NONE);  // an overflow faults instead of overwriting the heap
  return static_cast<unsigned char*>(m) + guard;
}

void give_stack(unsigned char* s) {
  if (t_stacks.free.size() < kKeptStacks) {
    t_stacks.free.push_back(s);
  } else {
    munmap(s - page_bytes(), kStackBytes + page_bytes());
  }
}

}  // namespace

thread_local Fiber* Fiber::current_ = nullptr;
std::atomic<int> Fiber::resumed_{0};

Fiber::Fiber(std::function<void()> body) : body_(std::move(body)) {
  stack_ = take_stack();
  getcontext(&context_);
  context_.uc_stack.ss_sp = stack_;
  context_.uc_stack.ss_size = kStackBytes;
  context_.uc_link = nullptr;  // the body never returns through the trampoline (switch_out)
  makecontext(&context_, &Fiber::entry, 0);
}

Fiber::~Fiber() { give_stack(stack_); }

bool Fiber::resume() {
  if (finished_) return true;
  Fiber* outer = current_;
  resumed_.fetch_add(1, std::memory_order_relaxed);
  current_ = this;
#ifdef FTMPI_FIBER_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_, kStackBytes);
#endif
  swapcontext(&caller_, &context_);
#ifdef FTMPI_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  current_ = outer;
  resumed_.fetch_sub(1, std::memory_order_relaxed);
  return finished_;
}

void Fiber::entry() {
  Fiber* self = current_;
#ifdef FTMPI_FIBER_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &self->caller_bottom_, &self->caller_size_);
#endif
  try {
    self->body_();
  } catch (...) {
    // Nothing may unwind off this stack; the body reports its own errors.
    std::fprintf(stderr, "ftmpi: exception escaped a nonblocking collective\n");
    std::abort();
  }
  self->finished_ = true;
  self->switch_out(true);
}

void Fiber::yield() {
  Fiber* self = current_;
  if (self == nullptr) return;
  self->switch_out(false);
}

void Fiber::switch_out(bool final) {
#ifdef FTMPI_FIBER_ASAN
  // A finished fiber's fake stack is released (nullptr save slot).
  __sanitizer_start_switch_fiber(final ? nullptr : &fake_stack_, caller_bottom_, caller_size_);
#else
  (void)final;
#endif
  swapcontext(&context_, &caller_);
#ifdef FTMPI_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_, &caller_bottom_, &caller_size_);
#endif
}

}  // namespace ftmpi
