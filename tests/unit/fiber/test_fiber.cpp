// A fiber runs its body on its own stack: to the end in one resume, or across yields; it is
// restarted on the same stack; its resumer's registers, stack alignment and floating-point
// control words survive either way. The first resume enters by a call and the last returns
// (fiber.cpp), the middle ones by switches, so each test covers both endings: a body that
// ends at once and one that ends after yielding.
#include <catch2/catch.hpp>

#include <cfenv>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "fiber.h"

using ftmpi::Fiber;

namespace {

// The body's stack must be aligned as the ABI says (16 bytes at a call): SSE code spills
// with aligned moves, and printf of a double faults on a misaligned stack.
__attribute__((noinline)) bool frame_aligned() {
  const auto frame = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", 1.0 / 3.0);
  return frame % 16 == 0 && std::strcmp(text, "0.333") == 0;
}

// Deep enough to use several pages of the fiber's stack.
__attribute__((noinline)) int depth(int n) {
  volatile char pad[512];
  pad[0] = static_cast<char>(n);
  return n == 0 ? pad[0] : depth(n - 1) + 1;
}

}  // namespace

TEST_CASE("a body that never yields ends in its first resume, again after each restart") {
  int runs = 0;
  bool aligned = true;
  bool inside = false;
  Fiber* self = nullptr;
  Fiber f([&] {
    ++runs;
    aligned = aligned && frame_aligned();
    inside = Fiber::running();
    self = Fiber::current();
  });
  CHECK_FALSE(Fiber::running());
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(f.resume());
    REQUIRE(f.finished());
    CHECK(f.resume());  // a finished fiber stays finished
    f.restart();
    REQUIRE_FALSE(f.finished());
  }
  CHECK(runs == 1000);
  CHECK(aligned);
  CHECK(inside);
  CHECK(self == &f);
  CHECK_FALSE(Fiber::running());
  CHECK(Fiber::current() == nullptr);
}

TEST_CASE("a body that yields is resumed where it left off, then ends") {
  int step = 0;
  bool aligned = true;
  Fiber f([&] {
    for (int i = 0; i < 5; ++i) {
      step = i + 1;
      aligned = aligned && frame_aligned() && depth(20) == 20;
      Fiber::yield();
    }
    step = 100;
  });
  for (int round = 0; round < 3; ++round) {
    for (int i = 1; i <= 5; ++i) {
      REQUIRE_FALSE(f.resume());
      CHECK(step == i);
      CHECK_FALSE(Fiber::running());
    }
    REQUIRE(f.resume());
    CHECK(step == 100);
    f.restart();
  }
  CHECK(aligned);
}

TEST_CASE("the resumer's locals and floating-point state survive both endings") {
  // Values live across the resume in callee-saved registers (the compiler keeps them there
  // around a call), and a rounding mode the body sets is its own.
  volatile double seed = 1.5;
  const double a = seed * 3, b = seed * 5, c = seed * 7;
  const std::uint64_t k = static_cast<std::uint64_t>(seed * 1000) * 0x9E3779B97F4A7C15ull;
  int body_round = -1;
  bool yield_first = false;
  Fiber f([&] {
    REQUIRE(std::fesetround(FE_UPWARD) == 0);
    if (yield_first) Fiber::yield();
    body_round = std::fegetround();
  });
  for (int pass = 0; pass < 2; ++pass) {
    yield_first = pass == 1;
    REQUIRE(std::fesetround(FE_TONEAREST) == 0);
    if (yield_first) {
      REQUIRE_FALSE(f.resume());
      CHECK(std::fegetround() == FE_TONEAREST);
    }
    REQUIRE(f.resume());
    CHECK(std::fegetround() == FE_TONEAREST);
    CHECK(body_round == FE_UPWARD);
    CHECK(a == 4.5);
    CHECK(b == 7.5);
    CHECK(c == 10.5);
    CHECK(k == 1500u * 0x9E3779B97F4A7C15ull);
    f.restart();
  }
}

TEST_CASE("fibers interleave: each keeps its own stack and place") {
  int trace[2][3] = {};
  Fiber* fibers[2];
  Fiber f0([&] {
    for (int i = 0; i < 3; ++i) {
      trace[0][i] = depth(i) + 10;
      Fiber::yield();
    }
  });
  Fiber f1([&] {
    for (int i = 0; i < 3; ++i) {
      trace[1][i] = depth(i) + 20;
      Fiber::yield();
    }
  });
  fibers[0] = &f0;
  fibers[1] = &f1;
  for (int i = 0; i < 3; ++i) {
    REQUIRE_FALSE(fibers[i % 2]->resume());
    REQUIRE_FALSE(fibers[(i + 1) % 2]->resume());
  }
  CHECK(f0.resume());
  CHECK(f1.resume());
  for (int i = 0; i < 3; ++i) {
    CHECK(trace[0][i] == i + 10);
    CHECK(trace[1][i] == i + 20);
  }
}
