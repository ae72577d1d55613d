// Argument checks that happen before any communication, and the real default thresholds
// with messages long enough to select the long-message algorithms on their own.
#include <catch2/catch.hpp>

#include <cstring>

#include "harness.h"

using namespace ftmpi::coll;
using namespace ftmpi::coll::testing;

namespace {

// Any communication at all is a test failure.
class NoTraffic : public P2P {
 public:
  int calls = 0;
  Status isend(int, const void*, std::size_t, int, RequestId*) override { return fail(); }
  Status irecv(int, void*, std::size_t, int, RequestId*) override { return fail(); }
  Status waitall(RequestId*, int) override { return fail(); }

 private:
  Status fail() {
    ++calls;
    return Status::error;
  }
};

View make_view(std::vector<int> members, int me, int size) {
  View v;
  v.members = std::move(members);
  v.my_rank = me;
  v.comm_size = size;
  return v;
}

}  // namespace

TEST_CASE("bad views, roots and in-place uses are refused before any traffic", "[arguments]") {
  NoTraffic p;
  std::vector<unsigned char> buf(64);
  Reduction r;
  REQUIRE(predefined_reduction(Op::sum, Kind::c_int, 2, &r) == Status::ok);
  const View outsider = make_view({0, 2}, 1, 3);  // rank 1 is a gap
  CHECK(barrier(outsider, p) == Status::invalid);
  CHECK(allreduce(outsider, p, buf.data(), buf.data() + 8, r) == Status::invalid);
  CHECK(barrier(make_view({}, 0, 1), p) == Status::invalid);
  CHECK(barrier(make_view({0, 5}, 0, 3), p) == Status::invalid);  // member beyond the extent

  const View v = make_view({0, 2}, 2, 3);
  CHECK(bcast(v, p, buf.data(), 8, 1) == Status::invalid);  // root is a gap
  CHECK(reduce(v, p, buf.data(), buf.data() + 8, r, 7) == Status::invalid);
  CHECK(gather(v, p, buf.data(), 4, buf.data() + 8, 1) == Status::invalid);
  // MPI_IN_PLACE is a root-only option for rooted collectives.
  CHECK(reduce(v, p, in_place, buf.data(), r, 0) == Status::invalid);
  CHECK(gather(v, p, in_place, 4, buf.data(), 0) == Status::invalid);
  CHECK(scatter(v, p, buf.data(), 4, in_place, 0) == Status::invalid);
  CHECK(p.calls == 0);
}

TEST_CASE("a single member needs no traffic and copies to its output", "[arguments]") {
  NoTraffic p;
  const View solo = make_view({1}, 1, 3);  // BLANK communicator with one survivor
  Reduction r;
  REQUIRE(predefined_reduction(Op::prod, Kind::c_int, 1, &r) == Status::ok);
  int in = 6, out = 0;
  CHECK(barrier(solo, p) == Status::ok);
  CHECK(allreduce(solo, p, &in, &out, r) == Status::ok);
  CHECK(out == 6);
  int slots[3] = {-1, -1, -1};
  CHECK(allgather(solo, p, &in, sizeof in, slots) == Status::ok);
  CHECK(slots[0] == -1);
  CHECK(slots[1] == 6);
  CHECK(slots[2] == -1);
  CHECK(p.calls == 0);
}

TEST_CASE("default thresholds pick every long-message algorithm on long messages",
          "[bcast][allreduce][allgather]") {
  ScopedTuning scope(Tuning{});
  const Layout l{"dense 6", 6, {0, 1, 2, 3, 4, 5}};
  const std::size_t chain_bytes = Tuning{}.bcast_pipeline + 12345;      // segmented chain
  const std::size_t ring_bytes = Tuning{}.bcast_large * 3 + 7;           // scatter + ring
  const std::size_t doubles = Tuning{}.allreduce_large / sizeof(double) * 64 + 3;  // Rabenseifner
  std::vector<std::vector<unsigned char>> chain(6), ring(6), gathered(6);
  std::vector<std::vector<double>> sum(6);
  for (int r = 0; r < 6; ++r) {
    chain[r] = r == 4 ? pattern(4, 9, chain_bytes) : std::vector<unsigned char>(chain_bytes, 0);
    ring[r] = r == 1 ? pattern(1, 8, ring_bytes) : std::vector<unsigned char>(ring_bytes, 0);
    sum[r].assign(doubles, 0);
    gathered[r].assign(6 * 20000, 0);
  }
  Reduction red;
  REQUIRE(predefined_reduction(Op::sum, Kind::c_double, doubles, &red) == Status::ok);
  Outcome o = run(l, [&](const View& v, P2P& p2p) {
    const int me = v.my_rank;
    Status s = bcast(v, p2p, chain[me].data(), chain_bytes, 4);
    if (s == Status::ok) s = bcast(v, p2p, ring[me].data(), ring_bytes, 1);
    std::vector<double> in(doubles);
    for (std::size_t i = 0; i < doubles; ++i) in[i] = me * 1000.0 + i;
    if (s == Status::ok) s = allreduce(v, p2p, in.data(), sum[me].data(), red);
    const auto block = pattern(me, 0, 20000);
    if (s == Status::ok) s = allgather(v, p2p, block.data(), 20000, gathered[me].data());
    return s;
  });
  CHECK_FALSE(o.hung);
  CHECK(o.protocol_error == "");
  CHECK(o.all_ok());
  for (int r = 0; r < 6; ++r) {
    INFO("rank " << r);
    CHECK(chain[r] == pattern(4, 9, chain_bytes));
    CHECK(ring[r] == pattern(1, 8, ring_bytes));
    bool sums_right = true;
    for (std::size_t i = 0; i < doubles; ++i) sums_right &= sum[r][i] == 15000.0 + 6.0 * i;
    CHECK(sums_right);
    bool slots_right = true;
    for (int c = 0; c < 6; ++c) {
      slots_right &= std::memcmp(gathered[r].data() + c * 20000, pattern(c, 0, 20000).data(),
                                 20000) == 0;
    }
    CHECK(slots_right);
  }
}
