// A peer dies (argv[2]: "exit" = _exit, "kill" = SIGKILL) with operations pending towards it:
// a directed receive, a wildcard receive, a large send it never matched. First we record what
// the provider reports on its own (tcp sees the socket close; shm sees nothing), then
// mark_peer_failed() must complete every directed operation with peer_failed, leave the
// wildcard receive alone, make later operations fail at once, and nothing may hang.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

bool g_kill = false;

// One round trip first, so the connection (tcp) and the peer mapping (shm) are established as
// in a real job, where the peer dies in mid-run.
void warm_up(Side& s) {
  Waiter w(*s.ep);
  std::uint64_t v = 1;
  int sc = 0, rc = 0;
  TT_OK(s.ep->recv(Side::kPeer, &v, 8, 99, 0, &rc));
  TT_OK(s.ep->send(Side::kPeer, &v, 8, 99, &sc));
  TT_CHECK(w.wait(&sc).status == Status::ok && w.wait(&rc).status == Status::ok, "warm-up");
}

int child(Side& s) {
  warm_up(s);
  s.barrier();  // the parent's operations are posted
  if (g_kill) raise(SIGKILL);
  _exit(0);
}

// Polls for a while and prints whatever the provider itself reports about the dead peer.
void observe_provider(Side& s, int* ctx_begin, int* ctx_end, double seconds) {
  const double end = now_seconds() + seconds;
  Completion c[8];
  while (now_seconds() < end) {
    std::size_t n = s.ep->poll(c, 8);
    for (std::size_t i = 0; i < n; ++i) {
      TT_CHECK(static_cast<int*>(c[i].context) >= ctx_begin &&
                   static_cast<int*>(c[i].context) < ctx_end,
               "completion for an unknown context");
      std::printf("[%s] before mark_peer_failed: op %ld completed %s (%s)\n", s.provider.c_str(),
                  static_cast<int*>(c[i].context) - ctx_begin, status_name(c[i].status),
                  s.ep->last_error().c_str());
      *static_cast<int*>(c[i].context) = -1;  // remember it completed
    }
    if (n == 0) usleep(1000);
  }
}

int parent(Side& s) {
  warm_up(s);
  Waiter w(*s.ep);
  std::vector<unsigned char> big(16 << 20, 1);
  std::uint64_t v = 0, v2 = 0;
  // ctx[0]: directed recv, [1]: wildcard recv, [2]: large send, [3]: small send after death
  int ctx[4] = {0, 0, 0, 0};
  TT_OK(s.ep->recv(Side::kPeer, &v, 8, 1, 0, &ctx[0]));
  TT_OK(s.ep->recv(kAnyPeer, &v2, 8, 2, 0, &ctx[1]));
  TT_OK(s.ep->send(Side::kPeer, big.data(), big.size(), 3, &ctx[2]));
  s.barrier();
  int status = 0;
  TT_CHECK(waitpid(s.child_pid, &status, 0) == s.child_pid, "waitpid");
  s.child_reaped = true;
  TT_CHECK(g_kill ? WIFSIGNALED(status) : WIFEXITED(status), "child died the wrong way");

  // What does the provider say by itself, including for a send issued after the death?
  Status late = s.ep->send(Side::kPeer, big.data(), 8, 4, &ctx[3]);
  std::printf("[%s] send to dead peer before mark: %s (%s)\n", s.provider.c_str(),
              status_name(late), s.ep->last_error().c_str());
  if (late != Status::ok) ctx[3] = -1;
  observe_provider(s, ctx, ctx + 4, 1.5);

  s.ep->mark_peer_failed(Side::kPeer);
  s.ep->mark_peer_failed(Side::kPeer);  // idempotent
  for (int i : {0, 2, 3}) {
    if (ctx[i] == -1) continue;  // the provider already completed it (with an error or not)
    Completion c = w.wait(&ctx[i], 10);
    TT_CHECK(c.status == Status::peer_failed, "op %d: %s", i, status_name(c.status));
  }
  Completion c;
  TT_CHECK(ctx[1] == -1 || !w.try_wait(&ctx[1], &c, 0.3), "wildcard recv was purged");
  TT_CHECK(s.ep->send(Side::kPeer, &v, 8, 5, &ctx[0]) == Status::peer_failed, "late send");
  TT_CHECK(s.ep->recv(Side::kPeer, &v, 8, 5, 0, &ctx[0]) == Status::peer_failed, "late recv");
  TT_CHECK(s.ep->probe(Side::kPeer, 5, 0, &ctx[0]) == Status::peer_failed, "late probe");
  if (ctx[1] != -1) {
    TT_OK(s.ep->cancel(&ctx[1]));
    TT_CHECK(w.wait(&ctx[1]).status == Status::canceled, "wildcard cancel");
  }
  // Late provider completions for purged operations must not surface.
  TT_CHECK(!w.try_wait(&ctx[2], &c, 0.5), "purged operation completed twice");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  g_kill = argc > 2 && std::strcmp(argv[2], "kill") == 0;
  return run_two_process(argc, argv, [](Side& s) { return s.rank == 0 ? parent(s) : child(s); });
}
