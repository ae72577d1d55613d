// Flattening: regular patterns become few blocks, adjacent bytes merge, contiguity is detected,
// and huge replications nest instead of exploding.
#include <catch2/catch.hpp>

#include "dt_test_util.h"

using namespace dt_test;

TEST_CASE("predefined types are one dense piece", "[layout]") {
  Types ty;
  const Datatype* d = ty.get(MPI_DOUBLE);
  REQUIRE(d->layout->blocks.size() == 1);
  CHECK(d->contiguous);
  CHECK(d->size == 8);
  const Datatype* di = ty.get(MPI_DOUBLE_INT);
  CHECK(di->size == 12);
  CHECK(di->extent == 16);
  CHECK_FALSE(di->contiguous);  // 4 bytes of padding stay home
  REQUIRE(di->layout->blocks.size() == 1);
  CHECK(di->layout->blocks[0].len == 12);
  const Datatype* si = ty.get(MPI_SHORT_INT);
  CHECK(si->size == 6);
  CHECK(si->layout->blocks.size() == 2);  // short, 2 bytes padding, int
  CHECK(ty.get(MPI_2INT)->contiguous);
}

TEST_CASE("contiguous of a basic type stays contiguous", "[layout]") {
  Types ty;
  const Datatype* t = ty.contiguous(100, ty.get(MPI_INT));
  CHECK(t->contiguous);
  CHECK(t->size == 400);
  CHECK(t->extent == 400);
  REQUIRE(t->layout->blocks.size() == 1);
  CHECK(t->layout->blocks[0].len == 400);
  const Datatype* tt = ty.contiguous(3, t);
  CHECK(tt->contiguous);
  CHECK(tt->layout->blocks.size() == 1);
}

TEST_CASE("a strided vector is one run", "[layout]") {
  Types ty;
  const Datatype* v = ty.vector(131072, 1, 2, ty.get(MPI_DOUBLE));
  CHECK_FALSE(v->contiguous);
  CHECK(v->size == 1048576);
  CHECK(v->extent == (131072 - 1) * 16 + 8);
  REQUIRE(v->layout->blocks.size() == 1);
  const ftmpi::Block& b = v->layout->blocks[0];
  CHECK(b.len == 8);
  CHECK(b.repeat == 131072);
  CHECK(b.stride == 16);
  CHECK_FALSE(b.child);
}

TEST_CASE("a vector with stride == blocklength is contiguous", "[layout]") {
  Types ty;
  const Datatype* v = ty.vector(10, 3, 3, ty.get(MPI_INT));
  CHECK(v->contiguous);
  CHECK(v->layout->blocks.size() == 1);
}

TEST_CASE("a vector of vectors with matching stride folds into one run", "[layout]") {
  Types ty;
  const Datatype* inner = ty.vector(4, 1, 2, ty.get(MPI_FLOAT));  // extent 7 floats
  const Datatype* outer = ty.hvector(5, 1, 4 * 2 * 4, inner);     // continues the pattern
  REQUIRE(outer->layout->blocks.size() == 1);
  CHECK(outer->layout->blocks[0].repeat == 20);
  CHECK(outer->layout->blocks[0].stride == 8);
}

TEST_CASE("indexed blocks that touch merge", "[layout]") {
  Types ty;
  const Datatype* t = ty.hindexed({2, 1, 3}, {0, 8, 12}, ty.get(MPI_INT));
  REQUIRE(t->layout->blocks.size() == 1);
  CHECK(t->layout->blocks[0].len == 24);
  CHECK(t->contiguous);
  // The same bytes in another order travel in that order: a run that steps backwards.
  const Datatype* r = ty.hindexed({1, 1}, {4, 0}, ty.get(MPI_INT));
  REQUIRE(r->layout->blocks.size() == 1);
  CHECK(r->layout->blocks[0].stride == -4);
  CHECK_FALSE(r->contiguous);
  const int src[2] = {10, 20};
  int packed[2];
  ftmpi::pack(src, 1, *r, packed);
  CHECK(packed[0] == 20);
  CHECK(packed[1] == 10);
}

TEST_CASE("a struct with a hole keeps two pieces, then replicates them as runs", "[layout]") {
  Types ty;
  const Datatype* s =
      ty.structure({1, 1}, {0, 8}, {ty.get(MPI_INT), ty.get(MPI_DOUBLE)});
  CHECK(s->size == 12);
  CHECK(s->extent == 16);
  CHECK(s->layout->blocks.size() == 2);
  const Datatype* c = ty.contiguous(3, s);
  CHECK(c->layout->blocks.size() <= 6);
  CHECK(c->size == 36);
}

TEST_CASE("a huge replication of a multi-piece type nests", "[layout]") {
  Types ty;
  const Datatype* s =
      ty.structure({1, 1}, {0, 8}, {ty.get(MPI_INT), ty.get(MPI_DOUBLE)});
  const Datatype* c = ty.contiguous(1000000, s);
  REQUIRE(c->layout->blocks.size() == 1);
  CHECK(c->layout->blocks[0].child);
  CHECK(c->layout->blocks[0].repeat == 1000000);
  CHECK(c->size == 12000000);
  CHECK(c->signature->items.size() <= 2);
  CHECK(c->signature->elements == 2000000);
}

TEST_CASE("true extent ignores markers and padding", "[layout]") {
  Types ty;
  const Datatype* s = ty.structure({1, 1, 1}, {-8, 4, 40},
                                   {ty.get(MPI_LB), ty.get(MPI_INT), ty.get(MPI_UB)});
  CHECK(s->true_lb == 4);
  CHECK(s->true_extent == 4);
  CHECK(s->lb == -8);
  CHECK(s->extent == 48);
}
