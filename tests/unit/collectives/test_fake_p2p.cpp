// The fake itself must be trustworthy: FIFO matching per (source, tag), rendezvous sends,
// size checks, failure propagation and hang detection.
#include <catch2/catch.hpp>

#include <thread>

#include "fake_p2p.h"

using namespace ftmpi::coll;
using namespace ftmpi::coll::testing;

TEST_CASE("messages match by source and tag in FIFO order", "[fake]") {
  FakeWorld w(2, {0, 1});
  int a = 1, b = 2, c = 3, x = 0, y = 0, z = 0;
  RequestId s[3], r[3];
  REQUIRE(w.endpoint(0).isend(1, &a, 4, 7, &s[0]) == Status::ok);
  REQUIRE(w.endpoint(0).isend(1, &b, 4, 8, &s[1]) == Status::ok);
  REQUIRE(w.endpoint(0).isend(1, &c, 4, 7, &s[2]) == Status::ok);
  REQUIRE(w.endpoint(1).irecv(0, &y, 4, 8, &r[0]) == Status::ok);
  REQUIRE(w.endpoint(1).irecv(0, &x, 4, 7, &r[1]) == Status::ok);
  REQUIRE(w.endpoint(1).irecv(0, &z, 4, 7, &r[2]) == Status::ok);
  CHECK(w.endpoint(1).waitall(r, 3) == Status::ok);
  CHECK(w.endpoint(0).waitall(s, 3) == Status::ok);
  CHECK(x == 1);
  CHECK(y == 2);
  CHECK(z == 3);
}

TEST_CASE("size mismatches and gap peers are protocol errors", "[fake]") {
  FakeWorld w(3, {0, 2});
  int a = 1, x = 0;
  RequestId s, r;
  CHECK(w.endpoint(0).isend(1, &a, 4, 0, &s) == Status::error);
  REQUIRE(w.endpoint(0).isend(2, &a, 4, 0, &s) == Status::ok);
  REQUIRE(w.endpoint(2).irecv(0, &x, 2, 0, &r) == Status::ok);
  CHECK(w.endpoint(2).waitall(&r, 1) == Status::truncated);
  CHECK(w.protocol_error() != "");
}

TEST_CASE("a failure wakes blocked waiters with proc_failed", "[fake]") {
  FakeWorld w(2, {0, 1});
  int x = 0;
  RequestId r;
  REQUIRE(w.endpoint(1).irecv(0, &x, 4, 0, &r) == Status::ok);
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    w.fail(0);
  });
  CHECK(w.endpoint(1).waitall(&r, 1) == Status::proc_failed);
  killer.join();
  CHECK(w.endpoint(1).irecv(0, &x, 4, 0, &r) == Status::proc_failed);
  CHECK_FALSE(w.hung());
}

TEST_CASE("a wait without progress is reported as a hang, not a deadlock", "[fake]") {
  FakeWorld w(2, {0, 1}, std::chrono::milliseconds(50));
  int x = 0;
  RequestId r;
  REQUIRE(w.endpoint(1).irecv(0, &x, 4, 0, &r) == Status::ok);
  CHECK(w.endpoint(1).waitall(&r, 1) == Status::error);
  CHECK(w.hung());
}
