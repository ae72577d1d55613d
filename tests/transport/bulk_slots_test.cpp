// Large shm messages staged in the sender's bulk slots (shm_ring.h): every size around the
// slot size arrives intact, expected or unexpected; more messages in flight than slots fall
// back to CMA without reordering; a truncated one frees its slot; and the same traffic passes
// with slots disabled or small (registered with FTMPI_SHM_BULK_SLOTS / FTMPI_SHM_BULK_KB set);
// a staged message's send completes without waiting for its receiver.
// On tcp it is plain rendezvous traffic and must pass the same way.
#include <cstdlib>
#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

constexpr std::size_t kSlot = 512u << 10;
constexpr int kBurst = 12;  // more than the 4 slots

void check_arrived(const Completion& c, const unsigned char* buf, std::size_t len, unsigned seed,
                   const char* what) {
  TT_CHECK(c.status == Status::ok, "%s %zu: %s", what, len, status_name(c.status));
  TT_CHECK(c.len == len && c.message_len == len, "%s: len %zu/%zu, want %zu", what, c.len,
           c.message_len, len);
  const long long bad = check_pattern(buf, len, seed);
  TT_CHECK(bad < 0, "%s %zu: content differs at byte %lld", what, len, bad);
}

}  // namespace

int main(int argc, char** argv) {
  return run_two_process(argc, argv, [](Side& s) {
    Waiter w(*s.ep);
    std::vector<unsigned char> out(kSlot + 4096), in(kSlot + 4096);
    int sctx = 0, rctx = 0;

    // 1. Sizes around the inject size and the slot size, receive posted first and not.
    const std::size_t sizes[] = {4097, 65536, 100003, kSlot - 1, kSlot, kSlot + 1};
    for (bool posted_first : {true, false}) {
      for (std::size_t len : sizes) {
        const unsigned seed = static_cast<unsigned>(len) + (posted_first ? 1u : 2u);
        if (s.rank == 0) {
          fill_pattern(out.data(), len, seed);
          s.barrier();
          TT_OK(s.ep->send(Side::kPeer, out.data(), len, 21, &sctx));
          TT_CHECK(w.wait(&sctx).status == Status::ok, "send %zu", len);
          s.barrier();
        } else {
          if (posted_first) TT_OK(s.ep->recv(Side::kPeer, in.data(), in.size(), 21, 0, &rctx));
          s.barrier();
          if (!posted_first) {
            // Let the announcement arrive unexpected before the receive exists.
            for (int i = 0; i < 1000; ++i) w.progress();
            TT_OK(s.ep->recv(Side::kPeer, in.data(), in.size(), 21, 0, &rctx));
          }
          check_arrived(w.wait(&rctx), in.data(), len, seed, posted_first ? "expected" : "unexpected");
          s.barrier();
        }
      }
    }

    // 2. A burst of large sends before any receive: the first ones take slots, the rest go by
    //    CMA; all arrive in send order (one tag), each with its own content.
    {
      constexpr std::size_t len = 100000;
      std::vector<std::vector<unsigned char>> bufs(kBurst, std::vector<unsigned char>(len));
      std::vector<int> ctx(kBurst);
      if (s.rank == 0) {
        for (int i = 0; i < kBurst; ++i) {
          fill_pattern(bufs[i].data(), len, 500u + static_cast<unsigned>(i));
          TT_OK(s.ep->send(Side::kPeer, bufs[i].data(), len, 22, &ctx[i]));
        }
        s.barrier();
        for (int i = 0; i < kBurst; ++i) TT_CHECK(w.wait(&ctx[i]).status == Status::ok, "burst send %d", i);
      } else {
        s.barrier();
        for (int i = 0; i < kBurst; ++i) {
          TT_OK(s.ep->recv(Side::kPeer, bufs[i].data(), len, 22, 0, &ctx[i]));
        }
        for (int i = 0; i < kBurst; ++i) {
          check_arrived(w.wait(&ctx[i]), bufs[i].data(), len, 500u + static_cast<unsigned>(i), "burst");
        }
      }
      s.barrier();
    }

    // 3. A truncated receive gives its slot back: more sends than slots follow and complete.
    {
      constexpr std::size_t len = 200000;
      if (s.rank == 0) {
        fill_pattern(out.data(), len, 7);
        TT_OK(s.ep->send(Side::kPeer, out.data(), len, 23, &sctx));
        TT_CHECK(w.wait(&sctx).status == Status::ok, "truncated send");
        for (int i = 0; i < kBurst; ++i) {
          fill_pattern(out.data(), len, 600u + static_cast<unsigned>(i));
          TT_OK(s.ep->send(Side::kPeer, out.data(), len, 24, &sctx));
          TT_CHECK(w.wait(&sctx).status == Status::ok, "send after truncation %d", i);
        }
      } else {
        TT_OK(s.ep->recv(Side::kPeer, in.data(), len / 2, 23, 0, &rctx));
        Completion c = w.wait(&rctx);
        TT_CHECK(c.status == Status::truncated, "want truncated, got %s", status_name(c.status));
        for (int i = 0; i < kBurst; ++i) {
          TT_OK(s.ep->recv(Side::kPeer, in.data(), in.size(), 24, 0, &rctx));
          check_arrived(w.wait(&rctx), in.data(), len, 600u + static_cast<unsigned>(i), "after truncation");
        }
      }
      s.barrier();
    }

    // 4. On shm with slots, a message staged in one is sent: its send completes before the
    //    receiver has even posted the receive (as an eager one would), and the buffer may be
    //    reused at once; the receiver still gets the original bytes. Senders in a collective
    //    used to wait for their receivers to run here. (From FTMPI_SHM_DIRECT_MIN, 16 KiB, a
    //    send may go by CMA instead: shm_large.cpp.)
    {
      constexpr std::size_t len = 8192;
      const bool staged = s.provider == "shm" && std::getenv("FTMPI_SHM_BULK_SLOTS") == nullptr;
      if (s.rank == 0) {
        fill_pattern(out.data(), len, 31);
        TT_OK(s.ep->send(Side::kPeer, out.data(), len, 25, &sctx));
        Completion c;
        const bool early = w.try_wait(&sctx, &c, 2.0);
        if (staged) TT_CHECK(early, "a staged %zu-byte send waited for its receiver", len);
        s.barrier();  // the receive is posted only now
        if (!early) c = w.wait(&sctx);
        TT_CHECK(c.status == Status::ok, "staged send: %s", status_name(c.status));
        fill_pattern(out.data(), len, 32);  // reused: the message keeps seed 31
      } else {
        s.barrier();
        TT_OK(s.ep->recv(Side::kPeer, in.data(), in.size(), 25, 0, &rctx));
        check_arrived(w.wait(&rctx), in.data(), len, 31, "staged");
      }
      s.barrier();
    }
    return 0;
  });
}
