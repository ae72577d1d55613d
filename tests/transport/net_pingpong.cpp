// Transport ping-pong between two processes on two hosts, in fi_pingpong's units, for
// tests/bench/net_pingpong.sh:
//   transport_net_pingpong RANK(0|1) DIR ITERATIONS SIZE...
// Each process runs with FTMPI_NHOSTS=2 and FTMPI_NET_ADDR set (as ftmpid sets them), so the
// path is the one an MPI job on two hosts takes: tcp;ofi_rxm beside an (unused) shm endpoint.
// Prints per size: "bytes iters usec/xfer MB/sec" (usec/xfer = half a round trip, like
// fi_pingpong; MB/sec = 10^6 bytes per second in one direction). Large sizes run
// ITERATIONS/10 + 1 iterations.
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "file_rendezvous.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

// A tight loop with no stash: measures the transport, not the test harness.
void wait_one(Endpoint& ep) {
  Completion c;
  while (ep.poll(&c, 1) == 0) {
  }
  TT_CHECK(c.status == Status::ok, "%s: %s", status_name(c.status), ep.last_error().c_str());
}

double pingpong(FileJob& job, std::size_t len, int iters, std::vector<unsigned char>& buf) {
  const PeerId peer = job.rank == 0 ? 1 : 0;
  int send_ctx = 0, recv_ctx = 0;
  double start = 0;
  const int warmup = iters / 10 + 1;
  for (int i = -warmup; i < iters; ++i) {
    if (i == 0) start = now_seconds();
    if (job.rank == 0) {
      TT_OK(job.ep->recv(peer, buf.data(), len, 7, 0, &recv_ctx));
      TT_OK(job.ep->send(peer, buf.data(), len, 7, &send_ctx));
      wait_one(*job.ep);
      wait_one(*job.ep);
    } else {
      TT_OK(job.ep->recv(peer, buf.data(), len, 7, 0, &recv_ctx));
      wait_one(*job.ep);
      TT_OK(job.ep->send(peer, buf.data(), len, 7, &send_ctx));
      wait_one(*job.ep);
    }
  }
  return (now_seconds() - start) / iters / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s RANK(0|1) DIR ITERATIONS SIZE...\n", argv[0]);
    return 2;
  }
  const int iters = std::atoi(argv[3]);
  std::vector<std::size_t> sizes;
  std::size_t max = 1;
  for (int i = 4; i < argc; ++i) {
    sizes.push_back(std::strtoull(argv[i], nullptr, 10));
    if (sizes.back() > max) max = sizes.back();
  }
  if (iters < 1 || max > (std::size_t{1} << 30)) {
    std::fprintf(stderr, "usage: %s RANK(0|1) DIR ITERATIONS(>0) SIZE(<=1G)...\n", argv[0]);
    return 2;
  }
  alarm(600);
  FileJob job;
  join_file_job(&job, std::atoi(argv[1]), 2, argv[2]);
  std::vector<unsigned char> buf(max, 1);
  if (job.rank == 0) std::printf("provider %s\n", job.ep->provider_name().c_str());
  for (std::size_t len : sizes) {
    job.barrier("size" + std::to_string(len));
    const int n = len >= 65536 ? iters / 10 + 1 : iters;
    const double t = pingpong(job, len, n, buf);
    if (job.rank == 0) {
      std::printf("%zu %d %.3f %.1f\n", len, n, t * 1e6, static_cast<double>(len) / t / 1e6);
      std::fflush(stdout);
    }
  }
  job.barrier("end");
  return 0;
}
