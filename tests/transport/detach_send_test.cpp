// Endpoint::detach_send: once it returns, the transport no longer reads the caller's buffer,
// although the send has not gone yet (a failure purge hands such a send back to its user,
// who may free the buffer; a collective cut short returns and its stack goes).
//   1. A large message whose receiver has not posted yet: without CMA and bulk slots
//      (FTMPI_SHM_CMA=0 FTMPI_SHM_BULK_SLOTS=0) the sender streams it through the ring when
//      the receiver asks, from op->buf. Its buffer is unmapped right after detach_send: a
//      transport that still reads it dies of SIGSEGV.
//   2. A small message deferred behind a full ring (shm) or a provider that refuses more
//      (tcp): the buffer is overwritten after detach_send; the receiver must still get the
//      original bytes.
// The receiver does not poll before it is told to, so the ring fills and nothing is taken in.
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

constexpr std::uint64_t kLargeTag = 7;
constexpr std::uint64_t kSmallTag = 8;
constexpr std::size_t kLarge = std::size_t{1} << 20;
constexpr std::size_t kSmall = 64;
constexpr int kMaxSmall = 1 << 20;  // far more than any ring holds

void large_case(Side& s) {
  Waiter w(*s.ep);
  int ctx = 0;
  if (s.rank == 0) {
    void* big = mmap(nullptr, kLarge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TT_CHECK(big != MAP_FAILED, "mmap failed");
    fill_pattern(big, kLarge, 11);
    TT_OK(s.ep->send(Side::kPeer, big, kLarge, kLargeTag, &ctx));
    s.ep->detach_send(Side::kPeer, &ctx);
    TT_CHECK(munmap(big, kLarge) == 0, "munmap failed");
    s.send_word(1);
    Completion c = w.wait(&ctx);
    TT_CHECK(c.status == Status::ok, "large send: %s", status_name(c.status));
  } else {
    (void)s.recv_word();
    std::vector<unsigned char> buf(kLarge);
    TT_OK(s.ep->recv(Side::kPeer, buf.data(), kLarge, kLargeTag, 0, &ctx));
    Completion c = w.wait(&ctx);
    TT_CHECK(c.status == Status::ok && c.len == kLarge, "large recv: %s, %zu bytes",
             status_name(c.status), c.len);
    long long bad = check_pattern(buf.data(), kLarge, 11);
    TT_CHECK(bad < 0, "large message: wrong byte at %lld", bad);
  }
  s.barrier();
}

void small_case(Side& s) {
  std::vector<int> ctx(kMaxSmall);
  if (s.rank == 0) {
    unsigned char msg[kSmall];
    std::vector<bool> done(kMaxSmall, false);
    Completion got[16];
    int held = -1;  // the first send that did not finish at once
    for (int i = 0; i < kMaxSmall && held < 0; ++i) {
      fill_pattern(msg, kSmall, static_cast<unsigned>(i));
      TT_OK(s.ep->send(Side::kPeer, msg, kSmall, kSmallTag, &ctx[i]));
      for (std::size_t n; (n = s.ep->poll(got, 16)) > 0;) {
        for (std::size_t k = 0; k < n; ++k) {
          done[static_cast<std::size_t>(static_cast<int*>(got[k].context) - ctx.data())] = true;
        }
      }
      if (!done[i]) held = i;
    }
    TT_CHECK(held >= 0, "no send was held back in %d: nothing to detach", kMaxSmall);
    s.ep->detach_send(Side::kPeer, &ctx[held]);
    std::memset(msg, 0xEE, sizeof msg);  // the caller's buffer is the caller's again
    s.send_word(static_cast<std::uint64_t>(held) + 1);
    Waiter w(*s.ep);
    for (int i = 0; i <= held; ++i) {
      if (done[i]) continue;
      Completion c = w.wait(&ctx[i]);
      TT_CHECK(c.status == Status::ok, "small send %d: %s", i, status_name(c.status));
    }
  } else {
    const int count = static_cast<int>(s.recv_word());
    Waiter w(*s.ep);
    std::vector<unsigned char> buf(kSmall);
    for (int i = 0; i < count; ++i) {
      TT_OK(s.ep->recv(Side::kPeer, buf.data(), kSmall, kSmallTag, 0, &ctx[i]));
      Completion c = w.wait(&ctx[i]);
      TT_CHECK(c.status == Status::ok && c.len == kSmall, "small recv %d: %s", i,
               status_name(c.status));
      long long bad = check_pattern(buf.data(), kSmall, static_cast<unsigned>(i));
      TT_CHECK(bad < 0, "small message %d of %d: wrong byte at %lld%s", i, count, bad,
               i == count - 1 ? " (the detached one: sent from the caller's buffer)" : "");
    }
  }
  s.barrier();
}

}  // namespace

int main(int argc, char** argv) {
  return run_two_process(argc, argv, [](Side& s) {
    // libfabric: a large payload is the provider's from the send on (its rendezvous), out of
    // detach_send's reach; only the deferred small send applies there.
    if (s.provider == "shm") large_case(s);
    small_case(s);
    return 0;
  });
}
