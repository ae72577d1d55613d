// allreduce, reduce_scatter and scan: every layout up to 64 members, every algorithm,
// predefined and user operations (one non-commutative), in place and not.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "harness.h"

using namespace ftmpi::coll;
using namespace ftmpi::coll::testing;

namespace {

void require_clean(const Outcome& o) {
  CHECK_FALSE(o.hung);
  CHECK(o.protocol_error == "");
  for (Status s : o.status) CHECK(s == Status::ok);
}

// Per (item, rank) byte buffers.
using Buffers = std::vector<std::vector<std::vector<unsigned char>>>;

}  // namespace

TEST_CASE("allreduce gives every member the rank-ordered reduction", "[allreduce]") {
  const auto cases = reduction_cases();
  for (const auto& t : tunings()) {
    if (t.name == "pipelined bcast") continue;
    ScopedTuning scope(t.tuning);
    for (const auto& l : layouts(64)) {
      INFO(t.name << ", " << l.name);
      // 70 elements >= 64 members, so Rabenseifner runs even at the largest size.
      struct Item {
        std::size_t c, count;
        bool in_place;
      };
      std::vector<Item> items;
      for (std::size_t c = 0; c < cases.size(); ++c) {
        items.push_back({c, 1, false});
        items.push_back({c, 70, c % 2 == 0});
        items.push_back({c, 600, c % 2 == 1});  // above FTMPI_COLL_ALLREDUCE_LARGE's 2 KiB
      }
      Buffers in(items.size()), out(items.size());
      for (std::size_t i = 0; i < items.size(); ++i) {
        in[i].resize(l.comm_size);
        out[i].resize(l.comm_size);
        for (int r : l.members) {
          in[i][r] = cases[items[i].c].input(r, items[i].count);
          out[i][r] = items[i].in_place ? in[i][r]
                                        : std::vector<unsigned char>(in[i][r].size(), kUntouched);
        }
      }
      Outcome o = run(l, [&](const View& v, P2P& p2p) {
        for (std::size_t i = 0; i < items.size(); ++i) {
          const Reduction red = cases[items[i].c].make(items[i].count);
          Status s = allreduce(v, p2p, items[i].in_place ? in_place : in[i][v.my_rank].data(),
                               out[i][v.my_rank].data(), red);
          if (s != Status::ok) return s;
        }
        return Status::ok;
      });
      require_clean(o);
      for (std::size_t i = 0; i < items.size(); ++i) {
        const ReductionCase& rc = cases[items[i].c];
        const auto expect = fold(rc.make(items[i].count), in[i], l.members);
        INFO(rc.name << " count " << items[i].count << " in place " << items[i].in_place);
        for (int r : l.members) {
          INFO("rank " << r);
          CHECK(rc.same(out[i][r].data(), expect.data(), items[i].count));
        }
      }
    }
  }
}

TEST_CASE("the all-at-once long allreduce gives Rabenseifner's bits", "[allreduce]") {
  // Doubles whose sum depends on the association: the direct form must combine each block
  // as recursive halving does (direct.h), so switching FTMPI_OVERSUBSCRIBED changes no bit.
  Tuning rabenseifner;
  rabenseifner.allreduce_large = 1;
  Tuning direct = rabenseifner;
  direct.allreduce_direct = ~std::size_t{0};
  Reduction sum;
  constexpr std::size_t kCount = 1001;  // not a multiple of any member count below
  REQUIRE(predefined_reduction(Op::sum, Kind::c_double, kCount, &sum) == Status::ok);
  for (const auto& l : layouts(12)) {
    if (l.members.size() < 3) continue;
    INFO(l.name);
    // Signs and magnitudes (2^-20 .. 2^20) from a fixed generator: rounding then depends on
    // the order of the additions in practically every element.
    std::vector<std::vector<double>> in(l.comm_size);
    std::uint64_t state = 12345;
    auto next = [&state] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return state >> 11;
    };
    for (int r : l.members) {
      in[r].resize(kCount);
      for (double& x : in[r]) {
        const double mantissa = 1.0 + static_cast<double>(next() % 1000003) / 1000003.0;
        x = std::ldexp(next() % 2 == 0 ? mantissa : -mantissa, static_cast<int>(next() % 41) - 20);
      }
    }
    // got[2 * k + ip]: Rabenseifner (k 0) or direct (k 1), in place (ip 1) or not.
    std::vector<std::vector<double>> got[4];
    for (int k = 0; k < 2; ++k) {
      ScopedTuning scope(k == 0 ? rabenseifner : direct);
      for (int ip = 0; ip < 2; ++ip) {
        auto& out = got[2 * k + ip];
        out.assign(l.comm_size, std::vector<double>(kCount, 0.0));
        if (ip == 1) {
          for (int r : l.members) out[r] = in[r];
        }
        Outcome o = run(l, [&](const View& v, P2P& p2p) {
          const int me = v.my_rank;
          return allreduce(v, p2p, ip == 1 ? in_place : in[me].data(), out[me].data(), sum);
        });
        require_clean(o);
      }
    }
    const std::size_t bytes = kCount * sizeof(double);
    for (int r : l.members) {
      INFO("rank " << r);
      for (int x = 1; x < 4; ++x) {
        INFO("variant " << x);
        CHECK(std::memcmp(got[0][r].data(), got[x][r].data(), bytes) == 0);
      }
      CHECK(std::memcmp(got[3][r].data(), got[3][l.members[0]].data(), bytes) == 0);
    }
  }
}

TEST_CASE("reduce_scatter leaves each member its block of the reduction", "[reduce_scatter]") {
  const ReductionCase cases[] = {predefined_case(Op::sum, Kind::c_int),
                                 predefined_case(Op::maxloc, Kind::double_int), matrix_case(),
                                 user_sum_case()};
  for (const auto& t : tunings()) {
    if (t.name == "pipelined bcast") continue;
    ScopedTuning scope(t.tuning);
    for (const auto& l : layouts(33)) {
      INFO(t.name << ", " << l.name);
      const int n = l.comm_size;
      std::vector<std::size_t> counts(n);
      std::size_t total = 0;
      for (int c = 0; c < n; ++c) total += counts[c] = (c * 3) % 4;  // some blocks empty
      for (const ReductionCase& rc : cases) {
        for (bool ip : {false, true}) {
          INFO(rc.name << " in place " << ip);
          std::vector<std::vector<unsigned char>> in(n), out(n);
          const Reduction red = rc.make(total);
          for (int r : l.members) {
            in[r] = rc.input(r, total);
            out[r] = ip ? in[r] : std::vector<unsigned char>(counts[r] * red.elem_size, kUntouched);
          }
          Outcome o = run(l, [&](const View& v, P2P& p2p) {
            return reduce_scatter(v, p2p, ip ? in_place : in[v.my_rank].data(),
                                  out[v.my_rank].data(), counts.data(), rc.make(0));
          });
          require_clean(o);
          const auto expect = fold(red, in, l.members);
          std::size_t offset = 0;
          for (int c = 0; c < n; ++c) {
            if (std::find(l.members.begin(), l.members.end(), c) != l.members.end()) {
              INFO("rank " << c);
              CHECK(rc.same(out[c].data(), expect.data() + offset * red.elem_size, counts[c]));
            }
            offset += counts[c];
          }
        }
      }
    }
  }
}

TEST_CASE("scan gives member k the reduction of members 0..k", "[scan]") {
  const auto cases = reduction_cases();
  for (const auto& l : layouts(64)) {
    INFO(l.name);
    Buffers in(cases.size()), out(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      in[i].resize(l.comm_size);
      out[i].resize(l.comm_size);
      for (int r : l.members) {
        in[i][r] = cases[i].input(r, 3);
        out[i][r] = i % 2 ? in[i][r] : std::vector<unsigned char>(in[i][r].size(), kUntouched);
      }
    }
    Outcome o = run(l, [&](const View& v, P2P& p2p) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        Status s = scan(v, p2p, i % 2 ? in_place : in[i][v.my_rank].data(),
                        out[i][v.my_rank].data(), cases[i].make(3));
        if (s != Status::ok) return s;
      }
      return Status::ok;
    });
    require_clean(o);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      INFO(cases[i].name);
      for (std::size_t k = 0; k < l.members.size(); ++k) {
        const std::vector<int> prefix(l.members.begin(), l.members.begin() + k + 1);
        const auto expect = fold(cases[i].make(3), in[i], prefix);
        INFO("member " << l.members[k]);
        CHECK(cases[i].same(out[i][l.members[k]].data(), expect.data(), 3));
      }
    }
  }
}

TEST_CASE("zero-element reductions complete without traffic", "[allreduce][reduce]") {
  for (const auto& l : layouts(9)) {
    const Reduction red = matrix_case().make(0);
    Outcome o = run(l, [&](const View& v, P2P& p2p) {
      Status s = allreduce(v, p2p, nullptr, nullptr, red);
      if (s == Status::ok) s = reduce(v, p2p, nullptr, nullptr, red, l.members.back());
      if (s == Status::ok) s = scan(v, p2p, nullptr, nullptr, red);
      return s;
    });
    require_clean(o);
  }
}
