// The agreement's messages (ftmpi/src/consensus_wire.cpp): round trips, and every truncation,
// lying count or trailing byte refused rather than read past.
#include <catch2/catch.hpp>

#include <random>

#include "consensus_wire.h"

using namespace ftmpi;

TEST_CASE("a consensus message keeps its header and body", "[consensus][wire]") {
  const std::vector<std::uint8_t> body = {1, 2, 3, 250};
  const auto msg = encode_consensus_message(ConsensusHeader{17, -1}, body);
  REQUIRE(msg.size() == 8 + body.size());
  ConsensusHeader h;
  std::vector<std::uint8_t> got;
  REQUIRE(decode_consensus_message(msg, &h, &got));
  REQUIRE(h.type == 17);
  REQUIRE(h.sender_rank == -1);
  REQUIRE(got == body);
  REQUIRE(decode_consensus_message(encode_consensus_message(ConsensusHeader{2, 5}, {}), &h, &got));
  REQUIRE(got.empty());
  REQUIRE(h.sender_rank == 5);
  // Little-endian whatever the host: the type's low byte first.
  REQUIRE(msg[0] == 17);
  for (std::size_t n = 0; n < 8; ++n) {
    h = ConsensusHeader{99, 99};
    REQUIRE_FALSE(decode_consensus_message(std::vector<std::uint8_t>(msg.begin(), msg.begin() + static_cast<std::ptrdiff_t>(n)), &h, &got));
    REQUIRE(h.type == 99);  // untouched
  }
}

TEST_CASE("a decision round-trips and malformed ones are refused", "[consensus][wire]") {
  Decision d;
  d.failed = {1, 4};
  d.contributions = {{0, {9, 8}}, {2, {}}, {3, {7}}};
  const auto bytes = encode_decision(d);
  Decision got;
  REQUIRE(decode_decision(bytes, &got));
  REQUIRE(got.failed == d.failed);
  REQUIRE(got.contributions == d.contributions);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    Decision untouched;
    untouched.failed = {42};
    REQUIRE_FALSE(decode_decision(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)), &untouched));
    REQUIRE(untouched.failed == std::vector<int>{42});
  }
  auto longer = bytes;
  longer.push_back(0);
  REQUIRE_FALSE(decode_decision(longer, &got));
  // A count of 2^32-1 contributions in a short message: refused, nothing huge allocated.
  auto lying = encode_decision(Decision{});
  for (int i = 0; i < 4; ++i) lying[4 + static_cast<std::size_t>(i)] = 0xff;
  REQUIRE_FALSE(decode_decision(lying, &got));
  std::mt19937 rng(11);
  for (int i = 0; i < 3000; ++i) {
    auto junk = bytes;
    for (int k = 0; k < 3; ++k) junk[rng() % junk.size()] = static_cast<std::uint8_t>(rng());
    junk.resize(rng() % (junk.size() + 4), 0xff);
    (void)decode_decision(junk, &got);  // must return, whatever it says
  }
}
