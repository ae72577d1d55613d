// Ping-pong of every protocol size class (empty, inline, inject limit, eager, the provider's
// zero-copy/rendezvous path up to 256 MiB): content and reported lengths must arrive intact.
#include <unistd.h>

#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

int main(int argc, char** argv) {
  return run_two_process(argc, argv, [](Side& s) {
    // Around shm's edges too: the largest inline message (8 KiB less a 16-byte header) and
    // the single copy's FTMPI_SHM_DIRECT_MIN (16 KiB).
    const std::size_t sizes[] = {0,     1,     8,     4095,    4096,     8175,     8176,
                                 8177,  8192,  16383, 16384,   65536,    1 << 20,  16 << 20,
                                 256u << 20};
    constexpr std::size_t kMax = 256u << 20;
    Waiter w(*s.ep);
    std::vector<unsigned char> sbuf(kMax);
    std::vector<unsigned char> rbuf(kMax + 16);
    int token_send = 0, token_recv = 0;
    for (std::size_t len : sizes) {
      const std::uint64_t tag = 0x5000 + len;
      const unsigned seed_out = static_cast<unsigned>(len) + (s.rank == 0 ? 1 : 2);
      const unsigned seed_in = static_cast<unsigned>(len) + (s.rank == 0 ? 2 : 1);
      fill_pattern(sbuf.data(), len, seed_out);
      // Guard bytes beyond the message catch overruns.
      std::fill(rbuf.begin(), rbuf.begin() + static_cast<long>(len) + 16, 0xEE);
      // Post the receive first on rank 1 only, so rank 0's ping meets an expected receive and
      // rank 1's pong may arrive unexpected: both paths get exercised per size.
      if (s.rank == 1) TT_OK(s.ep->recv(Side::kPeer, rbuf.data(), len + 16, tag, 0, &token_recv));
      if (s.rank == 0) {
        TT_OK(s.ep->send(Side::kPeer, sbuf.data(), len, tag, &token_send));
        (void)w.wait(&token_send);
        TT_OK(s.ep->recv(Side::kPeer, rbuf.data(), len + 16, tag, 0, &token_recv));
      }
      Completion rc = w.wait(&token_recv);
      TT_CHECK(rc.status == Status::ok, "size %zu: %s %s", len, status_name(rc.status),
               s.ep->last_error().c_str());
      TT_CHECK(rc.len == len && rc.message_len == len, "size %zu: got len %zu/%zu", len, rc.len,
               rc.message_len);
      TT_CHECK(rc.tag == tag, "size %zu: tag %llx", len, static_cast<unsigned long long>(rc.tag));
      TT_CHECK(rc.source == Side::kPeer, "size %zu: source %u", len, rc.source);
      long long bad = check_pattern(rbuf.data(), len, seed_in);
      TT_CHECK(bad < 0, "size %zu: content differs at byte %lld", len, bad);
      for (std::size_t i = len; i < len + 16; ++i) {
        TT_CHECK(rbuf[i] == 0xEE, "size %zu: wrote past the message at %zu", len, i);
      }
      if (s.rank == 1) {
        TT_OK(s.ep->send(Side::kPeer, sbuf.data(), len, tag, &token_send));
        Completion sc = w.wait(&token_send);
        TT_CHECK(sc.status == Status::ok, "send %zu: %s", len, status_name(sc.status));
      }
    }
    return 0;
  });
}
