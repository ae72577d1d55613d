// cancel() of posted receives (directed and wildcard; a cancel after the match is harmless) and
// probe(): no_message before anything is sent, then found with tag/length/source while the
// message stays in place for the receive that follows (tcp;ofi_rxm: FI_PEEK; shm: software
// matching, as shm 1.17 has no working FI_PEEK).
#include <vector>

#include "two_process.h"

using namespace ftmpi::transport;
using namespace ftmpi::transport::test;

namespace {

// Probes until found (the message may still be on its way); returns the completion.
Completion probe_until_found(Side& s, Waiter& w, PeerId src, std::uint64_t tag,
                             std::uint64_t ignore) {
  const double deadline = now_seconds() + 20;
  int ctx = 0;
  for (;;) {
    TT_OK(s.ep->probe(src, tag, ignore, &ctx));
    Completion c = w.wait(&ctx);
    if (c.status == Status::ok) return c;
    TT_CHECK(c.status == Status::no_message, "probe: %s", status_name(c.status));
    TT_CHECK(now_seconds() < deadline, "probe never found tag %llx",
             static_cast<unsigned long long>(tag));
  }
}

void cancels(Side& s) {
  if (s.rank != 0) return;
  Waiter w(*s.ep);
  std::uint64_t v = 0;
  int directed = 0, wildcard = 0;
  TT_OK(s.ep->recv(Side::kPeer, &v, 8, 0x401, 0, &directed));
  TT_OK(s.ep->recv(kAnyPeer, &v, 8, 0x402, 0, &wildcard));
  TT_OK(s.ep->cancel(&directed));
  TT_OK(s.ep->cancel(&wildcard));
  Completion c = w.wait(&directed);
  TT_CHECK(c.status == Status::canceled, "directed: %s", status_name(c.status));
  c = w.wait(&wildcard);
  TT_CHECK(c.status == Status::canceled, "wildcard: %s", status_name(c.status));
  TT_OK(s.ep->cancel(&directed));  // already done: nothing happens
  TT_CHECK(!w.try_wait(&directed, &c, 0.2), "second completion after cancel");
}

void probes(Side& s) {
  Waiter w(*s.ep);
  int ctx = 0;
  std::vector<unsigned char> big(70000);
  std::uint64_t v = 0;
  if (s.rank == 0) {
    TT_OK(s.ep->probe(Side::kPeer, 0x500, 0, &ctx));
    Completion c = w.wait(&ctx);
    TT_CHECK(c.status == Status::no_message, "probe before send: %s", status_name(c.status));
    TT_OK(s.ep->probe(kAnyPeer, 0x500, 0xff, &ctx));
    c = w.wait(&ctx);
    TT_CHECK(c.status == Status::no_message, "wildcard probe before send: %s",
             status_name(c.status));
  }
  s.barrier();
  if (s.rank == 1) {
    v = 99;
    int c1 = 0, c2 = 0, c3 = 0;
    fill_pattern(big.data(), big.size(), 3);
    TT_OK(s.ep->send(Side::kPeer, &v, 8, 0x501, &c1));
    TT_OK(s.ep->send(Side::kPeer, big.data(), big.size(), 0x502, &c2));
    TT_OK(s.ep->send(Side::kPeer, &v, 8, 0x503, &c3));
    for (int* p : {&c1, &c2, &c3}) TT_CHECK(w.wait(p).status == Status::ok, "send");
  } else {
    Completion c = probe_until_found(s, w, Side::kPeer, 0x501, 0);
    TT_CHECK(c.tag == 0x501 && c.message_len == 8 && c.source == Side::kPeer,
             "probe 0x501: tag %llx len %zu source %u", static_cast<unsigned long long>(c.tag),
             c.message_len, c.source);
    // Still there: a second probe finds it too.
    c = probe_until_found(s, w, Side::kPeer, 0x501, 0);
    c = probe_until_found(s, w, kAnyPeer, 0x500, 0xf);  // wildcard, masked: the oldest match
    TT_CHECK(c.tag == 0x501 && c.source == Side::kPeer, "masked probe: tag %llx source %u",
             static_cast<unsigned long long>(c.tag), c.source);
    c = probe_until_found(s, w, kAnyPeer, 0x502, 0);
    TT_CHECK(c.message_len == big.size(), "probe of large message: len %zu", c.message_len);
    TT_OK(s.ep->recv(Side::kPeer, &v, 8, 0x501, 0, &ctx));
    c = w.wait(&ctx);
    TT_CHECK(c.status == Status::ok && v == 99, "recv after probe: %s", status_name(c.status));
    std::fill(big.begin(), big.end(), 0);
    TT_OK(s.ep->recv(kAnyPeer, big.data(), big.size(), 0x502, 0, &ctx));
    c = w.wait(&ctx);
    TT_CHECK(c.status == Status::ok && check_pattern(big.data(), big.size(), 3) < 0,
             "large recv after probe: %s", status_name(c.status));
    // A receive that already matched: cancel is harmless and the completion says ok.
    (void)probe_until_found(s, w, Side::kPeer, 0x503, 0);
    v = 0;
    TT_OK(s.ep->recv(Side::kPeer, &v, 8, 0x503, 0, &ctx));
    TT_OK(s.ep->cancel(&ctx));
    c = w.wait(&ctx);
    TT_CHECK(c.status == Status::ok && v == 99, "cancel after match: %s", status_name(c.status));
  }
  s.barrier();
}

}  // namespace

int main(int argc, char** argv) {
  return run_two_process(argc, argv, [](Side& s) {
    cancels(s);
    s.barrier();
    probes(s);
    return 0;
  });
}
