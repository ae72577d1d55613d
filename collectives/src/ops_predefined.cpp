// The predefined MPI reduction operations, one instantiated loop per (operation, C type),
// and the table of which operation MPI allows on which kind (MPI-1 4.9.2 / MPI-2.2 5.9.2).
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "ftmpi/coll/ops.h"

namespace ftmpi::coll {
namespace {

using RawFn = void (*)(const void*, void*, std::size_t);

// Element access through memcpy: the MPI layer's packed buffers and our scratch offsets need
// not be aligned for T, and the compiler turns these into plain loads and stores.
template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(unsigned char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Signed overflow is undefined in C++, but MPI users expect two's-complement wrap-around as
// from their C compiler, so integer sums and products are computed unsigned.
template <class T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && sizeof(T) <= sizeof(unsigned long long)) {
    // unsigned short * unsigned short promotes to int and may overflow it; go via unsigned
    // long long, wide enough for every integer kind up to 8 bytes.
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<unsigned long long>(static_cast<U>(a)) *
                                         static_cast<unsigned long long>(static_cast<U>(b))));
  } else if constexpr (std::is_integral_v<T>) {  // __int128: wider than int, no promotion
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

struct Max { template <class T> T operator()(T a, T b) const { return b < a ? a : b; } };
struct Min { template <class T> T operator()(T a, T b) const { return a < b ? a : b; } };
struct Sum { template <class T> T operator()(T a, T b) const { return wrap_add(a, b); } };
struct Prod { template <class T> T operator()(T a, T b) const { return wrap_mul(a, b); } };
struct Land { template <class T> T operator()(T a, T b) const { return T((a != 0) && (b != 0)); } };
struct Lor { template <class T> T operator()(T a, T b) const { return T((a != 0) || (b != 0)); } };
struct Lxor { template <class T> T operator()(T a, T b) const { return T((a != 0) != (b != 0)); } };
struct Band { template <class T> T operator()(T a, T b) const { return T(a & b); } };
struct Bor { template <class T> T operator()(T a, T b) const { return T(a | b); } };
struct Bxor { template <class T> T operator()(T a, T b) const { return T(a ^ b); } };

// The element loops are what a large reduction spends its CPU time on, so they are compiled at
// -O3 (vectorized; see CMakeLists.txt) and, on x86-64, also for AVX2, picked at load time.
// Vector lanes compute each element exactly as the scalar loop does: results are identical.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FTMPI_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define FTMPI_VECTOR_CLONES
#endif

template <class T, class F>
FTMPI_VECTOR_CLONES void elementwise(const void* in, void* inout, std::size_t count) {
  const auto* a = static_cast<const unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (std::size_t i = 0; i < count; ++i, a += sizeof(T), b += sizeof(T)) {
    store<T>(b, F{}(load<T>(a), load<T>(b)));
  }
}

// The pair kinds, laid out exactly like the C structs MPICH describes (padding included).
// Fortran's MPI_2REAL and MPI_2DOUBLE_PRECISION keep the index in the value's type.
template <class V, class I = int>
struct Pair {
  V value;
  I index;
};

// MAXLOC/MINLOC (MPI-1 4.9.3): the better value wins; on a tie the smaller index, which is
// what makes the operation commutative. Only the two fields are written, never padding.
template <class V, bool kMax, class I = int>
void pair_loc(const void* in, void* inout, std::size_t count) {
  using P = Pair<V, I>;  // (offsetof is a macro: no comma in its type argument)
  constexpr std::size_t kSize = sizeof(P);
  constexpr std::size_t kIdx = offsetof(P, index);
  const auto* a = static_cast<const unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (std::size_t i = 0; i < count; ++i, a += kSize, b += kSize) {
    const V av = load<V>(a), bv = load<V>(b);
    const I ai = load<I>(a + kIdx), bi = load<I>(b + kIdx);
    const bool a_better = kMax ? (bv < av) : (av < bv);
    if (a_better) {
      store<V>(b, av);
      store<I>(b + kIdx, ai);
    } else if (!(av < bv) && !(bv < av) && ai < bi) {
      store<I>(b + kIdx, ai);
    }
  }
}

// C integer kinds: every operation except MAXLOC/MINLOC.
template <class T>
RawFn integer_fn(Op op) {
  switch (op) {
    case Op::max: return &elementwise<T, Max>;
    case Op::min: return &elementwise<T, Min>;
    case Op::sum: return &elementwise<T, Sum>;
    case Op::prod: return &elementwise<T, Prod>;
    case Op::land: return &elementwise<T, Land>;
    case Op::lor: return &elementwise<T, Lor>;
    case Op::lxor: return &elementwise<T, Lxor>;
    case Op::band: return &elementwise<T, Band>;
    case Op::bor: return &elementwise<T, Bor>;
    case Op::bxor: return &elementwise<T, Bxor>;
    default: return nullptr;
  }
}

// Floating point: arithmetic and ordering only.
template <class T>
RawFn floating_fn(Op op) {
  switch (op) {
    case Op::max: return &elementwise<T, Max>;
    case Op::min: return &elementwise<T, Min>;
    case Op::sum: return &elementwise<T, Sum>;
    case Op::prod: return &elementwise<T, Prod>;
    default: return nullptr;
  }
}

// Complex: sum and product only. GNU __complex__ has C's _Complex layout {re, im} and C's
// multiplication (Annex G: the infinities and NaNs that a naive formula would lose), for the
// quad kind too, which std::complex does not cover.
template <class C>
RawFn complex_fn(Op op) {
  switch (op) {
    case Op::sum: return &elementwise<C, Sum>;
    case Op::prod: return &elementwise<C, Prod>;
    default: return nullptr;
  }
}

RawFn bool_fn(Op op) {
  switch (op) {
    case Op::land: return &elementwise<bool, Land>;
    case Op::lor: return &elementwise<bool, Lor>;
    case Op::lxor: return &elementwise<bool, Lxor>;
    default: return nullptr;
  }
}

RawFn byte_fn(Op op) {
  switch (op) {
    case Op::band: return &elementwise<unsigned char, Band>;
    case Op::bor: return &elementwise<unsigned char, Bor>;
    case Op::bxor: return &elementwise<unsigned char, Bxor>;
    default: return nullptr;
  }
}

template <class V, class I = int>
RawFn pair_fn(Op op) {
  if (op == Op::maxloc) return &pair_loc<V, true, I>;
  if (op == Op::minloc) return &pair_loc<V, false, I>;
  return nullptr;
}

RawFn lookup(Op op, Kind kind) {
  switch (kind) {
    case Kind::c_char:
    case Kind::c_wchar: return nullptr;
    case Kind::c_signed_char: return integer_fn<signed char>(op);
    case Kind::c_unsigned_char: return integer_fn<unsigned char>(op);
    case Kind::c_short: return integer_fn<short>(op);
    case Kind::c_unsigned_short: return integer_fn<unsigned short>(op);
    case Kind::c_int: return integer_fn<int>(op);
    case Kind::c_unsigned: return integer_fn<unsigned>(op);
    case Kind::c_long: return integer_fn<long>(op);
    case Kind::c_unsigned_long: return integer_fn<unsigned long>(op);
    case Kind::c_long_long: return integer_fn<long long>(op);
    case Kind::c_unsigned_long_long: return integer_fn<unsigned long long>(op);
    case Kind::c_float: return floating_fn<float>(op);
    case Kind::c_double: return floating_fn<double>(op);
    case Kind::c_long_double: return floating_fn<long double>(op);
    case Kind::int128: return integer_fn<__int128>(op);
    case Kind::float128: return floating_fn<__float128>(op);
    case Kind::c_float_complex: return complex_fn<__complex__ float>(op);
    case Kind::c_double_complex: return complex_fn<__complex__ double>(op);
    case Kind::c_long_double_complex: return complex_fn<__complex__ long double>(op);
    case Kind::float128_complex: return complex_fn<__complex__ __float128>(op);
    case Kind::c_bool: return bool_fn(op);
    case Kind::byte: return byte_fn(op);
    case Kind::float_int: return pair_fn<float>(op);
    case Kind::double_int: return pair_fn<double>(op);
    case Kind::long_int: return pair_fn<long>(op);
    case Kind::two_int: return pair_fn<int>(op);
    case Kind::short_int: return pair_fn<short>(op);
    case Kind::long_double_int: return pair_fn<long double>(op);
    case Kind::two_real: return pair_fn<float, float>(op);
    case Kind::two_double: return pair_fn<double, double>(op);
  }
  return nullptr;
}

}  // namespace

std::size_t kind_size(Kind kind) {
  switch (kind) {
    case Kind::c_char: return sizeof(char);
    case Kind::c_signed_char: return sizeof(signed char);
    case Kind::c_unsigned_char: return sizeof(unsigned char);
    case Kind::c_short: return sizeof(short);
    case Kind::c_unsigned_short: return sizeof(unsigned short);
    case Kind::c_int: return sizeof(int);
    case Kind::c_unsigned: return sizeof(unsigned);
    case Kind::c_long: return sizeof(long);
    case Kind::c_unsigned_long: return sizeof(unsigned long);
    case Kind::c_long_long: return sizeof(long long);
    case Kind::c_unsigned_long_long: return sizeof(unsigned long long);
    case Kind::c_float: return sizeof(float);
    case Kind::c_double: return sizeof(double);
    case Kind::c_long_double: return sizeof(long double);
    case Kind::int128: return sizeof(__int128);
    case Kind::float128: return sizeof(__float128);
    case Kind::c_float_complex: return 2 * sizeof(float);
    case Kind::c_double_complex: return 2 * sizeof(double);
    case Kind::c_long_double_complex: return 2 * sizeof(long double);
    case Kind::float128_complex: return 2 * sizeof(__float128);
    case Kind::c_wchar: return sizeof(wchar_t);
    case Kind::c_bool: return sizeof(bool);
    case Kind::byte: return 1;
    case Kind::float_int: return sizeof(Pair<float>);
    case Kind::double_int: return sizeof(Pair<double>);
    case Kind::long_int: return sizeof(Pair<long>);
    case Kind::two_int: return sizeof(Pair<int>);
    case Kind::short_int: return sizeof(Pair<short>);
    case Kind::long_double_int: return sizeof(Pair<long double>);
    case Kind::two_real: return sizeof(Pair<float, float>);
    case Kind::two_double: return sizeof(Pair<double, double>);
  }
  return 0;
}

bool op_allowed(Op op, Kind kind) { return lookup(op, kind) != nullptr; }

Status predefined_reduction(Op op, Kind kind, std::size_t count, Reduction* out) {
  RawFn fn = lookup(op, kind);
  if (fn == nullptr) return Status::invalid;
  out->elem_size = kind_size(kind);
  out->count = count;
  out->commutative = true;  // every predefined operation is
  out->combine = fn;        // a plain function pointer (CombineFn::Raw): no allocation
  return Status::ok;
}

}  // namespace ftmpi::coll
