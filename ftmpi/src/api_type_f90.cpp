// C API: MPI_Type_create_f90_real / _complex / _integer and MPI_Type_match_size (MPI-3.1
// 17.1.9). The kinds are gfortran's (x86-64), chosen as SELECTED_REAL_KIND(p, r) and
// SELECTED_INT_KIND(r) choose them: the smallest kind with at least that decimal precision and
// exponent range, MPI_UNDEFINED meaning "any" (not both). A parameterized type is a copy of
// the named type of that kind (REAL(8) is MPI_REAL8, REAL(10) the C long double) with combiner
// MPI_COMBINER_F90_* and contents (p, r) or (r); it behaves as predefined (MPI_Type_free
// refuses it) and is made once per distinct (p, r): asking again returns the same handle, as
// the standard requires. No kind meets the request: MPI_ERR_ARG.
#include <map>
#include <memory>
#include <tuple>

#include "datatype.h"
#include "library.h"

using namespace ftmpi;

namespace {

struct RealKind {
  int precision, range;
  MPI_Datatype real, complex;
};
// gfortran: PRECISION and RANGE of REAL(4), REAL(8), REAL(10) (x87), REAL(16) (binary128).
constexpr RealKind kReals[] = {{6, 37, MPI_REAL4, MPI_COMPLEX8},
                               {15, 307, MPI_REAL8, MPI_COMPLEX16},
                               {18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX},
                               {33, 4931, MPI_REAL16, MPI_COMPLEX32}};
struct IntKind {
  int range;
  MPI_Datatype type;
};
constexpr IntKind kInts[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4},
                             {18, MPI_INTEGER8}, {38, MPI_INTEGER16}};

// (combiner, p, r) -> the handle made for it (the library lock guards it).
std::map<std::tuple<int, int, int>, MPI_Datatype>& made() {
  static std::map<std::tuple<int, int, int>, MPI_Datatype> cache;
  return cache;
}

Err parameterized(int combiner, int p, int r, MPI_Datatype named, MPI_Datatype* newtype) {
  auto key = std::make_tuple(combiner, p, r);
  if (auto it = made().find(key); it != made().end()) {
    *newtype = it->second;
    return Err::ok;
  }
  const Datatype* base = nullptr;
  if (Err e = lib().types.find(named, &base); e != Err::ok) return e;
  auto t = std::make_unique<Datatype>(*base);
  t->combiner = combiner;
  auto contents = std::make_shared<TypeContents>();
  contents->ints = combiner == MPI_COMBINER_F90_INTEGER ? std::vector<int>{r} : std::vector<int>{p, r};
  t->env_ints = static_cast<int>(contents->ints.size());
  t->env_aints = 0;
  t->env_types = 0;  // MPI-3.1 4.1.13: no datatype arguments for the f90 combiners
  t->contents = std::move(contents);
  t->named_alias = named;
  *newtype = lib().types.add_named(std::move(t));
  made()[key] = *newtype;
  return Err::ok;
}

Err real_kind(const char* fn, int p, int r, const RealKind** out) {
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) {
    return fail(Err::arg, "%s: p and r are both MPI_UNDEFINED", fn);
  }
  for (const RealKind& k : kReals) {
    if ((p == MPI_UNDEFINED || p <= k.precision) && (r == MPI_UNDEFINED || r <= k.range)) {
      *out = &k;
      return Err::ok;
    }
  }
  return fail(Err::arg, "%s: no REAL kind has precision %d and range %d (at most 33 and 4931)",
              fn, p, r);
}

int create_real(const char* fn, int combiner, int p, int r, MPI_Datatype* newtype) {
  if (Err e = check_initialized(fn); e != Err::ok) return to_code(e);
  if (newtype == nullptr) return raise_world(fail(Err::arg, "%s: newtype is NULL", fn));
  const RealKind* k = nullptr;
  Err e = real_kind(fn, p, r, &k);
  if (e == Err::ok) {
    e = parameterized(combiner, p, r, combiner == MPI_COMBINER_F90_REAL ? k->real : k->complex, newtype);
  }
  return e == Err::ok ? MPI_SUCCESS : raise_world(e);
}

}  // namespace

extern "C" {

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return create_real("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return create_real("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}

int MPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  if (Err e = check_initialized("MPI_Type_create_f90_integer"); e != Err::ok) return to_code(e);
  if (newtype == nullptr) return raise_world(fail(Err::arg, "MPI_Type_create_f90_integer: newtype is NULL"));
  for (const IntKind& k : kInts) {
    if (r <= k.range) {
      Err e = parameterized(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, k.type, newtype);
      return e == Err::ok ? MPI_SUCCESS : raise_world(e);
    }
  }
  return raise_world(fail(Err::arg, "MPI_Type_create_f90_integer: no INTEGER kind has range %d "
                          "(at most 38)", r));
}

// A named type of that class and byte size: the sized Fortran types (MPI_REAL8 ...).
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  if (Err e = check_initialized("MPI_Type_match_size"); e != Err::ok) return to_code(e);
  if (datatype == nullptr) return raise_world(fail(Err::arg, "MPI_Type_match_size: datatype is NULL"));
  static const struct { int typeclass, size; MPI_Datatype type; } kMatches[] = {
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4}, {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
      {MPI_TYPECLASS_REAL, 16, MPI_REAL16}, {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
      {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2}, {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
      {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8}, {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8}, {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
      {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32}};
  for (const auto& m : kMatches) {
    if (m.typeclass == typeclass && m.size == size) {
      *datatype = m.type;
      return MPI_SUCCESS;
    }
  }
  if (typeclass < MPI_TYPECLASS_REAL || typeclass > MPI_TYPECLASS_COMPLEX) {
    return raise_world(fail(Err::arg, "MPI_Type_match_size: typeclass %d is not MPI_TYPECLASS_REAL, "
                            "_INTEGER or _COMPLEX", typeclass));
  }
  return raise_world(fail(Err::arg, "MPI_Type_match_size: no type of class %d has %d bytes",
                          typeclass, size));
}

}  // extern "C"
