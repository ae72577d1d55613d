// A sender that floods before the receiver posts anything (common in MPI programs): 20000
// 8-byte and 5000 4-KiB messages, while the receiver first does not poll at all for a while
// (so the sender meets a full queue and must retry) and then only polls. Nothing may deadlock
// or get lost, and everything must match in order once the receives are posted.
#include <unistd.h>

#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

void flood(Side& s, int count, std::size_t len) {
  constexpr std::uint64_t kTag = 7;
  Waiter w(*s.ep);
  std::vector<int> ctx(count);
  std::vector<unsigned char> data(static_cast<std::size_t>(count) * len);
  if (s.rank == 0) {
    for (int i = 0; i < count; ++i) {
      unsigned char* m = &data[i * len];
      fill_pattern(m, len, static_cast<unsigned>(i));
      TT_OK(s.ep->send(Side::kPeer, m, len, kTag, &ctx[i]));
    }
    s.send_word(1);
    for (int i = 0; i < count; ++i) {
      Completion c = w.wait(&ctx[i]);
      TT_CHECK(c.status == Status::ok, "send %d: %s", i, status_name(c.status));
    }
  } else {
    usleep(300 * 1000);  // a receiver busy computing: no progress at all
    Completion none[4];
    while (!s.word_ready(0)) TT_CHECK(s.ep->poll(none, 4) == 0, "unexpected completion");
    (void)s.recv_word();
    for (int i = 0; i < count; ++i) {
      Status st = s.ep->recv(Side::kPeer, &data[i * len], len, kTag, 0, &ctx[i]);
      TT_CHECK(st == Status::ok, "recv %d: %s", i, s.ep->last_error().c_str());
    }
    for (int i = 0; i < count; ++i) {
      Completion c = w.wait(&ctx[i]);
      TT_CHECK(c.status == Status::ok && c.len == len, "recv %d: %s len %zu", i,
               status_name(c.status), c.len);
      TT_CHECK(check_pattern(&data[i * len], len, static_cast<unsigned>(i)) < 0,
               "recv %d: wrong content (lost or reordered)", i);
    }
  }
  s.barrier();
}

}  // namespace

int main(int argc, char** argv) {
  return run_two_process(argc, argv, [](Side& s) {
    double t0 = now_seconds();
    flood(s, 20000, 8);
    double t1 = now_seconds();
    flood(s, 5000, 4096);
    if (s.rank == 1) {
      std::printf("20000 x 8 B: %.3f s, 5000 x 4 KiB: %.3f s\n", t1 - t0, now_seconds() - t1);
    }
    return 0;
  });
}
