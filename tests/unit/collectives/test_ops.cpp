// The predefined reduction operations: MPI's op x type table, element semantics (including
// MAXLOC/MINLOC ties, wrap-around, logical results), and the pair kinds' C layouts.
#include <catch2/catch.hpp>

#include <climits>
#include <cstring>
#include <vector>

#include "ftmpi/coll/ops.h"

using namespace ftmpi::coll;

namespace {

template <class T>
std::vector<T> combine(Op op, Kind kind, std::vector<T> in, std::vector<T> inout) {
  Reduction r;
  REQUIRE(predefined_reduction(op, kind, in.size(), &r) == Status::ok);
  REQUIRE(r.elem_size == sizeof(T));
  r.combine(in.data(), inout.data(), in.size());
  return inout;
}

template <class V>
struct Pair {
  V value;
  int index;
};

const Kind kIntegers[] = {Kind::c_signed_char, Kind::c_unsigned_char, Kind::c_short,
                          Kind::c_unsigned_short, Kind::c_int, Kind::c_unsigned,
                          Kind::c_long, Kind::c_unsigned_long, Kind::c_long_long,
                          Kind::c_unsigned_long_long, Kind::int128};
const Kind kFloats[] = {Kind::c_float, Kind::c_double, Kind::c_long_double, Kind::float128};
const Kind kComplex[] = {Kind::c_float_complex, Kind::c_double_complex,
                         Kind::c_long_double_complex, Kind::float128_complex};
const Kind kPairs[] = {Kind::float_int, Kind::double_int, Kind::long_int,
                       Kind::two_int,   Kind::short_int,  Kind::long_double_int,
                       Kind::two_real,  Kind::two_double};
const Op kAllOps[] = {Op::max, Op::min, Op::sum,  Op::prod, Op::land,   Op::band,
                      Op::lor, Op::bor, Op::lxor, Op::bxor, Op::maxloc, Op::minloc};

bool in(Op op, std::initializer_list<Op> set) {
  for (Op o : set)
    if (o == op) return true;
  return false;
}

}  // namespace

TEST_CASE("op x kind table follows the MPI standard", "[ops]") {
  for (Op op : kAllOps) {
    const bool loc = in(op, {Op::maxloc, Op::minloc});
    for (Kind k : kIntegers) CHECK(op_allowed(op, k) == !loc);
    for (Kind k : kFloats) CHECK(op_allowed(op, k) == in(op, {Op::max, Op::min, Op::sum, Op::prod}));
    for (Kind k : kPairs) CHECK(op_allowed(op, k) == loc);
    for (Kind k : kComplex) CHECK(op_allowed(op, k) == in(op, {Op::sum, Op::prod}));
    CHECK(op_allowed(op, Kind::byte) == in(op, {Op::band, Op::bor, Op::bxor}));
    CHECK(op_allowed(op, Kind::c_bool) == in(op, {Op::land, Op::lor, Op::lxor}));
    CHECK_FALSE(op_allowed(op, Kind::c_char));
    CHECK_FALSE(op_allowed(op, Kind::c_wchar));
  }
}

TEST_CASE("invalid pairs are refused without touching the output", "[ops]") {
  Reduction r;
  r.elem_size = 99;
  CHECK(predefined_reduction(Op::band, Kind::c_double, 4, &r) == Status::invalid);
  CHECK(predefined_reduction(Op::sum, Kind::byte, 4, &r) == Status::invalid);
  CHECK(predefined_reduction(Op::maxloc, Kind::c_int, 4, &r) == Status::invalid);
  CHECK(predefined_reduction(Op::max, Kind::c_char, 4, &r) == Status::invalid);
  CHECK(r.elem_size == 99);
  REQUIRE(predefined_reduction(Op::sum, Kind::c_int, 4, &r) == Status::ok);
  CHECK(r.elem_size == sizeof(int));
  CHECK(r.count == 4);
  CHECK(r.commutative);
  CHECK(r.bytes() == 16);
}

TEST_CASE("pair kinds have the C struct layouts, padding included", "[ops]") {
  CHECK(kind_size(Kind::float_int) == sizeof(Pair<float>));
  CHECK(kind_size(Kind::double_int) == sizeof(Pair<double>));
  CHECK(kind_size(Kind::long_int) == sizeof(Pair<long>));
  CHECK(kind_size(Kind::two_int) == 2 * sizeof(int));
  CHECK(kind_size(Kind::short_int) == sizeof(Pair<short>));
  CHECK(kind_size(Kind::long_double_int) == sizeof(Pair<long double>));
  CHECK(kind_size(Kind::two_real) == 2 * sizeof(float));
  CHECK(kind_size(Kind::two_double) == 2 * sizeof(double));
  CHECK(kind_size(Kind::c_long_double) == sizeof(long double));
  CHECK(kind_size(Kind::c_wchar) == sizeof(wchar_t));
}

TEST_CASE("arithmetic and ordering operations", "[ops]") {
  CHECK(combine<int>(Op::sum, Kind::c_int, {1, -5, 7}, {10, 20, 30}) == std::vector<int>{11, 15, 37});
  CHECK(combine<int>(Op::max, Kind::c_int, {1, -5, 70}, {10, -20, 30}) == std::vector<int>{10, -5, 70});
  CHECK(combine<unsigned>(Op::min, Kind::c_unsigned, {1, 5}, {10, 2}) == std::vector<unsigned>{1, 2});
  CHECK(combine<double>(Op::prod, Kind::c_double, {1.5, -2}, {2, 4}) == std::vector<double>{3, -8});
  CHECK(combine<float>(Op::min, Kind::c_float, {1.5f, -2}, {2, -4}) == std::vector<float>{1.5f, -4});
  CHECK(combine<long double>(Op::sum, Kind::c_long_double, {0.25L}, {1}) == std::vector<long double>{1.25L});
  // Two's-complement wrap-around, as from C, not undefined behaviour.
  CHECK(combine<int>(Op::sum, Kind::c_int, {INT_MAX}, {1}) == std::vector<int>{INT_MIN});
  CHECK(combine<short>(Op::prod, Kind::c_short, {256}, {256}) == std::vector<short>{0});
  CHECK(combine<unsigned short>(Op::prod, Kind::c_unsigned_short, {65535}, {65535}) ==
        std::vector<unsigned short>{1});
  CHECK(combine<signed char>(Op::max, Kind::c_signed_char, {-3}, {-7}) == std::vector<signed char>{-3});
  CHECK(combine<unsigned long long>(Op::sum, Kind::c_unsigned_long_long, {~0ULL}, {2}) ==
        std::vector<unsigned long long>{1});
}

TEST_CASE("logical and bitwise operations", "[ops]") {
  CHECK(combine<int>(Op::land, Kind::c_int, {0, 3, 5, 0}, {0, 0, -2, 9}) == std::vector<int>{0, 0, 1, 0});
  CHECK(combine<int>(Op::lor, Kind::c_int, {0, 3, 5, 0}, {0, 0, -2, 9}) == std::vector<int>{0, 1, 1, 1});
  CHECK(combine<int>(Op::lxor, Kind::c_int, {0, 3, 5, 0}, {0, 0, -2, 9}) == std::vector<int>{0, 1, 0, 1});
  CHECK(combine<long>(Op::band, Kind::c_long, {0xF0F0}, {0xFF00}) == std::vector<long>{0xF000});
  CHECK(combine<long>(Op::bor, Kind::c_long, {0xF0F0}, {0xFF00}) == std::vector<long>{0xFFF0});
  CHECK(combine<unsigned char>(Op::bxor, Kind::byte, {0xF0}, {0xFF}) == std::vector<unsigned char>{0x0F});
  Reduction r;
  REQUIRE(predefined_reduction(Op::lxor, Kind::c_bool, 2, &r) == Status::ok);
  bool a[2] = {true, true}, b[2] = {true, false};
  r.combine(a, b, 2);
  CHECK_FALSE(b[0]);
  CHECK(b[1]);
}

TEST_CASE("MAXLOC and MINLOC pick the value and, on ties, the lower index", "[ops]") {
  using DI = Pair<double>;
  std::vector<DI> in = {{3.0, 7}, {1.0, 2}, {5.0, 9}, {5.0, 1}};
  std::vector<DI> inout = {{2.0, 1}, {4.0, 0}, {5.0, 3}, {5.0, 4}};
  Reduction mx, mn;
  REQUIRE(predefined_reduction(Op::maxloc, Kind::double_int, in.size(), &mx) == Status::ok);
  REQUIRE(predefined_reduction(Op::minloc, Kind::double_int, in.size(), &mn) == Status::ok);
  std::vector<DI> a = inout, b = inout;
  mx.combine(in.data(), a.data(), in.size());
  mn.combine(in.data(), b.data(), in.size());
  const int max_idx[] = {7, 0, 3, 1}, min_idx[] = {1, 2, 3, 1};
  const double max_val[] = {3, 4, 5, 5}, min_val[] = {2, 1, 5, 5};
  for (int i = 0; i < 4; ++i) {
    CHECK(a[i].value == max_val[i]);
    CHECK(a[i].index == max_idx[i]);
    CHECK(b[i].value == min_val[i]);
    CHECK(b[i].index == min_idx[i]);
  }
}

TEST_CASE("Fortran MPI_2DOUBLE_PRECISION and MPI_2REAL: the index has the value's type", "[ops]") {
  std::vector<double> in = {3.0, 7.0, 5.0, 1.0}, inout = {2.0, 1.0, 5.0, 4.0};  // (value, index)
  Reduction mx;
  REQUIRE(predefined_reduction(Op::maxloc, Kind::two_double, 2, &mx) == Status::ok);
  mx.combine(in.data(), inout.data(), 2);
  CHECK(inout == std::vector<double>{3.0, 7.0, 5.0, 1.0});
  std::vector<float> fin = {1.0f, 2.0f}, finout = {1.5f, 3.0f};
  Reduction mn;
  REQUIRE(predefined_reduction(Op::minloc, Kind::two_real, 1, &mn) == Status::ok);
  mn.combine(fin.data(), finout.data(), 1);
  CHECK(finout == std::vector<float>{1.0f, 2.0f});
  CHECK(predefined_reduction(Op::sum, Kind::two_double, 1, &mn) == Status::invalid);
}

TEST_CASE("pair results keep the receiving buffer's padding and work unaligned", "[ops]") {
  using SI = Pair<short>;  // 2 bytes of padding between value and index
  Reduction r;
  REQUIRE(predefined_reduction(Op::maxloc, Kind::short_int, 1, &r) == Status::ok);
  unsigned char in[sizeof(SI) + 1], inout[sizeof(SI) + 1];
  std::memset(in, 0x11, sizeof in);
  std::memset(inout, 0x77, sizeof inout);
  const short v_in = 9, v_out = 4;
  const int i_in = 5;
  std::memcpy(in + 1, &v_in, 2);
  std::memcpy(in + 1 + offsetof(SI, index), &i_in, 4);
  std::memcpy(inout + 1, &v_out, 2);
  r.combine(in + 1, inout + 1, 1);  // deliberately misaligned
  short v;
  int idx;
  std::memcpy(&v, inout + 1, 2);
  std::memcpy(&idx, inout + 1 + offsetof(SI, index), 4);
  CHECK(v == 9);
  CHECK(idx == 5);
  CHECK(inout[1 + 2] == 0x77);  // padding untouched
  CHECK(inout[1 + 3] == 0x77);
}

TEST_CASE("complex kinds multiply as complex numbers; 16-byte integers carry past 64 bits", "[ops]") {
  using C = __complex__ double;
  C a = 1.0 + 2.0i, b = 3.0 - 1.0i;
  auto prod = combine<C>(Op::prod, Kind::c_double_complex, {a}, {b});
  CHECK(__real__ prod[0] == 5.0);  // (1+2i)(3-i) = 3 - i + 6i + 2 = 5 + 5i
  CHECK(__imag__ prod[0] == 5.0);
  auto sum = combine<C>(Op::sum, Kind::c_double_complex, {a}, {b});
  CHECK(__real__ sum[0] == 4.0);
  CHECK(__imag__ sum[0] == 1.0);
  CHECK(kind_size(Kind::c_float_complex) == sizeof(__complex__ float));
  CHECK(kind_size(Kind::c_long_double_complex) == sizeof(__complex__ long double));
  CHECK(kind_size(Kind::float128_complex) == 32);
  const __int128 big = static_cast<__int128>(1) << 70;
  auto wide = combine<__int128>(Op::sum, Kind::int128, {big}, {big});
  CHECK(wide[0] == (static_cast<__int128>(1) << 71));
  auto wprod = combine<__int128>(Op::prod, Kind::int128, {big}, {4});
  CHECK(wprod[0] == (static_cast<__int128>(1) << 72));
}
