// Group algebra and the group table: order of results, rank validation with the right error
// classes, translate/compare, reference counting and MPI_GROUP_EMPTY.
#include <catch2/catch.hpp>

#include "group.h"

using ftmpi::Err;
using ftmpi::Group;

namespace {

Group make(std::vector<std::uint32_t> procs, std::uint32_t me) {
  Group g;
  g.procs = std::move(procs);
  g.my_proc = me;
  for (std::size_t r = 0; r < g.procs.size(); ++r) {
    if (g.procs[r] == me) g.my_rank = static_cast<int>(r);
  }
  return g;
}

using Procs = std::vector<std::uint32_t>;

}  // namespace

TEST_CASE("union, intersection, difference keep MPI's order", "[group]") {
  Group a = make({5, 1, 3, 7}, 1), b = make({7, 2, 5, 9}, 1);
  CHECK(ftmpi::group_union(a, b) == Procs{5, 1, 3, 7, 2, 9});
  CHECK(ftmpi::group_intersection(a, b) == Procs{5, 7});
  CHECK(ftmpi::group_intersection(b, a) == Procs{7, 5});
  CHECK(ftmpi::group_difference(a, b) == Procs{1, 3});
  CHECK(ftmpi::group_difference(b, b).empty());
}

TEST_CASE("compare", "[group]") {
  CHECK(ftmpi::group_compare(make({1, 2, 3}, 0), make({1, 2, 3}, 0)) == MPI_IDENT);
  CHECK(ftmpi::group_compare(make({1, 2, 3}, 0), make({3, 1, 2}, 0)) == MPI_SIMILAR);
  CHECK(ftmpi::group_compare(make({1, 2, 3}, 0), make({1, 2}, 0)) == MPI_UNEQUAL);
  CHECK(ftmpi::group_compare(make({1, 2, 3}, 0), make({1, 2, 4}, 0)) == MPI_UNEQUAL);
}

TEST_CASE("incl and excl validate ranks", "[group]") {
  Group g = make({10, 11, 12, 13, 14}, 12);
  Procs out;
  const int r1[] = {4, 0, 2};
  REQUIRE(ftmpi::group_incl(g, 3, r1, &out) == Err::ok);
  CHECK(out == Procs{14, 10, 12});
  REQUIRE(ftmpi::group_excl(g, 3, r1, &out) == Err::ok);
  CHECK(out == Procs{11, 13});
  const int bad[] = {1, 5};
  CHECK(ftmpi::group_incl(g, 2, bad, &out) == Err::rank);
  const int neg[] = {-1};
  CHECK(ftmpi::group_excl(g, 1, neg, &out) == Err::rank);
  const int dup[] = {2, 2};
  CHECK(ftmpi::group_incl(g, 2, dup, &out) == Err::rank);
  CHECK(ftmpi::group_incl(g, -1, r1, &out) == Err::arg);
  CHECK(ftmpi::group_incl(g, 6, r1, &out) == Err::arg);
  REQUIRE(ftmpi::group_incl(g, 0, nullptr, &out) == Err::ok);
  CHECK(out.empty());
}

TEST_CASE("ranges expand in order and are validated", "[group]") {
  Group g = make({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0);
  std::vector<int> ranks;
  const int r[][3] = {{0, 8, 3}, {9, 5, -2}, {4, 4, 1}};
  REQUIRE(ftmpi::group_range_ranks(g, 3, r, &ranks) == Err::ok);
  CHECK(ranks == std::vector<int>{0, 3, 6, 9, 7, 5, 4});
  const int zero[][3] = {{0, 5, 0}};
  CHECK(ftmpi::group_range_ranks(g, 1, zero, &ranks) == Err::arg);
  const int out_of[][3] = {{0, 10, 1}};
  CHECK(ftmpi::group_range_ranks(g, 1, out_of, &ranks) == Err::rank);
  const int overlap[][3] = {{0, 4, 2}, {4, 6, 1}};
  CHECK(ftmpi::group_range_ranks(g, 2, overlap, &ranks) == Err::rank);
  const int away[][3] = {{5, 1, 1}};
  CHECK(ftmpi::group_range_ranks(g, 1, away, &ranks) == Err::arg);
}

TEST_CASE("translate ranks", "[group]") {
  Group a = make({4, 5, 6, 7}, 5), b = make({7, 6, 9}, 5);
  const int in[] = {0, 3, MPI_PROC_NULL, 2};
  int out[4];
  REQUIRE(ftmpi::group_translate(a, 4, in, b, out) == Err::ok);
  CHECK(out[0] == MPI_UNDEFINED);
  CHECK(out[1] == 0);
  CHECK(out[2] == MPI_PROC_NULL);
  CHECK(out[3] == 1);
  const int bad[] = {4};
  CHECK(ftmpi::group_translate(a, 1, bad, b, out) == Err::rank);
  CHECK(ftmpi::group_translate(a, -2, bad, b, out) == Err::arg);
}

TEST_CASE("the table: my rank, empty results, reference counting", "[group]") {
  ftmpi::GroupTable t;
  const Group* g = nullptr;
  REQUIRE(t.lookup(MPI_GROUP_EMPTY, &g) == Err::ok);
  CHECK(g->size() == 0);
  CHECK(g->my_rank == MPI_UNDEFINED);
  CHECK(t.lookup(MPI_GROUP_NULL, &g) == Err::group);
  CHECK(t.lookup(99, &g) == Err::group);

  MPI_Group h = t.create({3, 8, 2}, 8);
  REQUIRE(t.lookup(h, &g) == Err::ok);
  CHECK(g->my_rank == 1);
  CHECK(t.create({}, 8) == MPI_GROUP_EMPTY);
  MPI_Group outside = t.create({1, 2}, 8);
  REQUIRE(t.lookup(outside, &g) == Err::ok);
  CHECK(g->my_rank == MPI_UNDEFINED);

  t.retain(h);
  REQUIRE(t.release(h) == Err::ok);
  CHECK(t.lookup(h, &g) == Err::ok);  // still held
  REQUIRE(t.release(h) == Err::ok);
  CHECK(t.lookup(h, &g) == Err::group);
  CHECK(t.release(h) == Err::group);
  CHECK(t.release(MPI_GROUP_EMPTY) == Err::ok);
  CHECK(t.live() == 1);
  CHECK(t.create({4}, 4) == h);  // the slot is reused
}
