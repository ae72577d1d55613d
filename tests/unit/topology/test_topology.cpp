// Topology arithmetic: MPI_Dims_create's factorization (checked against a brute-force search
// for every small case), argument validation with the right error classes, row-major
// rank <-> coords, shifts with wrap-around and MPI_PROC_NULL, Cart_sub colors and keys, graphs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "topology.h"

using ftmpi::Err;
using ftmpi::Topology;

namespace {

std::vector<int> dims_of(int nnodes, std::vector<int> dims) {
  REQUIRE(ftmpi::dims_create(nnodes, static_cast<int>(dims.size()), dims.data()) == Err::ok);
  return dims;
}

// Among the most balanced ways (smallest max - min) to write n as k non-increasing positive
// factors, the one MPICH returns: the largest smallest factor, then the largest second
// smallest, ... (compared from the back). Brute force over every tuple.
std::vector<int> best_tuple(int n, int k) {
  std::vector<int> best;
  std::vector<int> cur;
  auto better = [&](const std::vector<int>& a) {
    if (best.empty()) return true;
    const int sa = a.front() - a.back(), sb = best.front() - best.back();
    if (sa != sb) return sa < sb;
    return std::lexicographical_compare(best.rbegin(), best.rend(), a.rbegin(), a.rend());
  };
  auto rec = [&](auto&& self, int rest, int slots, int cap) -> void {
    if (slots == 0) {
      if (rest == 1 && better(cur)) best = cur;
      return;
    }
    for (int f = 1; f <= std::min(rest, cap); ++f) {
      if (rest % f) continue;
      cur.push_back(f);
      self(self, rest / f, slots - 1, f);
      cur.pop_back();
    }
  };
  rec(rec, n, k, n);
  return best;
}

// Smallest spread (max - min) over all ways to write n as k positive factors.
int best_spread(int n, int k) {
  if (k == 1) return 0;
  int best = n;
  // all non-increasing tuples by recursion
  std::vector<int> cur;
  auto rec = [&](auto&& self, int rest, int slots, int cap) -> void {
    if (slots == 0) {
      if (rest == 1) best = std::min(best, cur.front() - cur.back());
      return;
    }
    for (int f = 1; f <= std::min(rest, cap); ++f) {
      if (rest % f) continue;
      cur.push_back(f);
      self(self, rest / f, slots - 1, f);
      cur.pop_back();
    }
  };
  rec(rec, n, k, n);
  return best;
}

Topology cart(std::vector<int> dims, std::vector<int> periods, int comm_size = 1000) {
  Topology t;
  REQUIRE(ftmpi::make_cart(comm_size, static_cast<int>(dims.size()), dims.data(), periods.data(),
                           &t) == Err::ok);
  return t;
}

}  // namespace

TEST_CASE("dims_create: hand-computed factorizations", "[topology]") {
  CHECK(dims_of(6, {0, 0}) == std::vector<int>{3, 2});
  CHECK(dims_of(7, {0, 0}) == std::vector<int>{7, 1});
  CHECK(dims_of(24, {0, 0, 0}) == std::vector<int>{4, 3, 2});
  CHECK(dims_of(72, {0, 0, 0}) == std::vector<int>{6, 4, 3});
  CHECK(dims_of(1, {0, 0, 0}) == std::vector<int>{1, 1, 1});
  CHECK(dims_of(12, {2, 0}) == std::vector<int>{2, 6});
  CHECK(dims_of(12, {0, 3, 0}) == std::vector<int>{2, 3, 2});
  CHECK(dims_of(6, {2, 3}) == std::vector<int>{2, 3});
  CHECK(dims_of(1 << 20, {0, 0}) == std::vector<int>{1024, 1024});
  CHECK(dims_of(2147483647, {0, 0}) == std::vector<int>{2147483647, 1});  // a prime
  CHECK(dims_of(1 << 30, std::vector<int>(30, 0)) == std::vector<int>(30, 2));
}

TEST_CASE("dims_create: balanced, non-increasing, exact for every small case", "[topology]") {
  for (int n = 1; n <= 256; ++n) {
    for (int k = 1; k <= 4; ++k) {
      std::vector<int> d = dims_of(n, std::vector<int>(static_cast<std::size_t>(k), 0));
      long long p = 1;
      for (int x : d) p *= x;
      INFO("n=" << n << " k=" << k);
      CHECK(p == n);
      CHECK(std::is_sorted(d.rbegin(), d.rend()));
      CHECK(d.front() - d.back() == best_spread(n, k));
      CHECK(d == best_tuple(n, k));
    }
  }
}

TEST_CASE("dims_create: among equally balanced results, MPICH's choice", "[topology]") {
  // 5040 in 3-D: 21x16x15 and 20x18x14 both have spread 6; MPICH's test suite (topo/dims5)
  // wants the larger smallest extent.
  CHECK(dims_of(5040, {0, 0, 0}) == std::vector<int>{21, 16, 15});
  CHECK(dims_of(5040, {0, 7, 0, 0}) == std::vector<int>{10, 7, 9, 8});
  // A prime above the square root of the rest stands alone in the leading dimension.
  CHECK(dims_of(2 * 2 * 3 * 101, {0, 0, 0}) == std::vector<int>{101, 4, 3});
  // Large inputs stay fast (a search over divisors, not over tuples).
  std::vector<int> d = dims_of(735134400, std::vector<int>(7, 0));
  CHECK(d == std::vector<int>{22, 21, 20, 20, 18, 17, 13});
}

TEST_CASE("dims_create: errors", "[topology]") {
  int d[2] = {3, 0};
  CHECK(ftmpi::dims_create(10, 2, d) == Err::dims);
  CHECK(d[0] == 3);
  CHECK(d[1] == 0);  // untouched on error
  int all[2] = {2, 2};
  CHECK(ftmpi::dims_create(6, 2, all) == Err::dims);
  int neg[2] = {-2, 0};
  CHECK(ftmpi::dims_create(6, 2, neg) == Err::dims);
  CHECK(ftmpi::dims_create(6, -1, d) == Err::dims);
  CHECK(ftmpi::dims_create(0, 2, d) == Err::arg);
  CHECK(ftmpi::dims_create(6, 2, nullptr) == Err::arg);
  CHECK(ftmpi::dims_create(1, 0, nullptr) == Err::ok);
  CHECK(ftmpi::dims_create(2, 0, nullptr) == Err::dims);
}

TEST_CASE("make_cart validates", "[topology]") {
  Topology t;
  int dims[2] = {2, 3}, periods[2] = {0, 1};
  CHECK(ftmpi::make_cart(6, 2, dims, periods, &t) == Err::ok);
  CHECK(t.nnodes() == 6);
  CHECK(t.ndims() == 2);
  CHECK(ftmpi::make_cart(5, 2, dims, periods, &t) == Err::dims);
  CHECK(ftmpi::make_cart(6, -1, dims, periods, &t) == Err::dims);
  CHECK(ftmpi::make_cart(6, 2, nullptr, periods, &t) == Err::arg);
  CHECK(ftmpi::make_cart(6, 2, dims, nullptr, &t) == Err::arg);
  int zero[2] = {0, 3};
  CHECK(ftmpi::make_cart(6, 2, zero, periods, &t) == Err::dims);
  int huge[3] = {65536, 65536, 65536}, periods3[3] = {0, 0, 0};  // product overflows int
  CHECK(ftmpi::make_cart(6, 3, huge, periods3, &t) == Err::dims);
  CHECK(ftmpi::make_cart(1, 0, nullptr, nullptr, &t) == Err::ok);
  CHECK(t.nnodes() == 1);
}

TEST_CASE("cart rank <-> coords is row-major and periodic dims wrap", "[topology]") {
  Topology t = cart({3, 2, 4}, {0, 1, 0});
  int c[3], r = -1;
  REQUIRE(ftmpi::cart_coords(t, 13, c) == Err::ok);  // 13 = 1*8 + 1*4 + 1
  CHECK((c[0] == 1 && c[1] == 1 && c[2] == 1));
  for (int rank = 0; rank < 24; ++rank) {
    REQUIRE(ftmpi::cart_coords(t, rank, c) == Err::ok);
    REQUIRE(ftmpi::cart_rank(t, c, &r) == Err::ok);
    CHECK(r == rank);
  }
  CHECK(ftmpi::cart_coords(t, 24, c) == Err::rank);
  CHECK(ftmpi::cart_coords(t, -1, c) == Err::rank);
  int wrap[3] = {0, -1, 0};  // periodic dim 1: -1 -> 1
  REQUIRE(ftmpi::cart_rank(t, wrap, &r) == Err::ok);
  CHECK(r == 4);
  int far[3] = {0, 5, 0};  // 5 mod 2 = 1
  REQUIRE(ftmpi::cart_rank(t, far, &r) == Err::ok);
  CHECK(r == 4);
  int off[3] = {3, 0, 0};
  CHECK(ftmpi::cart_rank(t, off, &r) == Err::arg);
  int neg[3] = {0, 0, -1};
  CHECK(ftmpi::cart_rank(t, neg, &r) == Err::arg);
}

TEST_CASE("cart shift: PROC_NULL off non-periodic edges, wrap on periodic ones", "[topology]") {
  Topology flat = cart({3, 2}, {0, 0});
  Topology ring = cart({3, 2}, {1, 0});
  int s = 0, d = 0;
  // rank 0 = (0,0), rank 4 = (2,0)
  REQUIRE(ftmpi::cart_shift(flat, 0, 0, 1, &s, &d) == Err::ok);
  CHECK((s == MPI_PROC_NULL && d == 2));
  REQUIRE(ftmpi::cart_shift(flat, 4, 0, 1, &s, &d) == Err::ok);
  CHECK((s == 2 && d == MPI_PROC_NULL));
  REQUIRE(ftmpi::cart_shift(flat, 2, 0, 2, &s, &d) == Err::ok);
  CHECK((s == MPI_PROC_NULL && d == MPI_PROC_NULL));
  REQUIRE(ftmpi::cart_shift(ring, 0, 0, 1, &s, &d) == Err::ok);
  CHECK((s == 4 && d == 2));
  REQUIRE(ftmpi::cart_shift(ring, 0, 0, -2, &s, &d) == Err::ok);
  CHECK((s == 4 && d == 2));
  REQUIRE(ftmpi::cart_shift(ring, 0, 0, 7, &s, &d) == Err::ok);  // 7 = 1 mod 3
  CHECK((s == 4 && d == 2));
  REQUIRE(ftmpi::cart_shift(ring, 1, 1, -1, &s, &d) == Err::ok);
  CHECK((s == MPI_PROC_NULL && d == 0));
  REQUIRE(ftmpi::cart_shift(ring, 3, 1, 0, &s, &d) == Err::ok);
  CHECK((s == 3 && d == 3));
  CHECK(ftmpi::cart_shift(ring, 0, 2, 1, &s, &d) == Err::dims);
  CHECK(ftmpi::cart_shift(ring, 0, -1, 1, &s, &d) == Err::dims);
}

TEST_CASE("cart sub: one color per sub-grid, keys are sub-grid ranks", "[topology]") {
  Topology t = cart({2, 3, 2}, {1, 0, 1});
  int remain[3] = {1, 0, 1};
  std::map<int, std::set<int>> members;
  for (int r = 0; r < 12; ++r) {
    int color = -1, key = -1, c[3];
    Topology sub = ftmpi::cart_sub(t, remain, r, &color, &key);
    CHECK(sub.dims == std::vector<int>{2, 2});
    CHECK(sub.periods == std::vector<int>{1, 1});
    REQUIRE(ftmpi::cart_coords(t, r, c) == Err::ok);
    CHECK(color == c[1]);
    CHECK(key == c[0] * 2 + c[2]);
    CHECK(members[color].insert(key).second);
  }
  CHECK(members.size() == 3);
  for (auto& [color, keys] : members) CHECK(keys == std::set<int>{0, 1, 2, 3});
  int none[3] = {0, 0, 0}, color = -1, key = -1;
  Topology zero = ftmpi::cart_sub(t, none, 7, &color, &key);
  CHECK(zero.ndims() == 0);
  CHECK(zero.nnodes() == 1);
  CHECK(color == 7);
  CHECK(key == 0);
}

TEST_CASE("graphs: validation and neighbors", "[topology]") {
  // MPI-1.3 section 6.4's example
  int index[4] = {2, 3, 4, 6}, edges[6] = {1, 3, 0, 3, 0, 2};
  Topology g;
  REQUIRE(ftmpi::make_graph(4, 4, index, edges, &g) == Err::ok);
  CHECK(g.nnodes() == 4);
  CHECK(g.edges.size() == 6);
  int n = -1, nb[2] = {-1, -1};
  REQUIRE(ftmpi::graph_neighbors_count(g, 3, &n) == Err::ok);
  CHECK(n == 2);
  REQUIRE(ftmpi::graph_neighbors(g, 3, 2, nb) == Err::ok);
  CHECK((nb[0] == 0 && nb[1] == 2));
  REQUIRE(ftmpi::graph_neighbors_count(g, 1, &n) == Err::ok);
  CHECK(n == 1);
  nb[1] = -9;
  REQUIRE(ftmpi::graph_neighbors(g, 0, 1, nb) == Err::ok);  // truncated to maxneighbors
  CHECK((nb[0] == 1 && nb[1] == -9));
  CHECK(ftmpi::graph_neighbors_count(g, 4, &n) == Err::rank);
  CHECK(ftmpi::graph_neighbors(g, -1, 2, nb) == Err::rank);

  CHECK(ftmpi::make_graph(3, 4, index, edges, &g) == Err::arg);  // more nodes than processes
  CHECK(ftmpi::make_graph(4, -1, index, edges, &g) == Err::arg);
  int bad_edges[6] = {1, 3, 0, 4, 0, 2};
  CHECK(ftmpi::make_graph(4, 4, index, bad_edges, &g) == Err::arg);
  int dec_index[4] = {2, 1, 4, 6};
  CHECK(ftmpi::make_graph(4, 4, dec_index, edges, &g) == Err::arg);
  int neg_index[1] = {-1};
  CHECK(ftmpi::make_graph(4, 1, neg_index, edges, &g) == Err::arg);
  CHECK(ftmpi::make_graph(4, 4, nullptr, edges, &g) == Err::arg);
  CHECK(ftmpi::make_graph(4, 4, index, nullptr, &g) == Err::arg);
  REQUIRE(ftmpi::make_graph(4, 0, nullptr, nullptr, &g) == Err::ok);
  CHECK(g.nnodes() == 0);
}
