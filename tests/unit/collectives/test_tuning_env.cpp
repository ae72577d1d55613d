// The thresholds come from the environment, read once. Runs as its own process with the
// variables set by ctest (see CMakeLists.txt), so nothing has read them before.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "ftmpi/coll/tuning.h"

using namespace ftmpi::coll;

TEST_CASE("thresholds are read from the environment with size suffixes", "[tuning]") {
  const Tuning defaults;
  const Tuning& t = tuning();
  CHECK(t.bcast_large == 4096);                        // plain number
  CHECK(t.bcast_pipeline == std::size_t{2} << 20);     // 2M
  CHECK(t.bcast_segment == std::size_t{64} << 10);     // 64k
  CHECK(t.allreduce_large == std::size_t{1} << 30);    // 1G
  CHECK(t.alltoall_large == defaults.alltoall_large);  // "12x": malformed, default kept
  CHECK(t.gather_large == defaults.gather_large);      // "-5": negative, default kept
  CHECK(t.allgather_direct == defaults.allgather_direct);  // not oversubscribed: off
  CHECK(t.scatter_large == defaults.scatter_large);    // unset
  // Read once: later changes of the environment do not matter.
  setenv("FTMPI_COLL_BCAST_LARGE", "1", 1);
  CHECK(tuning().bcast_large == 4096);
}

TEST_CASE("an oversubscribed job takes the crowded defaults unless a threshold is set",
          "[oversubscribed]") {
  const Tuning defaults, crowded = oversubscribed_defaults();
  const Tuning& t = tuning();
  CHECK(t.bcast_large == 100000);                  // its own variable wins
  CHECK(t.alltoall_large == crowded.alltoall_large);
  CHECK(t.allgather_direct == 0);  // opt-in only (tuning.cpp says why)
  CHECK(t.allreduce_direct == 0);
  CHECK(crowded.alltoall_large > defaults.alltoall_large);
  CHECK(crowded.bcast_large > defaults.bcast_large);
  CHECK(t.allgather_large == defaults.allgather_large);  // the others as usual
  CHECK(t.bcast_pipeline == defaults.bcast_pipeline);
}
