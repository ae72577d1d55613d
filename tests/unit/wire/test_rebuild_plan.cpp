// The REBUILD plan's environment text (ftmpi/src/rebuild_plan.cpp): a round trip keeps every
// field, and text that encode() did not produce is refused with the plan untouched.
#include <catch2/catch.hpp>

#include <random>

#include "match_bits.h"
#include "rebuild_plan.h"

using namespace ftmpi;

namespace {

RebuildPlan sample() {
  RebuildPlan p;
  p.base = 8;
  p.count = 2;
  p.leader = 1;
  p.world = {0, 8, 2, 9, 4};
  p.context = 12;
  p.coll_context = 13;
  p.comm_mode = 3;
  p.msg_mode = -1;
  p.coll_mode = 2;
  p.sequence = 77;
  p.used.set(0);
  p.used.set(6);
  p.used.set(CommTable::kContextPairs - 1);
  return p;
}

}  // namespace

TEST_CASE("a rebuild plan survives its environment text", "[rebuild][wire]") {
  const RebuildPlan p = sample();
  const std::string text = p.encode();
  REQUIRE(text.find_first_not_of("0123456789abcdef") == std::string::npos);
  RebuildPlan q;
  REQUIRE(RebuildPlan::decode(text, &q));
  REQUIRE(q.base == 8);
  REQUIRE(q.count == 2);
  REQUIRE(q.leader == 1);
  REQUIRE(q.world == p.world);
  REQUIRE(q.context == 12);
  REQUIRE(q.coll_context == 13);
  REQUIRE(q.comm_mode == 3);
  REQUIRE(q.msg_mode == -1);
  REQUIRE(q.coll_mode == 2);
  REQUIRE(q.sequence == 77);
  REQUIRE(q.used == p.used);
  REQUIRE(q.is_new(9));
  REQUIRE_FALSE(q.is_new(10));
}

TEST_CASE("malformed plan text is refused", "[rebuild][wire]") {
  const std::string text = sample().encode();
  RebuildPlan untouched;
  untouched.base = 4242;
  auto refused = [&](const std::string& t) {
    REQUIRE_FALSE(RebuildPlan::decode(t, &untouched));
    REQUIRE(untouched.base == 4242);
  };
  refused("");
  refused("x");
  refused(text.substr(0, text.size() - 1));  // odd length
  refused(text.substr(0, text.size() - 2));  // one byte short
  refused(text + "00");                      // one byte too many
  std::string upper = text;
  upper[0] = 'G';
  refused(upper);
  std::string nul = text;
  nul[3] = '\0';  // the old decoder's strchr took '\0' for a digit's end
  refused(nul);
  // A world-size field that lies (huge, or one more than present).
  std::string lying = text;
  lying.replace(72, 8, "ffffffff");  // after nine 4-byte fields: the world's u32 count
  refused(lying);
  lying = text;
  lying.replace(72, 2, "06");
  refused(lying);
  // A world larger than any job: encoded honestly, still refused.
  RebuildPlan huge = sample();
  huge.world.assign(match::kMaxProcesses + 1, 0);
  refused(huge.encode());
  std::mt19937 rng(3);
  for (int i = 0; i < 500; ++i) {
    std::string junk = text;
    for (int k = 0; k < 3; ++k) junk[rng() % junk.size()] = "0123456789abcdefXZ"[rng() % 18];
    RebuildPlan any;
    (void)RebuildPlan::decode(junk, &any);  // must return, whatever it says
  }
}
