// MPI-1 bound rules: lb/ub/extent of every constructor, MPI_LB/MPI_UB markers (sticky through
// further constructors), struct alignment padding, resized types, negative strides.
#include <catch2/catch.hpp>

#include "dt_test_util.h"

using namespace dt_test;

TEST_CASE("vector bounds", "[bounds]") {
  Types ty;
  const Datatype* v = ty.vector(3, 2, 5, ty.get(MPI_INT));
  CHECK(v->lb == 0);
  CHECK(v->extent == (2 * 5 + 2) * 4);
  CHECK(v->size == 24);
  const Datatype* n = ty.vector(3, 1, -2, ty.get(MPI_INT));  // elements at 0, -8, -16
  CHECK(n->lb == -16);
  CHECK(n->extent == 20);
  CHECK(n->true_lb == -16);
}

TEST_CASE("hindexed bounds with negative displacements", "[bounds]") {
  Types ty;
  const Datatype* t = ty.hindexed({1, 2}, {-12, 20}, ty.get(MPI_INT));
  CHECK(t->lb == -12);
  CHECK(t->ub() == 28);
  CHECK(t->extent == 40);
  CHECK(t->size == 12);
}

TEST_CASE("struct extent is padded to the strictest alignment", "[bounds]") {
  Types ty;
  struct S { double d; char c; };
  const Datatype* s = ty.structure({1, 1}, {0, 8}, {ty.get(MPI_DOUBLE), ty.get(MPI_CHAR)});
  CHECK(s->size == 9);
  CHECK(s->extent == static_cast<MPI_Aint>(sizeof(S)));
  struct C { char a; char b[3]; };
  const Datatype* c = ty.structure({1, 3}, {0, 1}, {ty.get(MPI_CHAR), ty.get(MPI_CHAR)});
  CHECK(c->extent == static_cast<MPI_Aint>(sizeof(C)));
}

TEST_CASE("MPI_UB and MPI_LB set the bounds explicitly", "[bounds]") {
  Types ty;
  const Datatype* s = ty.structure({1, 1, 1}, {-4, 0, 20},
                                   {ty.get(MPI_LB), ty.get(MPI_DOUBLE), ty.get(MPI_UB)});
  CHECK(s->lb == -4);
  CHECK(s->ub() == 20);
  CHECK(s->extent == 24);  // no alignment padding with explicit bounds
  CHECK(s->size == 8);
  // Replication steps by the marked extent...
  const Datatype* c = ty.contiguous(2, s);
  CHECK(c->lb == -4);
  CHECK(c->extent == 48);
  REQUIRE(c->layout->blocks.size() == 1);
  CHECK(c->layout->blocks[0].stride == 24);
  // ...and markers stay sticky: a struct of it with a data field further out keeps them.
  const Datatype* t = ty.structure({1, 1}, {0, 100}, {s, ty.get(MPI_INT)});
  CHECK(t->lb == -4);
  CHECK(t->ub() == 20);
}

TEST_CASE("an MPI_UB marker alone extends the extent past the data", "[bounds]") {
  Types ty;
  const Datatype* s = ty.structure({1, 1}, {0, 32}, {ty.get(MPI_INT), ty.get(MPI_UB)});
  CHECK(s->lb == 0);
  CHECK(s->extent == 32);
  const Datatype* v = ty.vector(2, 1, 1, s);  // stride counts in marked extents
  CHECK(v->extent == 64);
}

TEST_CASE("empty types take no part in bounds", "[bounds]") {
  Types ty;
  const Datatype* empty = ty.contiguous(0, ty.get(MPI_INT));
  CHECK(empty->size == 0);
  CHECK(empty->extent == 0);
  CHECK_FALSE(empty->has_entries);
  const Datatype* s = ty.structure({1, 1}, {-100, 8}, {empty, ty.get(MPI_INT)});
  CHECK(s->lb == 8);
  CHECK(s->extent == 4);
}

TEST_CASE("resized types", "[bounds]") {
  Types ty;
  const Datatype* r = ty.add(ftmpi::build_resized(*ty.get(MPI_INT), -4, 16));
  CHECK(r->lb == -4);
  CHECK(r->extent == 16);
  CHECK(r->size == 4);
  CHECK_FALSE(r->contiguous);
  const Datatype* c = ty.contiguous(4, r);  // ints at 0, 16, 32, 48
  CHECK(c->lb == -4);
  CHECK(c->extent == 64);
  REQUIRE(c->layout->blocks.size() == 1);
  CHECK(c->layout->blocks[0].stride == 16);
  CHECK(c->combiner == MPI_COMBINER_CONTIGUOUS);
  CHECK(r->combiner == MPI_COMBINER_RESIZED);
}
