// Harness for the two-process transport tests: fork, open an Endpoint of the provider named on
// the command line in each process, swap addresses over a socketpair (which also serves as an
// out-of-band barrier), and run one body per side. Each side sees the other as PeerId 0.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ftmpi/transport/endpoint.h"

namespace ftmpi::transport::test {

struct Side {
  int rank = 0;             // 0: parent, 1: child
  std::string provider;
  std::unique_ptr<Endpoint> ep;
  int sock = -1;            // out-of-band channel to the other side
  pid_t child_pid = -1;     // on the parent
  bool child_reaped = false;  // set by a parent body that waits for the child itself
  static constexpr PeerId kPeer = 0;

  void barrier();
  void send_word(std::uint64_t v);
  std::uint64_t recv_word();
  bool word_ready(int timeout_ms = 0);  // is a send_word() from the other side pending?
};

// Runs body on both sides; returns the process exit code for main() (0 when both passed).
int run_two_process(int argc, char** argv, const std::function<int(Side&)>& body);

// Polls until the completion for ctx arrives; other completions are kept for later calls.
// Fails the test (exits) after timeout_s.
class Waiter {
 public:
  explicit Waiter(Endpoint& ep) : ep_(ep) {}
  Completion wait(void* ctx, double timeout_s = 30.0);
  // Polls for a while and returns whether ctx completed (without failing on timeout).
  bool try_wait(void* ctx, Completion* out, double timeout_s);
  // Polls once, keeping whatever completes for later wait()/try_wait() calls.
  void progress();

 private:
  Endpoint& ep_;
  std::vector<Completion> stash_;
};

// Deterministic content for a message: check_pattern returns the first bad index or -1.
void fill_pattern(void* buf, std::size_t len, unsigned seed);
long long check_pattern(const void* buf, std::size_t len, unsigned seed);

double now_seconds();

}  // namespace ftmpi::transport::test

// Test assertion that works in both processes: reports and exits with failure.
#define TT_CHECK(cond, ...)                                                        \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "[%d] %s:%d: check failed: %s: ", getpid(), __FILE__, \
                   __LINE__, #cond);                                               \
      std::fprintf(stderr, __VA_ARGS__);                                           \
      std::fprintf(stderr, "\n");                                                  \
      std::fflush(nullptr);                                                        \
      _exit(1);                                                                    \
    }                                                                              \
  } while (0)

#define TT_OK(expr)                                                                  \
  do {                                                                               \
    ::ftmpi::transport::Status tt_s_ = (expr);                                       \
    TT_CHECK(tt_s_ == ::ftmpi::transport::Status::ok, "%s", status_name(tt_s_)); \
  } while (0)
