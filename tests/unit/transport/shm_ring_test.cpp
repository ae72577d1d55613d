// The shared-memory ring (transport/src/shm_ring.h): records of every size arrive whole and in
// order across wrap-arounds, a full ring refuses instead of overwriting, rings are claimed once,
// and a region that is not ours or not there is refused.
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <vector>

#include <fcntl.h>
#include <ftmpi/shm_segments.h>
#include <sys/mman.h>

#include "shm_ring.h"

using namespace ftmpi::transport;

namespace {

constexpr std::size_t kRingBytes = 32 * 1024;

// Record k: 8 bytes of k, then filler derived from k.
std::vector<unsigned char> record_for(std::uint64_t k, std::size_t len) {
  std::vector<unsigned char> r(len);
  for (std::size_t i = 0; i < len; ++i) r[i] = static_cast<unsigned char>(k * 31 + i);
  if (len >= sizeof k) std::memcpy(r.data(), &k, sizeof k);
  return r;
}

struct Pair {
  ring::Region mine;  // the receiver's own region
  ring::Region theirs;  // the same region, mapped again as a sender would
  ring::Writer w;
  ring::Reader r;
  explicit Pair(std::uint64_t token, std::size_t rings = 4) {
    std::string err;
    REQUIRE(mine.create(token, rings, kRingBytes, &err));
    REQUIRE(theirs.open(ring::region_name(getpid(), getuid(), token)));
    const std::size_t i = theirs.claim(0x1234);
    REQUIRE(i == 0);
    w.attach(&theirs.control(i), theirs.data(i), theirs.ring_bytes());
    REQUIRE(mine.claimed() == 1);
    REQUIRE(mine.control(0).owner.load() == 0x1234);
    r.attach(&mine.control(0), mine.data(0), mine.ring_bytes());
  }
};

// A region's shared ring with two senders on it (w[0], w[1]) and its reader.
struct SharedPair {
  ring::Region mine, theirs;
  ring::SharedWriter w[2];
  ring::Reader r;
  explicit SharedPair(std::uint64_t token) {
    std::string err;
    REQUIRE(mine.create(token, 1, kRingBytes, &err));
    REQUIRE(theirs.open(ring::region_name(getpid(), getuid(), token)));
    const std::size_t s = theirs.shared_index();
    for (auto& x : w) x.attach(&theirs.control(s), theirs.data(s), theirs.ring_bytes());
    r.attach(&mine.control(s), mine.data(s), mine.ring_bytes());
  }
};

}  // namespace

TEST_CASE("ring: records of every size arrive whole and in order across many wraps") {
  Pair p(0x5eed0001);
  std::mt19937_64 rng(7);
  std::uint64_t sent = 0, got = 0;
  std::vector<std::size_t> lens;
  // Far more bytes than the ring holds: the reader drains whenever the writer is refused.
  while (got < 20000) {
    const std::size_t len = rng() % 5 == 0 ? rng() % (p.w.max_record() - ring::kRecordHeader)
                                           : rng() % 64;
    std::vector<unsigned char> rec = record_for(sent, len);
    // Split at a random point: push takes a header part and a payload part.
    const std::size_t cut = len == 0 ? 0 : rng() % (len + 1);
    if (p.w.push(rec.data(), cut, rec.data() + cut, len - cut)) {
      lens.push_back(len);
      ++sent;
      if (rng() % 3 != 0) continue;
    }
    std::size_t n = 0;
    while (const unsigned char* data = p.r.peek(&n)) {
      REQUIRE(got < sent);
      REQUIRE(n == lens[got]);
      std::vector<unsigned char> want = record_for(got, n);
      // n 0: want.data() may be null, and memcmp(.., nullptr, 0) is UB (UBSan).
      REQUIRE((n == 0 || std::memcmp(data, want.data(), n) == 0));
      p.r.consume();
      ++got;
    }
  }
  REQUIRE(got == sent);
}

TEST_CASE("ring: a record never touches more cache lines than its size needs") {
  Pair p(0x5eed0006);
  // Every alignment a mix of sizes leaves (a ping-pong's 12-byte command among its 8 B
  // messages shifted half of those 32-byte records across a line), over several wraps.
  auto lines = [](std::size_t n) { return (n + ring::kLineBytes - 1) / ring::kLineBytes; };
  std::uint64_t sent = 0, got = 0;
  std::vector<std::size_t> lens;
  for (int round = 0; round < 3000; ++round) {
    const std::size_t mixed[] = {12, 24, static_cast<std::size_t>(round % 57),
                                 static_cast<std::size_t>(round % 700)};
    for (std::size_t len : mixed) {
      std::vector<unsigned char> rec = record_for(sent, len);
      if (!p.w.push(rec.data(), len, nullptr, 0)) break;
      lens.push_back(len);
      ++sent;
    }
    std::size_t n = 0;
    while (const unsigned char* data = p.r.peek(&n)) {
      REQUIRE(n == lens[got]);
      const std::size_t record = (ring::kRecordHeader + n + 7) / 8 * 8;
      const auto start = reinterpret_cast<std::uintptr_t>(data) - ring::kRecordHeader;
      REQUIRE(lines(start % ring::kLineBytes + record) == lines(record));
      std::vector<unsigned char> want = record_for(got, n);
      REQUIRE((n == 0 || std::memcmp(data, want.data(), n) == 0));
      p.r.consume();
      ++got;
    }
  }
  REQUIRE(got == sent);
  REQUIRE(sent > 3 * kRingBytes / 64);  // wrapped several times
}

TEST_CASE("ring: a record that leaves a line nearly full moves the next to a new line unmarked") {
  Pair p(0x5eed0009);
  // 16-32 B messages with their 16-byte wire header: 40-56 byte records, one a line. A marker
  // would be a store into the line the receiver reads; the rule both ends apply needs none.
  for (std::size_t body : {32u, 40u, 48u}) {
    Pair q(0x5eed0010 + body);
    const std::size_t n = kRingBytes / 2 / ring::kLineBytes;
    std::vector<unsigned char> rec(body, 0x5a);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(q.w.push(rec.data(), body, nullptr, 0));
    const std::size_t record = ring::kRecordHeader + body;
    const unsigned char* ring_bytes = q.mine.data(0);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t after = 0;  // the header slot after record i, in its line: never written
      std::memcpy(&after, ring_bytes + i * ring::kLineBytes + record, sizeof after);
      REQUIRE(after == 0);
    }
    std::size_t len = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned char* data = q.r.peek(&len);
      REQUIRE(data == ring_bytes + i * ring::kLineBytes + ring::kRecordHeader);
      REQUIRE(len == body);
      q.r.consume();
    }
    REQUIRE(q.r.peek(&len) == nullptr);
  }
  // Records that leave room for a small one still share their line: two 8 B messages a line.
  const unsigned char* ring_bytes = p.mine.data(0);
  std::uint64_t word = 7;
  REQUIRE(p.w.push(&word, 8, &word, 8));  // a 24-byte record: the next one goes at 24
  REQUIRE(p.w.push(&word, 8, &word, 8));
  std::size_t len = 0;
  REQUIRE(p.r.peek(&len) == ring_bytes + ring::kRecordHeader);
  p.r.consume();
  REQUIRE(p.r.peek(&len) == ring_bytes + 24 + ring::kRecordHeader);
}

TEST_CASE("ring: a full ring refuses the next record and takes it once room is published") {
  Pair p(0x5eed0002);
  std::vector<unsigned char> rec(984, 0xab);
  int accepted = 0;
  while (p.w.push(rec.data(), rec.size(), nullptr, 0)) ++accepted;
  // 984 bytes + 8 of header = 992 per record (31 half lines: each leaves kMinLineRoom of its
  // last line, so the next follows at once): 32 KiB holds 33 of them and no more.
  REQUIRE(accepted == static_cast<int>(kRingBytes / 992));
  REQUIRE_FALSE(p.w.push(rec.data(), rec.size(), nullptr, 0));
  std::size_t n = 0;
  // The receiver publishes its head every eighth of the ring (4 KiB here: 5 records) or when
  // it finds the ring drained; until then the sender sees the ring as full.
  for (int i = 0; i < 4; ++i) {
    REQUIRE(p.r.peek(&n) != nullptr);
    REQUIRE(n == 984);
    p.r.consume();
    REQUIRE_FALSE(p.w.push(rec.data(), rec.size(), nullptr, 0));
  }
  REQUIRE(p.r.peek(&n) != nullptr);
  p.r.consume();
  // 4960 bytes published. The next record wraps: the 32 bytes left at the end, its own 992 at
  // the start and the 8 of the header after it.
  REQUIRE(p.w.push(rec.data(), rec.size(), nullptr, 0));
  // Everything still arrives, in order, the wrapped record last.
  int left = 0;
  while (p.r.peek(&n) != nullptr) {
    REQUIRE(n == 984);
    p.r.consume();
    ++left;
  }
  REQUIRE(left == accepted - 5 + 1);
}

TEST_CASE("ring: a receiver that finds its ring drained publishes all its room") {
  // The same steps on two rings: 4 records read (3968 bytes, under the eighth that publishes),
  // then the writer fills the ring; on the second ring the reader first looks once more and
  // finds it empty, which publishes the head: that writer has those 3968 bytes back.
  auto fill_after_reading = [](std::uint64_t seed, bool look_again) {
    Pair p(seed);
    std::vector<unsigned char> rec(984, 0xcd);
    std::size_t n = 0;
    for (int i = 0; i < 4; ++i) REQUIRE(p.w.push(rec.data(), rec.size(), nullptr, 0));
    for (int i = 0; i < 4; ++i) {
      REQUIRE(p.r.peek(&n) != nullptr);
      p.r.consume();
    }
    if (look_again) REQUIRE(p.r.peek(&n) == nullptr);
    int accepted = 0;
    while (p.w.push(rec.data(), rec.size(), nullptr, 0)) ++accepted;
    int read = 0;  // and every record still arrives
    while (p.r.peek(&n) != nullptr) {
      REQUIRE(n == 984);
      p.r.consume();
      ++read;
    }
    REQUIRE(read == accepted);
    return accepted;
  };
  const int unpublished = fill_after_reading(0x5eed0007, false);
  const int published = fill_after_reading(0x5eed0008, true);
  REQUIRE(unpublished == static_cast<int>((kRingBytes - 3968) / 992));  // no wrap: head 0
  REQUIRE(published > unpublished);
}

TEST_CASE("ring: an empty ring has nothing; zero-length records exist") {
  Pair p(0x5eed0003);
  std::size_t n = 99;
  REQUIRE(p.r.peek(&n) == nullptr);
  REQUIRE(p.w.push(nullptr, 0, nullptr, 0));
  REQUIRE(p.r.peek(&n) != nullptr);
  REQUIRE(n == 0);
  p.r.consume();
  REQUIRE(p.r.peek(&n) == nullptr);
}

TEST_CASE("ring: the receiver reads only published records, and stops at a header that cannot be") {
  Pair p(0x5eed0005);
  std::size_t n = 0;
  // A record is published by its header alone: bytes written without one are not a record.
  unsigned char* at = p.mine.data(0);
  std::memset(at + ring::kRecordHeader, 0x77, 64);
  REQUIRE(p.r.peek(&n) == nullptr);
  // Every push clears the header after its record, so stale bytes there are never read.
  const std::uint64_t stale = ring::kValid | 5;
  std::memcpy(at + 16, &stale, sizeof stale);  // where the header after an 8-byte record goes
  const std::uint64_t k = 42;
  REQUIRE(p.w.push(&k, sizeof k, nullptr, 0));
  REQUIRE(p.r.peek(&n) != nullptr);
  REQUIRE(n == sizeof k);
  p.r.consume();
  REQUIRE(p.r.peek(&n) == nullptr);
  // A header claiming more than a ring may hold: the ring is given up, not read past.
  const std::uint64_t bad = ring::kValid | (kRingBytes / 2);
  std::memcpy(at + 16, &bad, sizeof bad);
  REQUIRE(p.r.peek(&n) == nullptr);
  REQUIRE(p.w.push(&k, sizeof k, nullptr, 0));
  REQUIRE(p.r.peek(&n) == nullptr);
}

TEST_CASE("ring: each ring is claimed by one sender; the region says how many are taken") {
  std::string err;
  ring::Region mine;
  REQUIRE(mine.create(0x5eed0004, 2, kRingBytes, &err));
  ring::Region a, b, c;
  const std::string name = ring::region_name(getpid(), getuid(), 0x5eed0004);
  REQUIRE(a.open(name));
  REQUIRE(b.open(name));
  REQUIRE(c.open(name));
  REQUIRE(a.claim(11) == 0);
  REQUIRE(b.claim(22) == 1);
  REQUIRE(c.claim(33) == 2);  // none left: ring_count()
  REQUIRE(mine.claimed() == 2);
  REQUIRE(mine.control(1).owner.load() == 22);
}

TEST_CASE("ring: a region that is missing or not a ring region is refused") {
  ring::Region r;
  REQUIRE_FALSE(r.open(ring::region_name(getpid(), getuid(), 0x5eed0005)));  // never created
  // A process that exits cleanly takes its region's name with it; one that is killed leaves it
  // behind until the next job's sweep (killed = _exit without running the destructor).
  for (bool clean : {true, false}) {
    const std::uint64_t token = clean ? 0x5eed0006 : 0x5eed0008;
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      std::string err;
      bool ok = false;
      {
        ring::Region child;
        ok = child.create(token, 1, kRingBytes, &err);
        if (!clean) _exit(ok ? 0 : 1);
      }
      _exit(ok ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    const std::string name = ring::region_name(static_cast<std::uint64_t>(pid), getuid(), token);
    if (!clean) {
      REQUIRE(r.open(name));  // still there: a sender would write into it unread
      ring::Region again;
      REQUIRE(ftmpi::shm_segments::remove_stale(getuid()) >= 1);
      REQUIRE_FALSE(again.open(name));
    } else {
      REQUIRE_FALSE(r.open(name));
    }
  }
}

TEST_CASE("ring: records written by another process arrive in order") {
  std::string err;
  ring::Region mine;
  REQUIRE(mine.create(0x5eed0007, 1, kRingBytes, &err));
  std::fflush(nullptr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ring::Region theirs;
    if (!theirs.open(ring::region_name(getppid(), getuid(), 0x5eed0007))) _exit(2);
    const std::size_t i = theirs.claim(77);
    if (i != 0) _exit(3);
    ring::Writer w;
    w.attach(&theirs.control(i), theirs.data(i), theirs.ring_bytes());
    for (std::uint64_t k = 0; k < 100000;) {
      std::vector<unsigned char> rec = record_for(k, 8 + k % 200);
      if (w.push(rec.data(), rec.size(), nullptr, 0)) ++k;
    }
    _exit(0);
  }
  while (mine.claimed() == 0) {
  }
  while (mine.control(0).owner.load() == 0) {
  }
  ring::Reader r;
  r.attach(&mine.control(0), mine.data(0), mine.ring_bytes());
  for (std::uint64_t k = 0; k < 100000;) {
    std::size_t n = 0;
    const unsigned char* data = r.peek(&n);
    if (data == nullptr) continue;
    std::vector<unsigned char> want = record_for(k, 8 + k % 200);
    REQUIRE(n == want.size());
    REQUIRE(std::memcmp(data, want.data(), n) == 0);
    r.consume();
    ++k;
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WEXITSTATUS(status) == 0);
}

TEST_CASE("shm_segments: one sweeper for libfabric's and our segment names") {
  // A child that exits at once gives a PID that no longer exists.
  pid_t dead = fork();
  REQUIRE(dead >= 0);
  if (dead == 0) _exit(0);
  REQUIRE(waitpid(dead, nullptr, 0) == dead);
  const unsigned uid = getuid();
  auto make = [](const std::string& name) {
    int fd = shm_open(("/" + name).c_str(), O_RDWR | O_CREAT, 0600);
    REQUIRE(fd >= 0);
    close(fd);
  };
  auto exists = [](const std::string& name) {
    int fd = shm_open(("/" + name).c_str(), O_RDONLY, 0);
    if (fd >= 0) close(fd);
    return fd >= 0;
  };
  const std::string d = std::to_string(dead), u = std::to_string(uid);
  const std::vector<std::string> ours = {d + ":" + u + ":0", d + ":" + u + ":3",
                                         "ftmpi-ring." + d + "." + u + ".00000000deadbeef"};
  // Not ours: other names, a live process (ourselves), trailing garbage.
  const std::string me = std::to_string(getpid());
  const std::vector<std::string> others = {me + ":" + u + ":0", "ftmpi-ring." + me + "." + u + ".1",
                                           d + ":" + u + ":0x", "ftmpi-ringx." + d + "." + u + ".1",
                                           "sem.ftmpi-test-" + d};
  for (const auto& n : ours) make(n);
  for (const auto& n : others) make(n);
  SECTION("remove_stale: this user's segments of processes that are gone") {
    REQUIRE(ftmpi::shm_segments::remove_stale(uid) >= 2);  // d:u:0x is not a segment name
    for (const auto& n : ours) CHECK_FALSE(exists(n));
  }
  SECTION("remove_of_process: every segment of one process") {
    REQUIRE(ftmpi::shm_segments::remove_of_process(dead) == 3);
    for (const auto& n : ours) CHECK_FALSE(exists(n));
  }
  for (const auto& n : others) {
    CHECK(exists(n));
    shm_unlink(("/" + n).c_str());
  }
  for (const auto& n : ours) shm_unlink(("/" + n).c_str());
}

TEST_CASE("ring: the shared ring refuses a writer whose last look at the head is a lap old") {
  // Two senders share the ring; A looked at the head once, then B's records went round the
  // ring more than once (read as they came) and filled it. A's stale view must not read as
  // room: its push used to pass (tail - head_seen > ring, wrapped) and overwrite unread records.
  SharedPair p(0x5eed00a1);
  ring::SharedWriter &a = p.w[0], &b = p.w[1];
  ring::Reader& r = p.r;
  std::vector<unsigned char> rec(1000);
  std::size_t n = 0;
  std::uint64_t k = 0;
  REQUIRE(a.push(0xa, rec.data(), rec.size(), nullptr, 0));  // A's view of the head: now
  REQUIRE(r.peek(&n) != nullptr);
  r.consume();
  for (int i = 0; i < 2 * static_cast<int>(kRingBytes / 1000); ++i) {  // two laps, read
    rec = record_for(k++, 1000);
    REQUIRE(b.push(0xb, rec.data(), rec.size(), nullptr, 0));
    REQUIRE(r.peek(&n) != nullptr);
    r.consume();
  }
  const std::uint64_t first_unread = k;
  while (b.push(0xb, record_for(k, 1000).data(), 1000, nullptr, 0)) ++k;  // B fills it
  REQUIRE(k > first_unread);
  REQUIRE_FALSE(a.push(0xa, rec.data(), rec.size(), nullptr, 0));
  // Every record B left is intact and in order.
  for (std::uint64_t want = first_unread; want < k; ++want) {
    const unsigned char* p = r.peek(&n);
    REQUIRE(p != nullptr);
    REQUIRE(n == 8 + 1000);
    std::uint64_t token = 0, got = 0;
    std::memcpy(&token, p, sizeof token);
    std::memcpy(&got, p + 8, sizeof got);
    REQUIRE(token == 0xb);
    REQUIRE(got == want);
    r.consume();
  }
  REQUIRE(r.peek(&n) == nullptr);
}

TEST_CASE("ring: writers taking turns on the shared ring keep its cleared lines straight") {
  // Each push clears line starts ahead of the tail and leaves in the ring's control how far
  // (clean), so the next writer, whoever it is, neither clears them again nor trusts lines a
  // record has covered since (they are behind the tail then). Random sizes, small ones
  // clearing ahead, large ones not, random turns, many laps: every record arrives intact.
  SharedPair p(0x5eed00a2);
  ring::SharedWriter* w = p.w;
  ring::Reader& r = p.r;
  std::mt19937_64 rng(11);
  std::vector<std::pair<std::uint64_t, std::size_t>> sent;  // (writer, length) per record
  std::size_t got = 0;
  std::uint64_t bytes = 0;
  while (bytes < 12 * kRingBytes) {
    const std::uint64_t who = rng() % 2;
    const std::size_t len = rng() % 4 == 0 ? 8 + rng() % 3000 : 8 + rng() % 120;
    std::vector<unsigned char> rec = record_for(sent.size(), len);
    if (w[who].push(who + 1, rec.data(), len, nullptr, 0)) {
      sent.emplace_back(who + 1, len);
      bytes += len;
      if (rng() % 4 != 0) continue;
    }
    std::size_t n = 0;
    while (const unsigned char* data = r.peek(&n)) {
      REQUIRE(got < sent.size());
      REQUIRE(n == 8 + sent[got].second);
      std::uint64_t token = 0;
      std::memcpy(&token, data, sizeof token);
      REQUIRE(token == sent[got].first);
      std::vector<unsigned char> want = record_for(got, sent[got].second);
      REQUIRE(std::memcmp(data + 8, want.data(), want.size()) == 0);
      r.consume();
      ++got;
    }
  }
  std::size_t n = 0;
  while (r.peek(&n) != nullptr) {
    r.consume();
    ++got;
  }
  REQUIRE(got == sent.size());
}
