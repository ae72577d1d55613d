// Latency and bandwidth of the transport, printed like fi_pingpong so the two compare directly:
//   transport_pingpong [provider] [iterations]
// usec/xfer is half a round trip; MB/s is message size over that (one direction, 10^6 B).
#include <sched.h>

#include <cstdlib>
#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

// Tight loop with no stash: the benchmark must measure the transport, not the test Waiter.
void wait_one(Endpoint& ep) {
  Completion c;
  while (ep.poll(&c, 1) == 0) {
  }
  TT_CHECK(c.status == Status::ok, "%s: %s", status_name(c.status), ep.last_error().c_str());
}

double pingpong(Side& s, std::size_t len, int iters, std::vector<unsigned char>& buf) {
  int send_ctx = 0, recv_ctx = 0;
  double start = 0;
  const int warmup = iters / 10 + 1;
  for (int i = -warmup; i < iters; ++i) {
    if (i == 0) start = now_seconds();
    if (s.rank == 0) {
      TT_OK(s.ep->send(Side::kPeer, buf.data(), len, 7, &send_ctx));
      TT_OK(s.ep->recv(Side::kPeer, buf.data(), len, 7, 0, &recv_ctx));
      wait_one(*s.ep);
      wait_one(*s.ep);
    } else {
      TT_OK(s.ep->recv(Side::kPeer, buf.data(), len, 7, 0, &recv_ctx));
      wait_one(*s.ep);
      TT_OK(s.ep->send(Side::kPeer, buf.data(), len, 7, &send_ctx));
      wait_one(*s.ep);
    }
  }
  return (now_seconds() - start) / iters / 2;  // one-way time per transfer
}

}  // namespace

int main(int argc, char** argv) {
  const int iters = argc > 2 ? std::atoi(argv[2]) : 10000;
  return run_two_process(argc, argv, [iters](Side& s) {
    std::vector<unsigned char> buf(16 << 20, 1);
    struct Case {
      std::size_t len;
      int iters;
    } cases[] = {{8, iters}, {1 << 20, iters / 10 + 1}, {16 << 20, iters / 100 + 1}};
    if (s.rank == 0) {
      std::printf("provider %s\n%-10s %-8s %12s %12s\n", s.ep->provider_name().c_str(), "bytes",
                  "iters", "usec/xfer", "MB/sec");
    }
    for (const Case& c : cases) {
      s.barrier();
      double t = pingpong(s, c.len, c.iters, buf);
      if (s.rank == 0) {
        std::printf("%-10zu %-8d %12.2f %12.1f\n", c.len, c.iters, t * 1e6, c.len / t / 1e6);
        std::fflush(stdout);
      }
    }
    return 0;
  });
}
