// Handle lifetime: commit rules, freeing predefined types, freeing a type that a pending
// operation still holds (acquire/release), handle reuse only once nothing refers to a record.
#include <catch2/catch.hpp>

#include "dt_test_util.h"

using namespace dt_test;
using ftmpi::Err;

TEST_CASE("uncommitted types are usable for construction, not for communication", "[table]") {
  ftmpi::DatatypeTable table;
  const Datatype* i = nullptr;
  REQUIRE(table.lookup(MPI_INT, &i) == Err::ok);
  MPI_Datatype h = table.add(ftmpi::build_contiguous(4, *i));
  const Datatype* t = nullptr;
  CHECK(table.find(h, &t) == Err::ok);
  CHECK(table.lookup(h, &t) == Err::type);
  CHECK(table.commit(h) == Err::ok);
  CHECK(table.lookup(h, &t) == Err::ok);
  CHECK(table.lookup(MPI_DATATYPE_NULL, &t) == Err::type);
  CHECK(table.lookup(12345, &t) == Err::type);
  CHECK(table.free(MPI_INT) == Err::type);
}

TEST_CASE("a type freed while acquired lives until released", "[table]") {
  ftmpi::DatatypeTable table;
  const Datatype* d = nullptr;
  REQUIRE(table.lookup(MPI_DOUBLE, &d) == Err::ok);
  MPI_Datatype h = table.add(ftmpi::build_hvector(8, 1, 16, *d, MPI_COMBINER_HVECTOR));
  REQUIRE(table.commit(h) == Err::ok);
  const Datatype* held = nullptr;
  REQUIRE(table.acquire(h, &held) == Err::ok);
  REQUIRE(table.free(h) == Err::ok);
  const Datatype* t = nullptr;
  CHECK(table.lookup(h, &t) == Err::type);  // the user's handle is gone at once
  CHECK(table.free(h) == Err::type);        // double free is caught
  CHECK(table.live_derived() == 1);

  // The slot is not reused while held: a new type gets another handle.
  MPI_Datatype other = table.add(ftmpi::build_contiguous(2, *d));
  CHECK(other != h);

  // The held record is intact and usable for the pending transfer.
  double src[16], dst[8];
  for (int k = 0; k < 16; ++k) src[k] = k;
  CHECK(ftmpi::pack(src, 1, *held, dst) == 64);
  CHECK(dst[7] == 14.0);

  table.release(held);
  CHECK(table.live_derived() == 1);  // only `other`
  MPI_Datatype again = table.add(ftmpi::build_contiguous(3, *d));
  CHECK(again == h);  // now the slot is free for reuse
}

TEST_CASE("predefined types need no reference counting", "[table]") {
  ftmpi::DatatypeTable table;
  const Datatype* t = nullptr;
  REQUIRE(table.acquire(MPI_INT, &t) == Err::ok);
  table.release(t);
  table.release(t);
  CHECK(table.lookup(MPI_INT, &t) == Err::ok);
}

TEST_CASE("a derived type outlives nothing it was built from", "[table]") {
  ftmpi::DatatypeTable table;
  const Datatype* d = nullptr;
  REQUIRE(table.lookup(MPI_DOUBLE, &d) == Err::ok);
  MPI_Datatype inner = table.add(ftmpi::build_hvector(4, 1, 16, *d, MPI_COMBINER_HVECTOR));
  const Datatype* in = nullptr;
  REQUIRE(table.find(inner, &in) == Err::ok);
  MPI_Datatype outer = table.add(ftmpi::build_contiguous(1000, *in));
  REQUIRE(table.free(inner) == Err::ok);
  REQUIRE(table.commit(outer) == Err::ok);
  const Datatype* out = nullptr;
  REQUIRE(table.lookup(outer, &out) == Err::ok);
  std::vector<double> src(8000), dst(4000);
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<double>(k);
  CHECK(ftmpi::pack(src.data(), 1, *out, dst.data()) == 32000);
  CHECK(dst[3999] == static_cast<double>(999 * 7 + 6));
}
