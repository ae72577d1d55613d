// Fibers over ucontext (fiber.h). Stacks are mapped with a guard page and kept in a small
// per-thread pool: a nonblocking collective would otherwise pay an mmap, a munmap and the
// page faults of a fresh stack on every call.
#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
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
// The first resume calls the body on the fiber's stack (ftmpi_fiber_enter, below) rather than
// switching into a stack laid out to start it; AddressSanitizer's view of the switches is kept
// on the latter, older path.
#if defined(FTMPI_FIBER_SWITCH_ASM) && !defined(FTMPI_FIBER_ASAN)
#define FTMPI_FIBER_ENTER_DIRECT 1
#endif

#ifdef FTMPI_FIBER_SWITCH_ASM
// ftmpi_fiber_switch(save, to): saves the callee-saved registers and the SSE/x87 control words
// on the current stack, stores its stack pointer in *save, loads `to` and restores the same
// from there ("returning" into whoever saved `to`).
//
// ftmpi_fiber_enter(save, top): the first resume of a fiber (FTMPI_FIBER_ENTER_DIRECT). Saves
// as ftmpi_fiber_switch does, moves to the fiber's empty stack at `top` and calls the body
// there (ftmpi_fiber_run); when the body returns it switches back to the resumer's latest save
// (the value ftmpi_fiber_run returns) and returns from that. A body that yields switches back
// with ftmpi_fiber_switch, whose restore reads the same layout.
// Why not a switch into a stack laid out to "return" into the body, and a switch out of it at
// the end: the CPU predicts each `ret` from a stack of the calls it has seen. Such a switch's
// `ret` lands elsewhere than that stack says, and ending the body through a switch called from
// inside it left those frames' entries on top of the prediction stack, so every return after
// it in the resumer (resume, Nbc::run, Nbc::start, the API entry...) was mispredicted in turn.
// Here the body is an ordinary call and return, and the one `ret` at the end is the return
// from ftmpi_fiber_enter the resumer's call expects: a collective that ends in its first
// resume (a small one whose messages are there: most MPI_Ibarrier at 2 ranks) costs no
// misprediction (perf on MPI_COMM_SELF, docs/MEASUREMENTS.md). Only a yield still does.
extern "C" void ftmpi_fiber_switch(void** save, void* to);
extern "C" void ftmpi_fiber_enter(void** save, void* top);
asm(R"(
  # Both entries' first half: the callee-saved registers and the control words onto this
  # stack, its pointer into *save (%rdi), then onto the stack at %rsi.
  .macro ftmpi_fiber_save_and_move
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  .endm

  .text
  .p2align 4
  .globl ftmpi_fiber_switch
  .hidden ftmpi_fiber_switch
  .type ftmpi_fiber_switch, @function
ftmpi_fiber_switch:
  ftmpi_fiber_save_and_move
.Lftmpi_fiber_restore:
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ftmpi_fiber_switch, .-ftmpi_fiber_switch

  .p2align 4
  .globl ftmpi_fiber_enter
  .hidden ftmpi_fiber_enter
  .type ftmpi_fiber_enter, @function
ftmpi_fiber_enter:
  ftmpi_fiber_save_and_move
  call ftmpi_fiber_run
  movq %rax, %rsp
  jmp .Lftmpi_fiber_restore
  .size ftmpi_fiber_enter, .-ftmpi_fiber_enter
  .section .note.GNU-stack,"",@progbits
  .text
)");
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
  ~StackPool();
};
thread_local StackPool t_stacks;
// The main thread's thread-locals are destroyed before the static objects, among them the
// library and the fibers its nonblocking collectives keep: a stack given back after that is
// unmapped at once.
thread_local bool t_stacks_gone = false;

StackPool::~StackPool() {
  t_stacks_gone = true;
  for (unsigned char* s : free) munmap(s - page_bytes(), kStackBytes + page_bytes());
}

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
  if (!t_stacks_gone && t_stacks.free.size() < kKeptStacks) {
    t_stacks.free.push_back(s);
  } else {
    munmap(s - page_bytes(), kStackBytes + page_bytes());
  }
}

}  // namespace

thread_local Fiber* Fiber::current_ FTMPI_TLS_FAST = nullptr;
std::atomic<int> Fiber::resumed_{0};

#ifdef FTMPI_FIBER_SWITCH_ASM
extern "C" [[noreturn]] void ftmpi_fiber_start() {
  Fiber::start();
}
extern "C" void* ftmpi_fiber_run() {
  return Fiber::run();
}
#endif

Fiber::Fiber(std::function<void()> body, void* owner) : body_(std::move(body)), owner_(owner) {
  stack_ = take_stack();
  prepare();
}

void Fiber::restart() {
  finished_ = false;
  prepare();
}

void Fiber::prepare() {
#if defined(FTMPI_FIBER_ENTER_DIRECT)
  fresh_ = true;  // resume() enters through ftmpi_fiber_enter, on the stack's empty top
#elif defined(FTMPI_FIBER_SWITCH_ASM)
  // From the top: 8 bytes of padding (ftmpi_fiber_start's own return address, never used),
  // the address the first switch returns to (16-byte aligned, so the function starts with the
  // stack as after a call), rbp rbx r12-r15 (zero), then the control words, this thread's.
  auto* top = reinterpret_cast<std::uintptr_t*>(stack_ + kStackBytes);
  top[-1] = 0;
  top[-2] = reinterpret_cast<std::uintptr_t>(&ftmpi_fiber_start);
  for (int i = 3; i <= 8; ++i) top[-i] = 0;
  std::uint32_t mxcsr = 0;
  std::uint16_t fpu_cw = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpu_cw));
  top[-9] = static_cast<std::uintptr_t>(mxcsr) | static_cast<std::uintptr_t>(fpu_cw) << 32;
  sp_ = &top[-9];
#else
  getcontext(&context_);
  context_.uc_stack.ss_sp = stack_;
  context_.uc_stack.ss_size = kStackBytes;
  context_.uc_link = nullptr;  // the body never returns through the trampoline (switch_out)
  makecontext(&context_, &Fiber::start, 0);
#endif
}

Fiber::~Fiber() { give_stack(stack_); }

bool Fiber::resume(int polls) {
  if (finished_) return true;
  active_.store(true, std::memory_order_relaxed);
  polls_ = polls;
  Fiber* outer = current_;
  // Every resume runs under the library lock (Nbc::run: inside an MPI call or the progress
  // thread's hold) or, below MPI_THREAD_MULTIPLE with no progress thread, on the one thread the
  // application lets into MPI at a time: the count never changes in two threads at once, so a
  // plain load and store keep it (a locked add and subtract were ~10% of an MPI_Ibarrier +
  // MPI_Wait on MPI_COMM_SELF).
  resumed_.store(resumed_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  current_ = this;
#ifdef FTMPI_FIBER_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_, kStackBytes);
#endif
#if defined(FTMPI_FIBER_ENTER_DIRECT)
  if (fresh_) {
    fresh_ = false;
    ftmpi_fiber_enter(&caller_sp_, stack_ + kStackBytes);
  } else {
    ftmpi_fiber_switch(&caller_sp_, sp_);
  }
#elif defined(FTMPI_FIBER_SWITCH_ASM)
  ftmpi_fiber_switch(&caller_sp_, sp_);
#else
  swapcontext(&caller_, &context_);
#endif
#ifdef FTMPI_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  current_ = outer;
  polls_ = 0;
  resumed_.store(resumed_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  active_.store(false, std::memory_order_relaxed);
  return finished_;
}

Fiber* Fiber::run_body() {
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
  return self;
}

void Fiber::start() {
  run_body()->switch_out(true);
  __builtin_unreachable();  // a finished fiber is never resumed
}

#ifdef FTMPI_FIBER_SWITCH_ASM
// The resumer's save is read after the body: a body that yielded was resumed since, by a
// later resume() whose save it is.
void* Fiber::run() { return run_body()->caller_sp_; }
#endif

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
#ifdef FTMPI_FIBER_SWITCH_ASM
  ftmpi_fiber_switch(&sp_, caller_sp_);
#else
  swapcontext(&context_, &caller_);
#endif
#ifdef FTMPI_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_, &caller_bottom_, &caller_size_);
#endif
}

}  // namespace ftmpi
