// A large message copied by both ends (shm_ring.h, "split"): the receiver offers the sender
// the second part of the copy. It must arrive intact whether the sender takes the offer (it is
// polling), or never answers (it is busy elsewhere): then the receiver copies everything
// itself and completes without ever waiting for the sender. Also a two-way exchange of large
// messages (both ends busy reading), and sizes around the split point. On tcp the same traffic
// is libfabric's rendezvous, which needs the sender to progress: the idle-sender part is shm's.
#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

constexpr std::size_t kBig = std::size_t{4} << 20;

void check_arrived(const Completion& c, const std::vector<unsigned char>& buf, std::size_t len,
                   unsigned seed, const char* what) {
  TT_CHECK(c.status == Status::ok, "%s: %s", what, status_name(c.status));
  TT_CHECK(c.len == len, "%s: len %zu, want %zu", what, c.len, len);
  const long long bad = check_pattern(buf.data(), len, seed);
  TT_CHECK(bad < 0, "%s: content differs at byte %lld", what, bad);
}

}  // namespace

int main(int argc, char** argv) {
  return run_two_process(argc, argv, [](Side& s) {
    Waiter w(*s.ep);
    std::vector<unsigned char> out(kBig), in(kBig);
    int sctx = 0, rctx = 0;

    // 1. The sender polls while the receiver reads: the copy can be shared. Sizes just below,
    //    at and above the threshold (128 KiB), odd ones, and a big one.
    const std::size_t sizes[] = {(128u << 10) - 8, 128u << 10, (128u << 10) + 61, 1000003, kBig};
    for (std::size_t len : sizes) {
      const unsigned seed = static_cast<unsigned>(len) * 7 + 1;
      if (s.rank == 0) {
        fill_pattern(out.data(), len, seed);
        s.barrier();
        TT_OK(s.ep->send(Side::kPeer, out.data(), len, 11, &sctx));
        TT_CHECK(w.wait(&sctx).status == Status::ok, "send %zu", len);
      } else {
        TT_OK(s.ep->recv(Side::kPeer, in.data(), in.size(), 11, 0, &rctx));
        s.barrier();
        check_arrived(w.wait(&rctx), in, len, seed, "polling sender");
      }
      s.barrier();
    }

    // 2. The sender announces, then stops polling until the receiver says (out of band) that
    //    the message has arrived. A receiver that waited for the sender's part would never say
    //    so; the sender gives up after 20 s and the test fails.
    if (s.provider == "shm") {
      const unsigned seed = 99;
      if (s.rank == 0) {
        fill_pattern(out.data(), kBig, seed);
        TT_OK(s.ep->send(Side::kPeer, out.data(), kBig, 12, &sctx));
        TT_CHECK(s.word_ready(20000), "the receiver never got the message without our help");
        TT_CHECK(s.recv_word() == 0xd0e, "out of step");
        // Now answer the offer, late: it must be ignored, and our send completes.
        TT_CHECK(w.wait(&sctx).status == Status::ok, "late send completion");
      } else {
        TT_OK(s.ep->recv(Side::kPeer, in.data(), in.size(), 12, 0, &rctx));
        check_arrived(w.wait(&rctx, 20.0), in, kBig, seed, "idle sender");
        s.send_word(0xd0e);
      }
      s.barrier();
    }

    // 3. Both send a large message to each other at once, several times (each end reads while
    //    its own message waits to be read: offers are declined or taken back).
    for (int round = 0; round < 5; ++round) {
      const unsigned mine = 1000u + static_cast<unsigned>(round) * 2 + static_cast<unsigned>(s.rank);
      const unsigned theirs = 1000u + static_cast<unsigned>(round) * 2 + (s.rank == 0 ? 1u : 0u);
      fill_pattern(out.data(), kBig, mine);
      TT_OK(s.ep->recv(Side::kPeer, in.data(), in.size(), 13, 0, &rctx));
      s.barrier();
      TT_OK(s.ep->send(Side::kPeer, out.data(), kBig, 13, &sctx));
      check_arrived(w.wait(&rctx), in, kBig, theirs, "exchange");
      TT_CHECK(w.wait(&sctx).status == Status::ok, "exchange send");
      s.barrier();
    }
    return 0;
  });
}
