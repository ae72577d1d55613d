#include "reduction.h"

#include "library.h"

namespace ftmpi {
namespace {

using coll::Kind;

bool kind_of(MPI_Datatype t, Kind* k) {
  switch (t) {
    case MPI_CHAR: case MPI_CHARACTER: *k = Kind::c_char; return true;
    case MPI_SIGNED_CHAR: case MPI_INT8_T: case MPI_INTEGER1: case MPI_LOGICAL1:
      *k = Kind::c_signed_char; return true;
    case MPI_UNSIGNED_CHAR: case MPI_UINT8_T: *k = Kind::c_unsigned_char; return true;
    case MPI_BYTE: *k = Kind::byte; return true;
    case MPI_WCHAR: *k = Kind::c_wchar; return true;
    case MPI_SHORT: case MPI_INT16_T: case MPI_INTEGER2: case MPI_LOGICAL2:
      *k = Kind::c_short; return true;
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: *k = Kind::c_unsigned_short; return true;
    case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_LOGICAL: case MPI_INTEGER4:
    case MPI_LOGICAL4:
      *k = Kind::c_int; return true;
    case MPI_UNSIGNED: case MPI_UINT32_T: *k = Kind::c_unsigned; return true;
    case MPI_LONG: case MPI_INT64_T: case MPI_AINT: case MPI_INTEGER8: case MPI_LOGICAL8:
      *k = Kind::c_long; return true;
    case MPI_UNSIGNED_LONG: case MPI_UINT64_T: *k = Kind::c_unsigned_long; return true;
    case MPI_LONG_LONG_INT: case MPI_OFFSET: case MPI_COUNT: *k = Kind::c_long_long; return true;
    case MPI_UNSIGNED_LONG_LONG: *k = Kind::c_unsigned_long_long; return true;
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: *k = Kind::c_float; return true;
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: *k = Kind::c_double; return true;
    case MPI_LONG_DOUBLE: *k = Kind::c_long_double; return true;
    case MPI_INTEGER16: case MPI_LOGICAL16: *k = Kind::int128; return true;
    case MPI_REAL16: *k = Kind::float128; return true;
    case MPI_C_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8: case MPI_CXX_FLOAT_COMPLEX:
      *k = Kind::c_float_complex; return true;
    case MPI_C_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16:
    case MPI_CXX_DOUBLE_COMPLEX:
      *k = Kind::c_double_complex; return true;
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX:
      *k = Kind::c_long_double_complex; return true;
    case MPI_COMPLEX32: *k = Kind::float128_complex; return true;
    case MPI_C_BOOL: case MPI_CXX_BOOL: *k = Kind::c_bool; return true;
    case MPI_FLOAT_INT: *k = Kind::float_int; return true;
    case MPI_DOUBLE_INT: *k = Kind::double_int; return true;
    case MPI_LONG_INT: *k = Kind::long_int; return true;
    case MPI_2INT: case MPI_2INTEGER: *k = Kind::two_int; return true;
    case MPI_SHORT_INT: *k = Kind::short_int; return true;
    case MPI_LONG_DOUBLE_INT: *k = Kind::long_double_int; return true;
    case MPI_2REAL: *k = Kind::two_real; return true;
    case MPI_2DOUBLE_PRECISION: *k = Kind::two_double; return true;
    default: return false;
  }
}

}  // namespace

OpTable::OpTable() : predefined_(predefined_index(MPI_MINLOC + 1, 0)) {
  for (MPI_Op op = MPI_MAX; op <= MPI_MINLOC; ++op) {
    for (MPI_Datatype type = 1; type < FTMPI_NUM_PREDEFINED_TYPES; ++type) {
      Kind kind;
      if (!kind_of(type, &kind)) continue;
      coll::Reduction& r = predefined_[predefined_index(op, type)];
      if (coll::predefined_reduction(static_cast<coll::Op>(op - MPI_MAX), kind, 0, &r) !=
          coll::Status::ok) {
        r = coll::Reduction{};  // not allowed: the slow path below says why
      }
    }
  }
}

Err OpTable::create(MPI_User_function* fn, bool commutative, MPI_Op* out) {
  if (fn == nullptr) return fail(Err::arg, "user function is NULL");
  for (std::size_t i = 0; i < user_.size(); ++i) {
    if (user_[i].fn == nullptr) {
      user_[i] = {fn, commutative};
      *out = kFirstUser + static_cast<MPI_Op>(i);
      return Err::ok;
    }
  }
  user_.push_back({fn, commutative});
  *out = kFirstUser + static_cast<MPI_Op>(user_.size() - 1);
  return Err::ok;
}

Err OpTable::free(MPI_Op* op) {
  std::size_t i = static_cast<std::size_t>(*op - kFirstUser);
  if (*op < kFirstUser || i >= user_.size() || user_[i].fn == nullptr) {
    return fail(Err::op, "op %d is not a user-defined operation", *op);
  }
  user_[i] = {};
  *op = MPI_OP_NULL;
  return Err::ok;
}

Err OpTable::commutative(MPI_Op op, bool* out) const {
  if (op >= MPI_MAX && op <= MPI_REPLACE) {
    *out = op != MPI_REPLACE;  // the one-sided MPI_REPLACE keeps the later operand (MPICH too)
    return Err::ok;
  }
  const std::size_t i = static_cast<std::size_t>(op - kFirstUser);
  if (op < kFirstUser || i >= user_.size() || user_[i].fn == nullptr) {
    return fail(Err::op, "op %d is not a valid operation", op);
  }
  *out = user_[i].commutative;
  return Err::ok;
}

Err OpTable::other_reduction(MPI_Op op, MPI_Datatype type, std::size_t elem_size,
                             std::size_t count, coll::Reduction* out) const {
  if (op >= kFirstUser) {
    std::size_t i = static_cast<std::size_t>(op - kFirstUser);
    if (i >= user_.size() || user_[i].fn == nullptr) return fail(Err::op, "op %d is not valid", op);
    MPI_User_function* fn = user_[i].fn;
    out->elem_size = elem_size;
    out->count = count;
    out->commutative = user_[i].commutative;
    out->combine = [fn, type](const void* in, void* inout, std::size_t n) {
      int len = static_cast<int>(n);
      MPI_Datatype t = type;
      fn(const_cast<void*>(in), inout, &len, &t);
    };
    return Err::ok;
  }
  if (op < MPI_MAX || op > MPI_MINLOC) return fail(Err::op, "op %d is not valid here", op);
  Kind kind;
  bool known = kind_of(type, &kind);
  const Datatype* t = nullptr;  // an MPI_Type_create_f90_* type reduces as its named type
  if (!known && lib().types.find(type, &t) == Err::ok) known = kind_of(t->named_alias, &kind);
  if (!known) {
    return fail(Err::op, "datatype %d is not one predefined reductions apply to", type);
  }
  auto cop = static_cast<coll::Op>(op - MPI_MAX);
  if (coll::predefined_reduction(cop, kind, count, out) != coll::Status::ok) {
    return fail(Err::op, "operation %d is not defined for datatype %d", op, type);
  }
  return Err::ok;
}

}  // namespace ftmpi
