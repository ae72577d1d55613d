#include "two_process.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

namespace ftmpi::transport::test {

namespace {

void write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    TT_CHECK(w > 0, "oob write: %s", std::strerror(errno));
    c += w;
    n -= static_cast<std::size_t>(w);
  }
}

void read_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = read(fd, c, n);
    TT_CHECK(r > 0, "oob read: %s", r == 0 ? "peer closed" : std::strerror(errno));
    c += r;
    n -= static_cast<std::size_t>(r);
  }
}

int run_side(Side& side, const std::function<int(Side&)>& body) {
  std::string err;
  side.ep = Endpoint::open(side.provider, &err);
  TT_CHECK(side.ep != nullptr, "open(%s): %s", side.provider.c_str(), err.c_str());
  std::vector<std::uint8_t> mine = side.ep->address();
  side.send_word(mine.size());
  write_all(side.sock, mine.data(), mine.size());
  std::vector<std::uint8_t> theirs(side.recv_word());
  read_all(side.sock, theirs.data(), theirs.size());
  TT_OK(side.ep->insert_peers({theirs}));
  return body(side);
}

}  // namespace

void Side::send_word(std::uint64_t v) { write_all(sock, &v, sizeof v); }

std::uint64_t Side::recv_word() {
  std::uint64_t v = 0;
  read_all(sock, &v, sizeof v);
  return v;
}

bool Side::word_ready(int timeout_ms) {
  pollfd p{sock, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

void Side::barrier() {
  send_word(0xba77);
  TT_CHECK(recv_word() == 0xba77, "barrier out of step");
}

int run_two_process(int argc, char** argv, const std::function<int(Side&)>& body) {
  Side side;
  side.provider = argc > 1 ? argv[1] : "";
  int sv[2];
  TT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
  std::fflush(nullptr);
  pid_t pid = fork();
  TT_CHECK(pid >= 0, "fork");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a parent that timed out
    alarm(55);
    close(sv[0]);
    side.rank = 1;
    side.sock = sv[1];
    int rc = run_side(side, body);
    side.ep.reset();
    std::fflush(nullptr);
    _exit(rc);
  }
  alarm(55);
  close(sv[1]);
  side.rank = 0;
  side.sock = sv[0];
  side.child_pid = pid;
  int rc = run_side(side, body);
  side.ep.reset();
  if (!side.child_reaped) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "child failed (status 0x%x)\n", status);
      rc = 1;
    }
  }
  if (rc == 0) std::printf("PASS %s [%s]\n", argv[0], side.provider.c_str());
  return rc;
}

Completion Waiter::wait(void* ctx, double timeout_s) {
  Completion c;
  TT_CHECK(try_wait(ctx, &c, timeout_s), "no completion for %p within %.0f s (last_error: %s)",
           ctx, timeout_s, ep_.last_error().c_str());
  return c;
}

bool Waiter::try_wait(void* ctx, Completion* out, double timeout_s) {
  const double deadline = now_seconds() + timeout_s;
  for (unsigned spins = 0;; ++spins) {
    for (std::size_t i = 0; i < stash_.size(); ++i) {
      if (stash_[i].context == ctx) {
        *out = stash_[i];
        stash_.erase(stash_.begin() + static_cast<long>(i));
        return true;
      }
    }
    Completion batch[16];
    std::size_t n = ep_.poll(batch, 16);
    stash_.insert(stash_.end(), batch, batch + n);
    if (n == 0 && (spins & 63) == 63) sched_yield();  // the machine is shared
    if (n == 0 && (spins & 1023) == 0 && now_seconds() > deadline) return false;
  }
}

void Waiter::progress() {
  Completion batch[16];
  std::size_t n = ep_.poll(batch, 16);
  stash_.insert(stash_.end(), batch, batch + n);
}

void fill_pattern(void* buf, std::size_t len, unsigned seed) {
  auto* b = static_cast<unsigned char*>(buf);
  for (std::size_t i = 0; i < len; ++i) b[i] = static_cast<unsigned char>(i * 131 + (i >> 12) + seed);
}

long long check_pattern(const void* buf, std::size_t len, unsigned seed) {
  const auto* b = static_cast<const unsigned char*>(buf);
  for (std::size_t i = 0; i < len; ++i) {
    if (b[i] != static_cast<unsigned char>(i * 131 + (i >> 12) + seed)) return static_cast<long long>(i);
  }
  return -1;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace ftmpi::transport::test
