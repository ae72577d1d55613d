// MPI_Get_elements and MPI_Get_count arithmetic: whole elements, partial elements, partial basic
// elements (MPI_UNDEFINED), nested signatures.
#include <catch2/catch.hpp>

#include "dt_test_util.h"

using namespace dt_test;
using ftmpi::basic_element_count;
using ftmpi::element_count;

TEST_CASE("elements of a homogeneous vector", "[elements]") {
  Types ty;
  const Datatype* v = ty.vector(4, 1, 2, ty.get(MPI_DOUBLE));
  CHECK(v->signature->uniform_kind == MPI_DOUBLE);
  CHECK(basic_element_count(*v, 0) == 0);
  CHECK(basic_element_count(*v, 24) == 3);
  CHECK(basic_element_count(*v, 64) == 8);
  CHECK(basic_element_count(*v, 12) == MPI_UNDEFINED);  // ends inside a double
  CHECK(element_count(*v, 64) == 2);
  CHECK(element_count(*v, 24) == MPI_UNDEFINED);
}

TEST_CASE("elements of a mixed struct, partially received", "[elements]") {
  Types ty;
  // {int, double, double, char}: 4 basic elements in 21 bytes
  const Datatype* s = ty.structure({1, 2, 1}, {0, 8, 24},
                                   {ty.get(MPI_INT), ty.get(MPI_DOUBLE), ty.get(MPI_CHAR)});
  CHECK(s->signature->uniform_kind == MPI_DATATYPE_NULL);
  CHECK(s->size == 21);
  CHECK(basic_element_count(*s, 4) == 1);
  CHECK(basic_element_count(*s, 12) == 2);
  CHECK(basic_element_count(*s, 20) == 3);
  CHECK(basic_element_count(*s, 21) == 4);
  CHECK(basic_element_count(*s, 21 + 4 + 8) == 6);
  CHECK(basic_element_count(*s, 6) == MPI_UNDEFINED);
  CHECK(element_count(*s, 42) == 2);
}

TEST_CASE("elements through a nested signature", "[elements]") {
  Types ty;
  const Datatype* s = ty.structure({1, 1}, {0, 8}, {ty.get(MPI_INT), ty.get(MPI_DOUBLE)});
  const Datatype* c = ty.contiguous(100000, s);  // nests (beyond the flatten limit)
  CHECK(c->signature->elements == 200000);
  CHECK(basic_element_count(*c, 12 * 777 + 4) == 777 * 2 + 1);
  CHECK(basic_element_count(*c, 12 * 777 + 8) == MPI_UNDEFINED);
  CHECK(basic_element_count(*c, c->size * 2) == 400000);
}

TEST_CASE("pair types count two basic elements each", "[elements]") {
  Types ty;
  CHECK(basic_element_count(*ty.get(MPI_DOUBLE_INT), 24) == 4);
  CHECK(element_count(*ty.get(MPI_DOUBLE_INT), 24) == 2);
  CHECK(ty.get(MPI_2INT)->signature->uniform_kind == MPI_INT);
}

TEST_CASE("zero-size types", "[elements]") {
  Types ty;
  const Datatype* e = ty.contiguous(0, ty.get(MPI_INT));
  CHECK(basic_element_count(*e, 0) == 0);
  CHECK(element_count(*e, 0) == 0);
  CHECK(element_count(*e, 4) == MPI_UNDEFINED);
}
