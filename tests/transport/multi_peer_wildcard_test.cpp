// Wildcard receives meeting messages that already arrived (unexpected) from several peers:
// 4 processes, rank 0 receives, ranks 1..3 send. Regression test for libfabric 1.17 shm, whose
// unexpected-queue matching used a stale ignore mask (left in a recycled receive slot) instead
// of the receive's own: a receive with an ignore mask missed messages that had already arrived
// (hang), and an exact receive could take a message with another tag (mismatch).
//
// Phases, each with the messages sent and delivered into rank 0's endpoint before any receive
// for them is posted:
//   A  directed receive, any tag (ignore mask), from each sender in turn
//   B  kAnyPeer + ignore mask, 3 receives for 3 senders' messages
//   C  stale masks: after wildcard receives were posted first and completed (so recycled slots
//      carry their mask), rank 1 sends tags 3 and 4 interleaved; exact receives for tag 3 must
//      get the tag-3 messages in order, then the tag-4 ones
//   D  same as B with 64 KiB messages (the zero-copy path) and mixed sizes
// The addresses of all processes are inserted in rank order, including its own (as the MPI
// engine does), so PeerId == rank.
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

constexpr int kProcs = 4;
constexpr double kWait = 10.0;  // seconds any single completion may take
constexpr std::uint64_t kAnyTag = 0xffff;  // ignore mask of the low 16 bits: "any tag"

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

// Star-shaped out-of-band channel: rank 0 holds one socket per other rank.
struct Job {
  int rank = 0;
  std::string provider;
  std::unique_ptr<Endpoint> ep;
  std::unique_ptr<Waiter> w;  // the one completion stash of this process
  std::vector<int> socks;  // rank 0: index r = socket to rank r; others: [0] = to rank 0

  // A barrier that keeps driving progress, so a peer blocked in it still takes messages
  // into its endpoint (and shm can complete the sender's first-contact name exchange).
  void barrier() {
    auto wait_readable = [&](int fd) {
      for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 0) == 1) return;
        w->progress();
      }
    };
    std::uint64_t token = 0xba77;
    if (rank == 0) {
      for (int r = 1; r < kProcs; ++r) {
        wait_readable(socks[r]);
        read_all(socks[r], &token, sizeof token);
      }
      for (int r = 1; r < kProcs; ++r) write_all(socks[r], &token, sizeof token);
    } else {
      write_all(socks[0], &token, sizeof token);
      wait_readable(socks[0]);
      read_all(socks[0], &token, sizeof token);
    }
  }
  // Polls for a while without expecting anything: lets arrivals land in the endpoint.
  void soak(double seconds) {
    const double end = now_seconds() + seconds;
    while (now_seconds() < end) w->progress();
  }
};

void exchange_addresses(Job& j) {
  std::vector<std::uint8_t> mine = j.ep->address();
  std::vector<std::vector<std::uint8_t>> all(kProcs);
  auto send_blob = [](int fd, const std::vector<std::uint8_t>& b) {
    std::uint64_t n = b.size();
    write_all(fd, &n, sizeof n);
    write_all(fd, b.data(), b.size());
  };
  auto recv_blob = [](int fd) {
    std::uint64_t n = 0;
    read_all(fd, &n, sizeof n);
    std::vector<std::uint8_t> b(n);
    read_all(fd, b.data(), n);
    return b;
  };
  if (j.rank == 0) {
    all[0] = mine;
    for (int r = 1; r < kProcs; ++r) all[r] = recv_blob(j.socks[r]);
    for (int r = 1; r < kProcs; ++r) {
      for (const auto& a : all) send_blob(j.socks[r], a);
    }
  } else {
    send_blob(j.socks[0], mine);
    for (auto& a : all) a = recv_blob(j.socks[0]);
  }
  TT_OK(j.ep->insert_peers(all));
}

Completion must_complete(Waiter& w, Job& j, void* ctx, const char* what) {
  Completion c;
  TT_CHECK(w.try_wait(ctx, &c, kWait),
           "%s: no completion within %.0f s: a message that already arrived was not matched "
           "(last_error: %s)",
           what, kWait, j.ep->last_error().c_str());
  return c;
}

// A: each sender sends one tagged value; rank 0 then receives from each with any tag.
void phase_a(Job& j) {
  Waiter& w = *j.w;
  if (j.rank != 0) {
    std::uint64_t v = 1000 + j.rank;
    int ctx = 0;
    TT_OK(j.ep->send(0, &v, sizeof v, 0x100 + j.rank, &ctx));
    TT_CHECK(must_complete(w, j, &ctx, "A send").status == Status::ok, "A send");
    j.barrier();
    j.barrier();
    return;
  }
  j.barrier();
  j.soak(0.05);
  for (int r = 1; r < kProcs; ++r) {
    std::uint64_t v = 0;
    int ctx = 0;
    TT_OK(j.ep->recv(static_cast<PeerId>(r), &v, sizeof v, 0, kAnyTag, &ctx));
    Completion c = must_complete(w, j, &ctx, "A: directed receive with any tag");
    TT_CHECK(c.status == Status::ok && c.tag == 0x100u + r && v == 1000u + r && c.len == 8,
             "A from %d: %s tag %llx value %llu", r, status_name(c.status),
             static_cast<unsigned long long>(c.tag), static_cast<unsigned long long>(v));
  }
  j.barrier();
}

// B (len 8) and D (larger, mixed): messages from all senders first, then kAnyPeer receives.
void phase_any_source(Job& j, const char* name, std::size_t len_of_rank_unit) {
  Waiter& w = *j.w;
  auto len_of = [&](int r) { return len_of_rank_unit * static_cast<std::size_t>(r); };
  const std::uint64_t tag_base = 0x2000;
  if (j.rank != 0) {
    std::vector<unsigned char> msg(len_of(j.rank));
    fill_pattern(msg.data(), msg.size(), static_cast<unsigned>(j.rank));
    int ctx = 0;
    TT_OK(j.ep->send(0, msg.data(), msg.size(), tag_base + j.rank, &ctx));
    j.barrier();  // a large send completes only once rank 0 receives it
    TT_CHECK(must_complete(w, j, &ctx, name).status == Status::ok, "%s send", name);
    j.barrier();
    return;
  }
  j.barrier();
  j.soak(0.05);
  std::vector<std::vector<unsigned char>> bufs(kProcs, std::vector<unsigned char>(len_of(kProcs)));
  int ctx[kProcs] = {};
  for (int i = 1; i < kProcs; ++i) {
    TT_OK(j.ep->recv(kAnyPeer, bufs[i].data(), bufs[i].size(), tag_base, kAnyTag, &ctx[i]));
  }
  bool seen[kProcs] = {};
  for (int i = 1; i < kProcs; ++i) {
    Completion c = must_complete(w, j, &ctx[i], name);
    TT_CHECK(c.status == Status::ok, "%s: %s", name, status_name(c.status));
    const int r = static_cast<int>(c.tag - tag_base);
    TT_CHECK(r >= 1 && r < kProcs && !seen[r], "%s: tag %llx", name,
             static_cast<unsigned long long>(c.tag));
    seen[r] = true;
    TT_CHECK(c.source == static_cast<PeerId>(r), "%s: tag says rank %d, source says %u", name,
             r, c.source);
    TT_CHECK(c.len == len_of(r), "%s: len %zu from rank %d", name, c.len, r);
    TT_CHECK(check_pattern(bufs[i].data(), c.len, static_cast<unsigned>(r)) < 0,
             "%s: wrong content from rank %d", name, r);
  }
  j.barrier();
}

// C: recycled slots carrying wildcard masks must not make an exact receive match another tag.
void phase_c(Job& j) {
  Waiter& w = *j.w;
  constexpr int kMsgs = 200;
  if (j.rank == 0) {
    // Wildcard receives posted before their messages arrive, completed: their slots (with
    // their masks) go back to the provider's free list.
    std::uint64_t v[kProcs] = {};
    int ctx[kProcs] = {};
    for (int r = 1; r < kProcs; ++r) {
      TT_OK(j.ep->recv(kAnyPeer, &v[r], 8, 0x3000, kAnyTag, &ctx[r]));
    }
    j.barrier();
    for (int r = 1; r < kProcs; ++r) {
      TT_CHECK(must_complete(w, j, &ctx[r], "C warm-up").status == Status::ok, "C warm-up");
    }
    j.barrier();  // now rank 1 floods
    j.barrier();
    j.soak(0.05);
    int bad = 0;
    for (int i = 0; i < kMsgs; ++i) {
      std::uint64_t x = ~0ull;
      int c3 = 0;
      TT_OK(j.ep->recv(1, &x, 8, 3, 0, &c3));
      Completion c = must_complete(w, j, &c3, "C: exact receive for tag 3");
      if (c.status != Status::ok || c.tag != 3 || x != static_cast<std::uint64_t>(i)) {
        if (bad < 5) {
          std::fprintf(stderr, "C: receive %d for tag 3: %s tag %llu value %llu\n", i,
                       status_name(c.status), static_cast<unsigned long long>(c.tag),
                       static_cast<unsigned long long>(x));
        }
        ++bad;
      }
    }
    for (int i = 0; i < kMsgs; i += 10) {
      std::uint64_t x = ~0ull;
      int c4 = 0;
      TT_OK(j.ep->recv(1, &x, 8, 4, 0, &c4));
      Completion c = must_complete(w, j, &c4, "C: exact receive for tag 4");
      if (c.status != Status::ok || c.tag != 4 || x != static_cast<std::uint64_t>(i)) ++bad;
    }
    TT_CHECK(bad == 0, "C: %d receives got the wrong message", bad);
    j.barrier();
    return;
  }
  std::uint64_t v = 7;
  int ctx = 0;
  TT_OK(j.ep->send(0, &v, 8, 0x3000 + j.rank, &ctx));
  j.barrier();
  TT_CHECK(must_complete(w, j, &ctx, "C warm-up send").status == Status::ok, "C warm-up send");
  j.barrier();
  if (j.rank == 1) {
    std::vector<std::uint64_t> vals(kMsgs);
    std::vector<int> ctxs(kMsgs + kMsgs / 10);
    int k = 0;
    for (int i = 0; i < kMsgs; ++i) {
      vals[i] = static_cast<std::uint64_t>(i);
      TT_OK(j.ep->send(0, &vals[i], 8, 3, &ctxs[k++]));
      if (i % 10 == 0) TT_OK(j.ep->send(0, &vals[i], 8, 4, &ctxs[k++]));
    }
    for (int& c : ctxs) TT_CHECK(must_complete(w, j, &c, "C send").status == Status::ok, "C");
  }
  j.barrier();
  j.barrier();
}

int run(Job& j) {
  std::string err;
  j.ep = Endpoint::open(j.provider, &err);
  TT_CHECK(j.ep != nullptr, "open(%s): %s", j.provider.c_str(), err.c_str());
  j.w = std::make_unique<Waiter>(*j.ep);
  exchange_addresses(j);
  j.barrier();
  phase_a(j);
  phase_any_source(j, "B", 8);
  phase_c(j);
  phase_any_source(j, "D", 64 * 1024);
  phase_any_source(j, "D'", 1500);  // 1.5, 3 and 4.5 KB: eager and just above it
  j.barrier();
  j.w.reset();
  j.ep.reset();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Job j;
  j.provider = argc > 1 ? argv[1] : "";
  j.socks.assign(kProcs, -1);
  std::vector<pid_t> kids;
  std::fflush(nullptr);
  for (int r = 1; r < kProcs; ++r) {
    int sv[2];
    TT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
    pid_t pid = fork();
    TT_CHECK(pid >= 0, "fork");
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      alarm(55);
      for (int& s : j.socks) {
        if (s >= 0) close(s);
      }
      close(sv[0]);
      j.socks.assign(1, sv[1]);
      j.rank = r;
      int rc = run(j);
      std::fflush(nullptr);
      _exit(rc);
    }
    close(sv[1]);
    j.socks[r] = sv[0];
    kids.push_back(pid);
  }
  alarm(55);
  int rc = run(j);
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "child %d failed (status 0x%x)\n", static_cast<int>(pid), status);
      rc = 1;
    }
  }
  if (rc == 0) std::printf("PASS %s [%s]\n", argv[0], j.provider.c_str());
  return rc;
}
