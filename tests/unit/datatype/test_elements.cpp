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

// MPI_Status_set_elements' inverse: the bytes of the first n basic elements, checked against
// the forward count for every n over three elements, and near the 2^63-byte limit.
TEST_CASE("bytes of the first n basic elements", "[elements]") {
  Types ty;
  const Datatype* s = ty.structure({1, 2, 1}, {0, 8, 24},
                                   {ty.get(MPI_INT), ty.get(MPI_DOUBLE), ty.get(MPI_CHAR)});
  const Datatype* nested = ty.vector(3, 2, 5, s);
  for (const Datatype* t : {s, nested}) {
    for (std::size_t n = 0; n <= 3 * t->signature->elements; ++n) {
      std::size_t bytes = 0;
      REQUIRE(ftmpi::signature_bytes(*t->signature, n, 1u << 20, &bytes));
      CHECK(ftmpi::basic_element_count_x(*t, bytes) == static_cast<long long>(n));
      if (bytes > 0) CHECK(ftmpi::basic_element_count_x(*t, bytes - 1) != static_cast<long long>(n));
    }
  }
  std::size_t bytes = 0;
  const std::size_t limit = static_cast<std::size_t>(INT64_MAX);
  CHECK(ftmpi::signature_bytes(*ty.get(MPI_BYTE)->signature, limit, limit, &bytes));
  CHECK(bytes == limit);
  CHECK_FALSE(ftmpi::signature_bytes(*ty.get(MPI_INT)->signature, std::size_t{1} << 62, limit, &bytes));
  CHECK_FALSE(ftmpi::signature_bytes(*s->signature, 4, 20, &bytes));  // 21 bytes > 20
}
