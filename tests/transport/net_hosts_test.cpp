// The transport across hosts, without mpirun (run by net_hosts_test.sh on namespace hosts):
//   transport_net_hosts_test RANK DIR      (3 ranks: 0 and 1 on host A, 2 on host B)
// with FTMPI_NHOSTS=2 and FTMPI_NET_ADDR=<this host's address>, as ftmpid sets them. Checks:
// both endpoints open and the published libfabric address is FTMPI_NET_ADDR; ping-pong of
// 0 B..4 MiB across hosts (and on shm); order of mixed small/large messages received late;
// a wildcard receive fed by a same-host and an other-host sender at once; a 64 MiB message
// moved by rendezvous (the sender's send waits for the receive, the receiver buffers nothing);
// rank 2 killed with operations pending towards it: mark_peer_failed completes them, nothing
// hangs, and the shm peer still works.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "file_rendezvous.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

constexpr int kRanks = 3;
constexpr PeerId kShmPeer = 1;  // rank 0's peer on its host
constexpr PeerId kNetPeer = 2;  // rank 0's peer on the other host

// The libfabric part of a transport address ([magic][host][machine][pid][shm len][net len][shm][net],
// transport.cpp) is, for tcp;ofi_rxm, the sockaddr_in it listens on.
void check_published_address(const FileJob& job) {
  const char* want = std::getenv("FTMPI_NET_ADDR");
  TT_CHECK(want != nullptr, "FTMPI_NET_ADDR is not set");
  TT_CHECK(job.ep->provider_name() == "shm+tcp;ofi_rxm", "provider %s, want shm+tcp;ofi_rxm",
           job.ep->provider_name().c_str());
  const std::vector<std::uint8_t> a = job.ep->address();
  TT_CHECK(a.size() >= 36, "address of %zu bytes", a.size());
  std::uint32_t shm_len = 0, net_len = 0;
  std::memcpy(&shm_len, a.data() + 28, 4);
  std::memcpy(&net_len, a.data() + 32, 4);
  TT_CHECK(shm_len != 0 && net_len >= sizeof(sockaddr_in), "shm %u B, net %u B", shm_len, net_len);
  sockaddr_in sin{};
  std::memcpy(&sin, a.data() + 36 + shm_len, sizeof sin);
  char got[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &sin.sin_addr, got, sizeof got);
  TT_CHECK(sin.sin_family == AF_INET && std::strcmp(got, want) == 0,
           "published libfabric address %s, want FTMPI_NET_ADDR %s", got, want);
}

void pingpong_sizes(FileJob& job, PeerId peer, std::size_t max) {
  std::vector<std::size_t> sizes = {0, 1, 8, 100, 4079, 4080, 4096, 16367, 16368, 16384, 65539};
  for (std::size_t s = 1 << 17; s <= max; s <<= 1) sizes.push_back(s);
  std::vector<unsigned char> buf(max + 1);
  int sctx = 0, rctx = 0;
  for (std::size_t len : sizes) {
    for (int round = 0; round < 2; ++round) {
      const unsigned seed = static_cast<unsigned>(len + round);
      if (job.rank == 0) {
        fill_pattern(buf.data(), len, seed);
        TT_OK(job.ep->send(peer, buf.data(), len, 11, &sctx));
        TT_OK(job.ep->recv(peer, buf.data(), max + 1, 11, 0, &rctx));
        TT_CHECK(job.waiter->wait(&sctx).status == Status::ok, "send %zu", len);
      } else {
        TT_OK(job.ep->recv(0, buf.data(), max + 1, 11, 0, &rctx));
      }
      Completion c = job.waiter->wait(&rctx);
      TT_CHECK(c.status == Status::ok && c.len == len && c.source == (job.rank == 0 ? peer : 0),
               "rank %d: size %zu: %s len %zu source %u (%s)", job.rank, len,
               status_name(c.status), c.len, c.source, job.ep->last_error().c_str());
      long long bad = check_pattern(buf.data(), len, seed);
      TT_CHECK(bad < 0, "rank %d: size %zu: byte %lld wrong", job.rank, len, bad);
      if (job.rank != 0) {
        TT_OK(job.ep->send(0, buf.data(), len, 11, &sctx));
        TT_CHECK(job.waiter->wait(&sctx).status == Status::ok, "echo %zu", len);
      }
    }
  }
}

// Sizes cycle through inline, just above the inject size, and rendezvous.
std::size_t ordered_size(int i) {
  static const std::size_t kSizes[] = {8, 70000, 1, 20000, 300000, 4080};
  return kSizes[i % 6];
}

// The sender posts everything at once; the receiver posts its receives only afterwards, so
// every message (and every announcement) waits unexpected first.
void ordered_late(FileJob& job) {
  constexpr int kCount = 60;
  std::vector<std::vector<unsigned char>> bufs(kCount);
  std::vector<int> ctx(kCount);
  if (job.rank == kNetPeer) {
    for (int i = 0; i < kCount; ++i) {
      bufs[i].resize(ordered_size(i));
      fill_pattern(bufs[i].data(), bufs[i].size(), static_cast<unsigned>(i));
      TT_OK(job.ep->send(0, bufs[i].data(), bufs[i].size(), 5, &ctx[i]));
    }
    job.post("ordered-sent");
    for (int i = 0; i < kCount; ++i) {
      TT_CHECK(job.waiter->wait(&ctx[i]).status == Status::ok, "ordered send %d", i);
    }
  } else if (job.rank == 0) {
    job.wait_for("ordered-sent", kNetPeer);
    for (int i = 0; i < kCount; ++i) {
      bufs[i].resize(300000);
      TT_OK(job.ep->recv(kNetPeer, bufs[i].data(), bufs[i].size(), 5, 0, &ctx[i]));
    }
    for (int i = 0; i < kCount; ++i) {
      Completion c = job.waiter->wait(&ctx[i]);
      TT_CHECK(c.status == Status::ok && c.len == ordered_size(i),
               "message %d: %s, %zu bytes, want %zu", i, status_name(c.status), c.len,
               ordered_size(i));
      TT_CHECK(check_pattern(bufs[i].data(), c.len, static_cast<unsigned>(i)) < 0,
               "message %d out of order or corrupt", i);
    }
  }
}

// Ranks 1 (shm) and 2 (tcp) send to rank 0 at once; rank 0 receives with kAnyPeer only.
void wildcard_across_endpoints(FileJob& job) {
  constexpr int kEach = 40;
  struct Stamp {
    std::uint32_t sender, seq;
  };
  if (job.rank != 0) {
    std::vector<std::vector<unsigned char>> bufs(kEach);
    std::vector<int> ctx(kEach);
    for (int i = 0; i < kEach; ++i) {
      bufs[i].assign(i % 4 == 3 ? 100000 : 64, 0);
      const Stamp st{static_cast<std::uint32_t>(job.rank), static_cast<std::uint32_t>(i)};
      std::memcpy(bufs[i].data(), &st, sizeof st);
      TT_OK(job.ep->send(0, bufs[i].data(), bufs[i].size(), 9, &ctx[i]));
    }
    for (int i = 0; i < kEach; ++i) {
      TT_CHECK(job.waiter->wait(&ctx[i]).status == Status::ok, "wildcard send %d", i);
    }
    return;
  }
  std::vector<unsigned char> buf(100000);
  std::uint32_t next[kRanks] = {};
  int rctx = 0;
  for (int i = 0; i < 2 * kEach; ++i) {
    TT_OK(job.ep->recv(kAnyPeer, buf.data(), buf.size(), 9, 0, &rctx));
    Completion c = job.waiter->wait(&rctx);
    Stamp st{};
    std::memcpy(&st, buf.data(), sizeof st);
    TT_CHECK(c.status == Status::ok && (c.source == kShmPeer || c.source == kNetPeer) &&
                 st.sender == c.source && st.seq == next[c.source],
             "wildcard %d: %s from %u, stamp %u/%u, want seq %u", i, status_name(c.status),
             c.source, st.sender, st.seq, c.source < kRanks ? next[c.source] : 0);
    ++next[c.source];
  }
}

long vm_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field));
  }
  return -1;
}

// 64 MiB from rank 2 to rank 0, sent before the receive exists.
void rendezvous_64m(FileJob& job) {
  constexpr std::size_t kLen = std::size_t{64} << 20;
  if (job.rank == 1) return;
  std::vector<unsigned char> buf(kLen);
  int ctx = 0;
  if (job.rank == kNetPeer) {
    fill_pattern(buf.data(), kLen, 64);
    TT_OK(job.ep->send(0, buf.data(), kLen, 64, &ctx));
    job.post("big-sent");
    Completion c;
    // Rendezvous: the payload stays here until rank 0 posts its receive.
    TT_CHECK(!job.waiter->try_wait(&ctx, &c, 0.3), "the 64 MiB send completed before the receive");
    job.post("big-early-checked");
    TT_CHECK(job.waiter->wait(&ctx).status == Status::ok, "64 MiB send: %s",
             job.ep->last_error().c_str());
    return;
  }
  std::memset(buf.data(), 0, kLen);  // touched: counted in RSS from here on
  job.wait_for("big-sent", kNetPeer);
  job.wait_for("big-early-checked", kNetPeer);  // 0.3 s of progress with the message pending
  const long rss_before = vm_kib("VmRSS:");
  const double t0 = now_seconds();
  TT_OK(job.ep->recv(kNetPeer, buf.data(), kLen, 64, 0, &ctx));
  Completion c = job.waiter->wait(&ctx, 60.0);
  const double dt = now_seconds() - t0;
  TT_CHECK(c.status == Status::ok && c.len == kLen, "64 MiB receive: %s",
           status_name(c.status));
  TT_CHECK(check_pattern(buf.data(), kLen, 64) < 0, "64 MiB payload corrupt");
  const long grown = vm_kib("VmRSS:") - rss_before;
  std::printf("64 MiB across hosts: %.1f ms (%.0f MB/s), receiver RSS +%ld KiB\n", dt * 1e3,
              kLen / dt / 1e6, grown);
  // A copy of the payload (eager buffering, bounce staging) would add 64 MiB.
  TT_CHECK(grown < 16 * 1024, "receiver RSS grew by %ld KiB: the payload was copied", grown);
}

// Rank 2 dies (SIGKILL) while rank 0 has a receive from it, a large send to it and a small
// one in flight; then the runtime's notice (here: by hand) purges them.
void peer_killed(FileJob& job) {
  if (job.rank == kNetPeer) {
    job.wait_for("doomed-posted", 0);
    raise(SIGKILL);
  }
  if (job.rank == kShmPeer) {
    job.wait_for("purged", 0);
    int one = 1, ctx = 0;
    TT_OK(job.ep->send(0, &one, sizeof one, 77, &ctx));
    TT_CHECK(job.waiter->wait(&ctx).status == Status::ok, "shm send after the death");
    return;
  }
  std::vector<unsigned char> big(std::size_t{4} << 20, 3), in(64);
  int rctx = 0, bctx = 0;
  TT_OK(job.ep->recv(kNetPeer, in.data(), in.size(), 70, 0, &rctx));
  TT_OK(job.ep->send(kNetPeer, big.data(), big.size(), 71, &bctx));
  job.post("doomed-posted");
  // Give the kill time to happen, and the provider a chance to notice on its own.
  Completion c;
  const double t0 = now_seconds();
  const bool noticed = job.waiter->try_wait(&bctx, &c, 1.5);
  std::printf("provider %s the dead peer's pending send within 1.5 s%s%s\n",
              noticed ? "failed" : "did not fail", noticed ? ": " : "",
              noticed ? status_name(c.status) : "");
  TT_CHECK(!noticed || c.status != Status::ok, "a send to a killed peer succeeded");
  const double t1 = now_seconds();
  job.ep->mark_peer_failed(kNetPeer);
  job.ep->mark_peer_failed(kNetPeer);  // idempotent
  Completion r = job.waiter->wait(&rctx, 5.0);
  TT_CHECK(r.status == Status::peer_failed, "receive from the dead peer: %s",
           status_name(r.status));
  if (!noticed) {
    Completion b = job.waiter->wait(&bctx, 5.0);
    TT_CHECK(b.status == Status::peer_failed, "send to the dead peer: %s", status_name(b.status));
  }
  std::printf("purge after mark_peer_failed: %.2f ms (kill noticed after %.0f ms of waiting)\n",
              (now_seconds() - t1) * 1e3, (t1 - t0) * 1e3);
  int x = 0, ctx = 0;
  TT_CHECK(job.ep->send(kNetPeer, &x, sizeof x, 72, &ctx) == Status::peer_failed,
           "send to a failed peer accepted");
  TT_CHECK(job.ep->recv(kNetPeer, &x, sizeof x, 72, 0, &ctx) == Status::peer_failed,
           "receive from a failed peer accepted");
  // The wildcard and the shm peer live on.
  job.post("purged");
  TT_OK(job.ep->recv(kAnyPeer, &x, sizeof x, 77, 0, &ctx));
  Completion w = job.waiter->wait(&ctx);
  TT_CHECK(w.status == Status::ok && w.source == kShmPeer && x == 1, "wildcard after death: %s",
           status_name(w.status));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s RANK(0..2) DIR\n", argv[0]);
    return 2;
  }
  alarm(170);  // never outlive the ctest timeout
  FileJob job;
  join_file_job(&job, std::atoi(argv[1]), kRanks, argv[2]);
  check_published_address(job);
  job.barrier("start");
  if (job.rank != kShmPeer) pingpong_sizes(job, kNetPeer, std::size_t{4} << 20);
  job.barrier("pingpong-net");
  if (job.rank != kNetPeer) pingpong_sizes(job, kShmPeer, std::size_t{1} << 20);
  job.barrier("pingpong-shm");
  ordered_late(job);
  job.barrier("ordered");
  wildcard_across_endpoints(job);
  job.barrier("wildcard");
  rendezvous_64m(job);
  job.barrier("rendezvous");
  peer_killed(job);  // rank 2 ends here
  job.barrier("end", {0, 1});
  job.ep.reset();
  std::printf("PASS rank %d\n", job.rank);
  return 0;
}
