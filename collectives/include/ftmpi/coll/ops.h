// Reduction operations for the collective algorithms: the MPI predefined operations over the
// basic C element kinds, and the description every reduction algorithm consumes (`Reduction`),
// which is also how a user operation (MPI_Op_create) reaches this layer.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "ftmpi/coll/p2p.h"

namespace ftmpi::coll {

// Element kinds of the predefined reductions: every MPI-1 basic C type, the MPI-2 additions
// (signed char, unsigned long long, wchar_t, C bool), the complex types (C's float/double/long
// double _Complex, Fortran's COMPLEX and the sized COMPLEX8/16/32), gfortran's 16-byte
// INTEGER(16) and REAL(16), and the MAXLOC/MINLOC pair types.
// The MPI layer maps fixed-width types (MPI_INT32_T, ...) to the C kind of the same size.
enum class Kind {
  c_char,  // MPI_CHAR: text, not allowed in any reduction (MPI-1 4.9.2)
  c_signed_char,
  c_unsigned_char,
  c_short,
  c_unsigned_short,
  c_int,
  c_unsigned,
  c_long,
  c_unsigned_long,
  c_long_long,
  c_unsigned_long_long,
  c_float,
  c_double,
  c_long_double,
  int128,          // gfortran INTEGER(16): __int128
  float128,        // gfortran REAL(16): __float128
  // Complex kinds (MPI_SUM and MPI_PROD only, MPI-2.2 5.9.2): {re, im} of the real kind.
  c_float_complex,
  c_double_complex,
  c_long_double_complex,
  float128_complex,  // gfortran COMPLEX(16), MPI_COMPLEX32
  c_wchar,  // MPI_WCHAR: text, not allowed in any reduction
  c_bool,   // MPI_C_BOOL: logical operations only
  byte,     // MPI_BYTE: bitwise operations only
  // Pair kinds use the C struct layout MPICH defines, padding included, so an element is
  // sizeof(struct {T a; int b;}): FLOAT_INT 8, DOUBLE_INT 16, LONG_INT 16, 2INT 8, SHORT_INT 8,
  // LONG_DOUBLE_INT 32 on x86-64. The MPI layer passes these buffers as the user laid them
  // out (not MPI_Pack'ed, which would drop the padding). Padding bytes of the result are
  // left as they were in the receiving buffer.
  float_int,
  double_int,
  long_int,
  two_int,
  short_int,
  long_double_int,
  two_real,    // Fortran MPI_2REAL: {float value, float index}, 8 bytes
  two_double,  // Fortran MPI_2DOUBLE_PRECISION: {double value, double index}, 16 bytes
};

enum class Op { max, min, sum, prod, land, band, lor, bor, lxor, bxor, maxloc, minloc };

// combine(in, inout, count): inout[i] = in[i] op inout[i] for count elements. `in` holds the
// contribution of lower ranks, which is what makes a non-commutative operation well defined
// (the same convention as MPI user functions). Buffers may be unaligned.
// A predefined operation is a plain function pointer, held as one: every MPI_Allreduce builds
// a Reduction, and a std::function cost ~40 instructions per call to build, move and destroy
// (callgrind, tests/bench/ft_cost.c). Anything else callable (a user operation with its
// datatype, a wrapper) is kept behind a shared pointer, built once per call as before.
class CombineFn {
 public:
  using Raw = void (*)(const void* in, void* inout, std::size_t count);
  using General = std::function<void(const void* in, void* inout, std::size_t count)>;

  CombineFn() = default;
  // Implicit, so that `r.combine = fn` takes a function, a captureless lambda or a closure.
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, CombineFn>>>
  CombineFn(F&& f) {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_convertible_v<F, Raw>) {
      raw_ = f;
    } else {
      general_ = std::make_shared<const General>(std::forward<F>(f));
    }
  }

  void operator()(const void* in, void* inout, std::size_t count) const {
    if (raw_ != nullptr) {
      raw_(in, inout, count);
    } else {
      (*general_)(in, inout, count);
    }
  }
  explicit operator bool() const { return raw_ != nullptr || general_ != nullptr; }

 private:
  Raw raw_ = nullptr;
  std::shared_ptr<const General> general_;
};

// Everything a reduction algorithm needs to know about the operation and the data.
struct Reduction {
  std::size_t elem_size = 0;  // bytes per element, as laid out in the buffers
  std::size_t count = 0;      // elements per process (reduce_scatter takes its own counts)
  bool commutative = true;    // false: combined strictly in rank order
  CombineFn combine;

  std::size_t bytes() const { return elem_size * count; }
};

// Bytes per element of `kind` (the C sizeof, pair kinds with their padding).
std::size_t kind_size(Kind kind);

// Whether MPI allows `op` on `kind` (MPI-1 4.9.2, with the MPI-2.2 groups: C integer includes
// signed/unsigned char and long long; logical includes C bool; complex takes sum and prod).
bool op_allowed(Op op, Kind kind);

// Describes the predefined `op` on `count` elements of `kind`. Returns Status::invalid for a
// pair MPI does not allow (the MPI layer reports MPI_ERR_OP); `*out` is set only on success.
Status predefined_reduction(Op op, Kind kind, std::size_t count, Reduction* out);

}  // namespace ftmpi::coll
