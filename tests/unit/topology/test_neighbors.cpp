// Neighbour lists of the neighbourhood collectives (topology_neighbors.cpp): Cartesian order
// (-1 then +1 per dimension, MPI_PROC_NULL off a non-periodic edge, the same process twice in a
// periodic dimension of extent 1 or 2), graphs in MPI_Graph_neighbors order, distributed graphs
// as given with repeated edges; MPI_Dist_graph_create_adjacent's argument checks and classes.
#include <catch2/catch.hpp>

#include <vector>

#include "topology.h"

using ftmpi::Err;
using ftmpi::Topology;

namespace {

Topology cart(std::vector<int> dims, std::vector<int> periods) {
  Topology t;
  REQUIRE(ftmpi::make_cart(64, static_cast<int>(dims.size()), dims.data(), periods.data(), &t) ==
          Err::ok);
  return t;
}

}  // namespace

TEST_CASE("Cartesian neighbours: -1 then +1 per dimension, both sides", "[topology]") {
  // 3 x 4, periodic in the second dimension only; rank 5 is (1, 1).
  const Topology t = cart({3, 4}, {0, 1});
  ftmpi::Neighbors n = ftmpi::neighbors_of(t, 5);
  CHECK(n.cartesian);
  CHECK(n.sources == std::vector<int>{1, 9, 4, 6});
  CHECK(n.destinations == n.sources);
  // rank 0 = (0, 0): no -1 neighbour in the first dimension, wraps in the second
  n = ftmpi::neighbors_of(t, 0);
  CHECK(n.sources == std::vector<int>{MPI_PROC_NULL, 4, 3, 1});
  // extent 2 and 1, periodic: the same process on both sides
  const Topology small = cart({2, 1}, {1, 1});
  n = ftmpi::neighbors_of(small, 1);
  CHECK(n.sources == std::vector<int>{0, 0, 1, 1});
  // no dimensions: no neighbours
  const Topology none = cart({}, {});
  CHECK(ftmpi::neighbors_of(none, 0).sources.empty());
}

TEST_CASE("Graph neighbours in MPI_Graph_neighbors order", "[topology]") {
  const std::vector<int> index{2, 3, 5}, edges{2, 1, 0, 0, 0};
  Topology t;
  REQUIRE(ftmpi::make_graph(3, 3, index.data(), edges.data(), &t) == Err::ok);
  ftmpi::Neighbors n = ftmpi::neighbors_of(t, 0);
  CHECK_FALSE(n.cartesian);
  CHECK(n.sources == std::vector<int>{2, 1});
  CHECK(n.destinations == n.sources);
  CHECK(ftmpi::neighbors_of(t, 2).sources == std::vector<int>{0, 0});  // repeated edge kept
}

TEST_CASE("Distributed graph: edges as given, weights, argument classes", "[topology]") {
  const std::vector<int> src{3, 1, 3}, sw{5, 6, 7}, dst{0}, dw{9};
  Topology t;
  REQUIRE(ftmpi::make_dist_graph(4, 3, src.data(), sw.data(), 1, dst.data(), dw.data(), &t) ==
          Err::ok);
  CHECK(t.kind == MPI_DIST_GRAPH);
  CHECK(t.nnodes() == 4);
  CHECK(t.weighted);
  CHECK(t.source_weights == sw);
  ftmpi::Neighbors n = ftmpi::neighbors_of(t, 2);
  CHECK(n.sources == src);
  CHECK(n.destinations == dst);

  REQUIRE(ftmpi::make_dist_graph(4, 1, src.data(), MPI_UNWEIGHTED, 1, dst.data(), MPI_UNWEIGHTED,
                                 &t) == Err::ok);
  CHECK_FALSE(t.weighted);
  CHECK(t.source_weights.empty());
  // no edges: MPI_WEIGHTS_EMPTY makes a weighted graph, NULL arrays are fine
  REQUIRE(ftmpi::make_dist_graph(4, 0, nullptr, MPI_WEIGHTS_EMPTY, 0, nullptr, MPI_WEIGHTS_EMPTY,
                                 &t) == Err::ok);
  CHECK(t.weighted);
  CHECK(ftmpi::neighbors_of(t, 0).sources.empty());

  CHECK(ftmpi::make_dist_graph(4, -1, nullptr, MPI_UNWEIGHTED, 0, nullptr, MPI_UNWEIGHTED, &t) ==
        Err::arg);
  CHECK(ftmpi::make_dist_graph(4, 0, nullptr, MPI_UNWEIGHTED, -2, nullptr, MPI_UNWEIGHTED, &t) ==
        Err::arg);
  const std::vector<int> far{4};
  CHECK(ftmpi::make_dist_graph(4, 1, far.data(), MPI_UNWEIGHTED, 0, nullptr, MPI_UNWEIGHTED, &t) ==
        Err::rank);
  const std::vector<int> neg{-1};
  CHECK(ftmpi::make_dist_graph(4, 0, nullptr, MPI_UNWEIGHTED, 1, neg.data(), MPI_UNWEIGHTED, &t) ==
        Err::rank);
  CHECK(ftmpi::make_dist_graph(4, 1, src.data(), MPI_UNWEIGHTED, 1, dst.data(), dw.data(), &t) ==
        Err::topology);
  CHECK(ftmpi::make_dist_graph(4, 1, nullptr, sw.data(), 0, nullptr, nullptr, &t) == Err::arg);
  CHECK(ftmpi::make_dist_graph(4, 1, src.data(), MPI_WEIGHTS_EMPTY, 0, nullptr, nullptr, &t) ==
        Err::arg);
  const std::vector<int> negw{-3};
  CHECK(ftmpi::make_dist_graph(4, 1, src.data(), negw.data(), 0, nullptr, nullptr, &t) == Err::arg);
}
