// MPI non-overtaking: 1000 same-tag messages whose sizes switch between the provider's inject,
// eager and zero-copy paths must match receives in send order, both when the receives are
// posted first and when every message arrives unexpected.
#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

constexpr int kCount = 1000;
constexpr std::uint64_t kTag = 42;
constexpr std::size_t kMax = 70000;

std::size_t size_of(int i) {
  if (i % 50 == 7) return kMax;  // zero-copy / rendezvous
  if (i % 10 == 3) return 5000;  // above shm's inject limit: a tsend with a CQ entry
  return 8;
}

void run_round(Side& s, bool receives_first) {
  Waiter w(*s.ep);
  std::vector<int> ctx(kCount);
  if (s.rank == 0) {
    std::vector<std::vector<unsigned char>> msgs(kCount);
    if (receives_first) (void)s.recv_word();
    for (int i = 0; i < kCount; ++i) {
      msgs[i].resize(size_of(i));
      fill_pattern(msgs[i].data(), msgs[i].size(), static_cast<unsigned>(i));
      TT_OK(s.ep->send(Side::kPeer, msgs[i].data(), msgs[i].size(), kTag, &ctx[i]));
    }
    if (!receives_first) s.send_word(1);
    for (int i = 0; i < kCount; ++i) {
      Completion c = w.wait(&ctx[i]);
      TT_CHECK(c.status == Status::ok, "send %d: %s", i, status_name(c.status));
    }
  } else {
    std::vector<unsigned char> bufs(static_cast<std::size_t>(kCount) * kMax);
    if (!receives_first) {
      // Keep progressing (no receive posted) until every message has been sent.
      Completion none[4];
      while (!s.word_ready(0)) TT_CHECK(s.ep->poll(none, 4) == 0, "unexpected completion");
      (void)s.recv_word();
    }
    for (int i = 0; i < kCount; ++i) {
      TT_OK(s.ep->recv(Side::kPeer, &bufs[i * kMax], kMax, kTag, 0, &ctx[i]));
    }
    if (receives_first) s.send_word(1);
    for (int i = 0; i < kCount; ++i) {
      Completion c = w.wait(&ctx[i]);
      TT_CHECK(c.status == Status::ok, "recv %d: %s", i, status_name(c.status));
      TT_CHECK(c.len == size_of(i), "recv %d: len %zu, expected %zu (overtaken)", i, c.len,
               size_of(i));
      long long bad = check_pattern(&bufs[i * kMax], c.len, static_cast<unsigned>(i));
      TT_CHECK(bad < 0, "recv %d: wrong content at %lld (overtaken)", i, bad);
    }
  }
  s.barrier();
}

}  // namespace

int main(int argc, char** argv) {
  return run_two_process(argc, argv, [](Side& s) {
    run_round(s, true);
    run_round(s, false);
    return 0;
  });
}
