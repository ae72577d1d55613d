// The matcher alone (no endpoint): MPI's matching order with unexpected messages kept per
// source, and the cost that keeping them per source is for — a receive naming its source must
// not walk the messages other senders queued ahead of it (a reduce root whose leaf ran ahead
// scanned the leaf's whole backlog for every message of its other child: 34 µs per 8 B reduce
// at 4 ranks).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "completion_backlog.h"
#include "matcher.h"
#include "op_record.h"

using namespace ftmpi::transport;

namespace {

constexpr std::uint64_t kExact = 0;  // ignore mask: every tag bit must agree

struct Bench {
  OpPool pool;
  CompletionBacklog backlog;
  Matcher matcher{pool, backlog};
  std::uint32_t seq = 0;

  // A small message of one int from `source`, which lands unexpected (nothing posted).
  void arrive(PeerId source, std::uint64_t tag, int value) {
    Arrival a;
    a.source = source;
    a.tag = tag;
    a.seq = seq++;
    a.len = sizeof value;
    a.data = reinterpret_cast<const unsigned char*>(&value);
    Completion c;
    REQUIRE_FALSE(matcher.arrive(a, &c));
  }
  // The same, when a posted receive takes it (the completion it finishes with is dropped).
  void arrive_posted(PeerId source, std::uint64_t tag, int value) {
    Arrival a;
    a.source = source;
    a.tag = tag;
    a.seq = seq++;
    a.len = sizeof value;
    a.data = reinterpret_cast<const unsigned char*>(&value);
    Completion c;
    REQUIRE(matcher.arrive(a, &c));
  }
  // A receive of one int; the completion it finished with at once (status no_message if it
  // stays posted).
  Completion recv(PeerId src, std::uint64_t tag, std::uint64_t ignore, int* value) {
    matcher.post_recv(src, value, sizeof *value, tag, ignore, value);
    return take();
  }
  Completion probe(PeerId src, std::uint64_t tag, std::uint64_t ignore) {
    matcher.probe(src, tag, ignore, nullptr);
    return take();
  }
  Completion take() {
    Completion c;
    c.status = Status::no_message;
    (void)backlog.drain(&c, 1);
    return c;
  }
};

}  // namespace

TEST_CASE("Matcher: a directed receive does not walk other sources' unexpected messages") {
  Bench b;
  constexpr int kAhead = 20000;  // a leaf's backlog at the root
  for (int i = 0; i < kAhead; ++i) b.arrive(1, 5, i);
  b.arrive(2, 5, -2);
  const std::uint64_t before = b.matcher.examined();
  int v = 0;
  Completion c = b.recv(2, 5, kExact, &v);
  REQUIRE(c.status == Status::ok);
  REQUIRE(c.source == 2);
  REQUIRE(v == -2);
  REQUIRE(b.matcher.examined() - before == 1);
  // The backlog of source 1 is untouched and still in its order.
  for (int i = 0; i < 3; ++i) {
    REQUIRE(b.recv(1, 5, kExact, &v).status == Status::ok);
    REQUIRE(v == i);
  }
  REQUIRE(b.matcher.unexpected_count() == kAhead - 3);
  REQUIRE(b.matcher.examined() - before == 4);
}

TEST_CASE("Matcher: a wildcard receive takes the oldest accepted message of any source") {
  Bench b;
  b.arrive(3, 7, 30);
  b.arrive(1, 8, 10);
  b.arrive(1, 7, 11);
  b.arrive(2, 7, 20);
  b.arrive(kAnyPeer, 7, 99);  // a sender the endpoint could not name yet
  int v = 0;
  Completion c = b.recv(kAnyPeer, 7, kExact, &v);
  REQUIRE((c.source == 3 && v == 30));
  c = b.recv(kAnyPeer, 7, kExact, &v);  // 1's tag 8 is skipped, its tag 7 is next in time
  REQUIRE((c.source == 1 && v == 11));
  c = b.recv(kAnyPeer, 0, ~std::uint64_t{0}, &v);  // any tag: 1's tag 8 arrived before 2's
  REQUIRE((c.source == 1 && v == 10));
  c = b.recv(kAnyPeer, 7, kExact, &v);
  REQUIRE((c.source == 2 && v == 20));
  // An unnamed sender's message matches only a wildcard.
  REQUIRE(b.recv(0, 7, kExact, &v).status == Status::no_message);  // stays posted
  c = b.recv(kAnyPeer, 7, kExact, &v);
  REQUIRE((c.source == kAnyPeer && v == 99));
  REQUIRE(b.matcher.unexpected_count() == 0);
}

TEST_CASE("Matcher: within one source, tags are matched in arrival order") {
  Bench b;
  b.arrive(4, 1, 100);
  b.arrive(4, 2, 200);
  b.arrive(4, 1, 101);
  int v = 0;
  REQUIRE(b.recv(4, 2, kExact, &v).status == Status::ok);
  REQUIRE(v == 200);
  REQUIRE(b.recv(4, 1, kExact, &v).status == Status::ok);
  REQUIRE(v == 100);
  REQUIRE(b.recv(4, 1, kExact, &v).status == Status::ok);
  REQUIRE(v == 101);
  REQUIRE(b.recv(4, 1, kExact, &v).status == Status::no_message);
}

TEST_CASE("Matcher: probe and withdraw see the per-source queues") {
  Bench b;
  b.arrive(2, 9, 1);  // seq 0
  b.arrive(1, 9, 2);  // seq 1
  b.arrive(1, 9, 3);  // seq 2
  Completion c = b.probe(kAnyPeer, 9, kExact);
  REQUIRE((c.status == Status::ok && c.source == 2 && c.len == sizeof(int)));
  c = b.probe(1, 9, kExact);
  REQUIRE((c.status == Status::ok && c.source == 1));
  REQUIRE(b.probe(5, 9, kExact).status == Status::no_message);  // a source never heard from
  REQUIRE_FALSE(b.matcher.withdraw(2, 1));  // seq 1 is source 1's
  REQUIRE(b.matcher.withdraw(1, 1));
  int v = 0;
  REQUIRE(b.recv(1, 9, kExact, &v).status == Status::ok);
  REQUIRE(v == 3);
  REQUIRE(b.matcher.unexpected_count() == 1);
  b.matcher.discard_unexpected();
  REQUIRE(b.matcher.unexpected_count() == 0);
  REQUIRE(b.probe(kAnyPeer, 9, kExact).status == Status::no_message);
  b.arrive(2, 9, 4);  // dropped from now on
  REQUIRE(b.matcher.unexpected_count() == 0);
  REQUIRE(b.recv(kAnyPeer, 9, kExact, &v).status == Status::no_message);
}

TEST_CASE("Matcher: one source's order holds through bursts and tag-selective receives") {
  Bench b;
  int v = 0;
  int next_in = 0, next_out = 0;
  // Keep a few messages queued while many pass (the spare nodes get reused), then a burst
  // whose tag-2 messages are taken out of the middle first.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 40; ++i) b.arrive(6, 1, next_in++);
    for (int i = 0; i < 37; ++i) {
      REQUIRE(b.recv(6, 1, kExact, &v).status == Status::ok);
      REQUIRE(v == next_out++);
    }
  }
  std::vector<int> tag1, tag2;
  while (next_out < next_in) tag1.push_back(next_out++);  // the 9 left queued above
  for (int i = 0; i < 5000; ++i) {
    const bool two = i % 7 == 3;
    (two ? tag2 : tag1).push_back(next_in);
    b.arrive(6, two ? 2 : 1, next_in++);
  }
  // The tag-2 ones go first, from the middle, in their order.
  for (int want : tag2) {
    REQUIRE(b.recv(6, 2, kExact, &v).status == Status::ok);
    REQUIRE(v == want);
  }
  REQUIRE(b.recv(6, 2, kExact, &v).status == Status::no_message);  // stays posted
  for (int want : tag1) {
    REQUIRE(b.recv(6, 1, kExact, &v).status == Status::ok);
    REQUIRE(v == want);
  }
  REQUIRE(b.matcher.unexpected_count() == 0);
}

namespace {

// An endpoint's announced (large) messages, as the matcher sees them: delivery finishes at once.
struct FakeLargeChannel final : LargeMessageChannel {
  int delivered = 0;
  bool deliver_large(OpRecord* op, const Arrival& a, Completion* c) override {
    ++delivered;
    *c = Completion{};
    c->context = op->user_context;
    c->tag = a.tag;
    c->source = a.source;
    c->len = c->message_len = a.len;
    return true;
  }
  void drop_large(const Arrival&) override {}
};

}  // namespace

// Endpoint::recv_now's matching: a receive that a small unexpected message completes at once,
// with no record posted; anything else is left to post_recv, which then finds the same message.
TEST_CASE("Matcher: take completes a receive from an unexpected message, or does nothing") {
  Bench b;
  int v = -1;
  Completion c;
  REQUIRE_FALSE(b.matcher.take(kAnyPeer, &v, sizeof v, 7, kExact, &c));  // nothing here
  // Nothing was posted: the next message lands unexpected instead of completing a receive.
  b.arrive(2, 7, 20);
  REQUIRE(b.matcher.unexpected_count() == 1);
  b.arrive(1, 7, 10);
  b.arrive(2, 7, 21);
  // Directed: that source's oldest; wildcard: the oldest of any source (2's 21 is younger
  // than 1's 10).
  REQUIRE(b.matcher.take(2, &v, sizeof v, 7, kExact, &c));
  REQUIRE((c.status == Status::ok && c.source == 2 && c.tag == 7 && c.len == sizeof v && v == 20));
  REQUIRE(c.context == nullptr);
  REQUIRE(b.matcher.take(kAnyPeer, &v, sizeof v, 7, kExact, &c));
  REQUIRE((c.source == 1 && v == 10));
  REQUIRE(b.matcher.take(kAnyPeer, &v, sizeof v, 0, ~std::uint64_t{0}, &c));
  REQUIRE((c.source == 2 && v == 21));
  REQUIRE(b.matcher.unexpected_count() == 0);
  REQUIRE(b.take().status == Status::no_message);  // no completion went to the backlog

  SECTION("a message longer than the buffer is left for post_recv to truncate") {
    b.arrive(3, 7, 30);
    char small[2] = {'x', 'y'};
    REQUIRE_FALSE(b.matcher.take(3, small, sizeof small, 7, kExact, &c));
    REQUIRE((small[0] == 'x' && small[1] == 'y'));
    REQUIRE(b.matcher.unexpected_count() == 1);
    b.matcher.post_recv(3, small, sizeof small, 7, kExact, small);
    c = b.take();
    REQUIRE((c.status == Status::truncated && c.message_len == sizeof(int)));
  }
  SECTION("an announced message is left for post_recv, and so are the ones behind it") {
    FakeLargeChannel channel;
    Arrival large;
    large.source = 4;
    large.tag = 7;
    large.len = 1 << 20;
    large.channel = &channel;
    REQUIRE_FALSE(b.matcher.arrive(large, &c));
    b.arrive(4, 7, 41);
    REQUIRE_FALSE(b.matcher.take(4, &v, sizeof v, 7, kExact, &c));  // the large one is first
    std::vector<char> big(1 << 20);
    b.matcher.post_recv(4, big.data(), big.size(), 7, kExact, &big);
    c = b.take();
    REQUIRE((c.status == Status::ok && c.len == big.size() && channel.delivered == 1));
    REQUIRE(b.matcher.take(4, &v, sizeof v, 7, kExact, &c));  // then the small one
    REQUIRE(v == 41);
  }
  SECTION("a zero-byte message needs no buffer") {
    Arrival empty;
    empty.source = 5;
    empty.tag = 9;
    REQUIRE_FALSE(b.matcher.arrive(empty, &c));
    REQUIRE(b.matcher.take(5, nullptr, 0, 9, kExact, &c));
    REQUIRE((c.status == Status::ok && c.len == 0 && c.source == 5));
  }
  SECTION("a posted receive still takes an arrival before a later take can") {
    int posted = 0;
    b.matcher.post_recv(6, &posted, sizeof posted, 7, kExact, &posted);
    b.arrive_posted(6, 7, 60);
    REQUIRE(posted == 60);
    REQUIRE_FALSE(b.matcher.take(6, &v, sizeof v, 7, kExact, &c));
  }
}

// Small payloads are copied without a libc call (copy_payload: overlapping 8- and 4-byte
// copies, bytes below 4): every length lands whole, and nothing past it is written.
TEST_CASE("Matcher: small payloads of every length are copied exactly, taken or posted") {
  Bench b;
  for (std::size_t len = 0; len <= 40; ++len) {
    std::vector<unsigned char> msg(len);
    for (std::size_t i = 0; i < len; ++i) msg[i] = static_cast<unsigned char>(0x40 + len + i);
    Arrival a;
    a.source = 1;
    a.tag = 3;
    a.len = len;
    a.data = msg.data();
    for (bool posted : {false, true}) {
      std::vector<unsigned char> buf(len + 8, 0xee);  // 8 guard bytes after the message
      Completion c;
      if (posted) {
        b.matcher.post_recv(1, buf.data(), len, 3, kExact, buf.data());
        REQUIRE(b.matcher.arrive(a, &c));
      } else {
        REQUIRE_FALSE(b.matcher.arrive(a, &c));
        REQUIRE(b.matcher.take(1, buf.data(), len, 3, kExact, &c));
      }
      REQUIRE((c.status == Status::ok && c.len == len));
      // msg.data() of an empty message may be null: memcmp's arguments must not be (UBSan).
      REQUIRE((len == 0 || std::memcmp(buf.data(), msg.data(), len) == 0));
      for (std::size_t i = len; i < buf.size(); ++i) REQUIRE(buf[i] == 0xee);
    }
  }
  REQUIRE(b.matcher.unexpected_count() == 0);
}

TEST_CASE("Matcher: a claimed message is no other receive's or probe's, and is received once") {
  Bench b;
  b.arrive(1, 5, 10);
  b.arrive(1, 5, 11);
  b.arrive(2, 5, 20);
  Completion c;
  std::uint64_t first = 0, second = 0;
  // A wildcard claim takes the oldest message of any source; it leaves matching at once.
  REQUIRE(b.matcher.claim(kAnyPeer, 5, kExact, &c, &first));
  REQUIRE(c.status == Status::ok);
  REQUIRE(c.source == 1);
  REQUIRE(c.message_len == sizeof(int));
  REQUIRE(b.matcher.unexpected_count() == 2);
  REQUIRE(b.matcher.claimed_count() == 1);
  // A probe and a receive of the same source and tag now see the second message.
  c = b.probe(1, 5, kExact);
  REQUIRE(c.status == Status::ok);
  int v = 0;
  c = b.recv(1, 5, kExact, &v);
  REQUIRE(c.status == Status::ok);
  REQUIRE(v == 11);
  REQUIRE(b.probe(1, 5, kExact).status == Status::no_message);
  REQUIRE(b.matcher.claim(2, 5, kExact, &c, &second));
  REQUIRE(second != first);
  REQUIRE_FALSE(b.matcher.claim(kAnyPeer, 5, kExact, &c, &second));  // nothing left
  // Receiving the claim delivers exactly it (and into a buffer too short: truncated).
  int got = 0;
  REQUIRE(b.matcher.receive_claimed(first, &got, sizeof got, &got));
  c = b.take();
  REQUIRE(c.status == Status::ok);
  REQUIRE(c.context == &got);
  REQUIRE(got == 10);
  REQUIRE_FALSE(b.matcher.receive_claimed(first, &got, sizeof got, &got));  // received once
  char shorter = 0;
  REQUIRE(b.matcher.receive_claimed(second, &shorter, 1, &shorter));
  c = b.take();
  REQUIRE(c.status == Status::truncated);
  REQUIRE(c.message_len == sizeof(int));
  REQUIRE(b.matcher.claimed_count() == 0);
}

namespace {

// A channel that moves payloads later when it may (the shm endpoint's accept_large), and
// counts which entry the matcher used.
struct DeferringChannel final : LargeMessageChannel {
  int delivered = 0, accepted = 0;
  std::vector<OpRecord*> kept;
  bool deliver_large(OpRecord* op, const Arrival&, Completion* c) override {
    ++delivered;
    *c = Completion{};
    c->context = op->user_context;
    kept.push_back(op);  // the test's pool outlives it; records are not reused here
    return true;
  }
  void drop_large(const Arrival&) override {}
  bool accept_large(OpRecord* op, const Arrival&, Completion*) override {
    ++accepted;
    kept.push_back(op);
    return false;
  }
};

}  // namespace

// A receive posted after its large message was announced must not move the payload while it
// is posted (MPI_Irecv): the channel's accept_large gets it, and nothing completes yet. A
// message that arrives for a posted receive (inside the endpoint's poll) is delivered.
TEST_CASE("Matcher: a receive posted after the announcement leaves the payload to the channel") {
  Bench b;
  DeferringChannel channel;
  Arrival large;
  large.source = 3;
  large.tag = 7;
  large.len = 1 << 20;
  large.channel = &channel;
  Completion c;
  REQUIRE_FALSE(b.matcher.arrive(large, &c));  // unexpected
  std::vector<char> big(1 << 20);
  b.matcher.post_recv(3, big.data(), big.size(), 7, kExact, &big);
  REQUIRE((channel.accepted == 1 && channel.delivered == 0));
  REQUIRE(b.take().status == Status::no_message);  // nothing completed inside post_recv
  REQUIRE(b.matcher.unexpected_count() == 0);
  // Posted first: the arrival delivers it (this is the endpoint's poll already).
  b.matcher.post_recv(3, big.data(), big.size(), 7, kExact, &c);
  REQUIRE(b.matcher.arrive(large, &c));
  REQUIRE((channel.accepted == 1 && channel.delivered == 1));
  // A claimed (MPI_Mprobe) announced message received later: accept_large too.
  REQUIRE_FALSE(b.matcher.arrive(large, &c));
  std::uint64_t id = 0;
  REQUIRE(b.matcher.claim(3, 7, kExact, &c, &id));
  REQUIRE(b.matcher.receive_claimed(id, big.data(), big.size(), &id));
  REQUIRE((channel.accepted == 2 && channel.delivered == 1));
  for (OpRecord* op : channel.kept) b.pool.put(op);
}

TEST_CASE("Matcher: discard_matching drops only the messages its pattern accepts, of every source") {
  // A context id given back (ftmpi/src/context_retire.h): the leftovers on it go, from
  // whoever sent them; the same context's other kinds and other contexts stay, in order.
  Bench b;
  constexpr std::uint64_t kContext = 0xf0;  // the "context" bits of these tags
  b.arrive(1, 0x10, 1);                     // context 0x10
  b.arrive(2, 0xf1, 2);                     // context 0xf0
  b.arrive(1, 0xf2, 3);                     // context 0xf0
  b.arrive(kAnyPeer, 0xf3, 4);              // context 0xf0, a sender not named yet
  b.arrive(2, 0x21, 5);                     // context 0x20
  REQUIRE(b.matcher.unexpected_count() == 5);
  REQUIRE(b.matcher.discard_matching(0xf0, ~kContext) == 3);
  REQUIRE(b.matcher.unexpected_count() == 2);
  REQUIRE(b.probe(kAnyPeer, 0xf0, ~kContext).status == Status::no_message);
  int v = 0;
  REQUIRE(b.recv(kAnyPeer, 0, ~std::uint64_t{0}, &v).status == Status::ok);
  REQUIRE(v == 1);
  REQUIRE(b.recv(kAnyPeer, 0, ~std::uint64_t{0}, &v).status == Status::ok);
  REQUIRE(v == 5);
  // Later messages on the pattern are matched as usual (unlike discard_unexpected).
  b.arrive(1, 0xf4, 6);
  REQUIRE(b.recv(1, 0xf4, kExact, &v).status == Status::ok);
  REQUIRE(v == 6);
  REQUIRE(b.matcher.discard_matching(0xf0, ~kContext) == 0);
}
