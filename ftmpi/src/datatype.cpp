#include "datatype.h"

#include <complex.h>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cwchar>

namespace ftmpi {
namespace {

struct FloatInt { float a; int b; };
struct DoubleInt { double a; int b; };
struct LongInt { long a; int b; };
struct ShortInt { short a; int b; };
struct TwoInt { int a; int b; };
struct LongDoubleInt { long double a; int b; };
struct Quad_complex { __float128 re; __float128 im; };  // gfortran's COMPLEX(16)

std::unique_ptr<Datatype> predefined(const char* name, std::size_t size, std::size_t align) {
  auto t = std::make_unique<Datatype>();
  t->name = name;
  t->size = size;
  t->extent = static_cast<MPI_Aint>(size);
  t->predefined = t->committed = t->in_use = t->has_entries = true;
  t->align = align;
  t->true_extent = t->extent;
  t->combiner = MPI_COMBINER_NAMED;
  return t;
}

template <typename T>
std::unique_ptr<Datatype> basic(MPI_Datatype h, const char* name) {
  auto t = predefined(name, sizeof(T), alignof(T));
  t->layout = basic_layout(sizeof(T));
  t->signature = basic_signature(h, sizeof(T));
  return t;
}

// A pair type for MINLOC/MAXLOC: two basic elements with the C struct's padding. Only the data
// bytes travel, so size < extent and the type is not contiguous when there is padding.
template <typename T, typename A, typename B>
std::unique_ptr<Datatype> pair(const char* name, MPI_Datatype ka, MPI_Datatype kb) {
  auto t = predefined(name, sizeof(A) + sizeof(B), alignof(T));
  t->extent = sizeof(T);
  LayoutBuilder lb;
  lb.place_bytes(offsetof(T, a), sizeof(A));
  lb.place_bytes(offsetof(T, b), sizeof(B));
  t->layout = lb.finish();
  t->true_extent = t->layout->true_ub;
  SignatureBuilder sb;
  sb.place(basic_signature(ka, sizeof(A)), 1);
  sb.place(basic_signature(kb, sizeof(B)), 1);
  t->signature = sb.finish();
  t->contiguous = t->layout->single_run() && t->size == sizeof(T);
  return t;
}

// MPI_LB / MPI_UB: no data, only a bound.
std::unique_ptr<Datatype> marker(const char* name, bool is_lb) {
  auto t = predefined(name, 0, 1);
  t->extent = 0;
  t->true_extent = 0;
  t->lb_marked = is_lb;
  t->ub_marked = !is_lb;
  t->layout = std::make_shared<Layout>();
  t->signature = std::make_shared<Signature>();
  return t;
}

}  // namespace

DatatypeTable::DatatypeTable() : types_(FTMPI_NUM_PREDEFINED_TYPES) {
#define FTMPI_BASIC(h, T) types_[h] = basic<T>(h, #h)
  FTMPI_BASIC(MPI_CHAR, char);
  FTMPI_BASIC(MPI_SIGNED_CHAR, signed char);
  FTMPI_BASIC(MPI_UNSIGNED_CHAR, unsigned char);
  FTMPI_BASIC(MPI_BYTE, unsigned char);
  FTMPI_BASIC(MPI_WCHAR, wchar_t);
  FTMPI_BASIC(MPI_SHORT, short);
  FTMPI_BASIC(MPI_UNSIGNED_SHORT, unsigned short);
  FTMPI_BASIC(MPI_INT, int);
  FTMPI_BASIC(MPI_UNSIGNED, unsigned);
  FTMPI_BASIC(MPI_LONG, long);
  FTMPI_BASIC(MPI_UNSIGNED_LONG, unsigned long);
  FTMPI_BASIC(MPI_LONG_LONG_INT, long long);
  FTMPI_BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long);
  FTMPI_BASIC(MPI_FLOAT, float);
  FTMPI_BASIC(MPI_DOUBLE, double);
  FTMPI_BASIC(MPI_LONG_DOUBLE, long double);
  FTMPI_BASIC(MPI_PACKED, unsigned char);
  FTMPI_BASIC(MPI_INT8_T, std::int8_t);
  FTMPI_BASIC(MPI_INT16_T, std::int16_t);
  FTMPI_BASIC(MPI_INT32_T, std::int32_t);
  FTMPI_BASIC(MPI_INT64_T, std::int64_t);
  FTMPI_BASIC(MPI_UINT8_T, std::uint8_t);
  FTMPI_BASIC(MPI_UINT16_T, std::uint16_t);
  FTMPI_BASIC(MPI_UINT32_T, std::uint32_t);
  FTMPI_BASIC(MPI_UINT64_T, std::uint64_t);
  FTMPI_BASIC(MPI_C_BOOL, bool);
  FTMPI_BASIC(MPI_AINT, MPI_Aint);
  FTMPI_BASIC(MPI_OFFSET, MPI_Offset);
  FTMPI_BASIC(MPI_COUNT, MPI_Count);
  FTMPI_BASIC(MPI_C_FLOAT_COMPLEX, float _Complex);
  FTMPI_BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex);
  FTMPI_BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
  // Fortran types, with the sizes gfortran uses by default.
  FTMPI_BASIC(MPI_INTEGER, std::int32_t);
  FTMPI_BASIC(MPI_REAL, float);
  FTMPI_BASIC(MPI_DOUBLE_PRECISION, double);
  FTMPI_BASIC(MPI_COMPLEX, float _Complex);
  FTMPI_BASIC(MPI_DOUBLE_COMPLEX, double _Complex);
  FTMPI_BASIC(MPI_LOGICAL, std::int32_t);
  FTMPI_BASIC(MPI_CHARACTER, char);
  // The sized Fortran types: gfortran's INTEGER(n), REAL(n), COMPLEX(n/2), LOGICAL(n).
  FTMPI_BASIC(MPI_INTEGER1, std::int8_t);
  FTMPI_BASIC(MPI_INTEGER2, std::int16_t);
  FTMPI_BASIC(MPI_INTEGER4, std::int32_t);
  FTMPI_BASIC(MPI_INTEGER8, std::int64_t);
  FTMPI_BASIC(MPI_INTEGER16, __int128);
  FTMPI_BASIC(MPI_REAL4, float);
  FTMPI_BASIC(MPI_REAL8, double);
  FTMPI_BASIC(MPI_REAL16, __float128);
  FTMPI_BASIC(MPI_COMPLEX8, float _Complex);
  FTMPI_BASIC(MPI_COMPLEX16, double _Complex);
  FTMPI_BASIC(MPI_COMPLEX32, Quad_complex);
  FTMPI_BASIC(MPI_LOGICAL1, std::int8_t);
  FTMPI_BASIC(MPI_LOGICAL2, std::int16_t);
  FTMPI_BASIC(MPI_LOGICAL4, std::int32_t);
  FTMPI_BASIC(MPI_LOGICAL8, std::int64_t);
  FTMPI_BASIC(MPI_LOGICAL16, __int128);
  FTMPI_BASIC(MPI_CXX_BOOL, bool);
  FTMPI_BASIC(MPI_CXX_FLOAT_COMPLEX, float _Complex);
  FTMPI_BASIC(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
  FTMPI_BASIC(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
#undef FTMPI_BASIC
  types_[MPI_FLOAT_INT] = pair<FloatInt, float, int>("MPI_FLOAT_INT", MPI_FLOAT, MPI_INT);
  types_[MPI_DOUBLE_INT] = pair<DoubleInt, double, int>("MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT);
  types_[MPI_LONG_INT] = pair<LongInt, long, int>("MPI_LONG_INT", MPI_LONG, MPI_INT);
  types_[MPI_SHORT_INT] = pair<ShortInt, short, int>("MPI_SHORT_INT", MPI_SHORT, MPI_INT);
  types_[MPI_2INT] = pair<TwoInt, int, int>("MPI_2INT", MPI_INT, MPI_INT);
  types_[MPI_LONG_DOUBLE_INT] =
      pair<LongDoubleInt, long double, int>("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, MPI_INT);
  types_[MPI_2INTEGER] = pair<TwoInt, int, int>("MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER);
  struct TwoReal { float a; float b; };
  struct TwoDouble { double a; double b; };
  types_[MPI_2REAL] = pair<TwoReal, float, float>("MPI_2REAL", MPI_REAL, MPI_REAL);
  types_[MPI_2DOUBLE_PRECISION] = pair<TwoDouble, double, double>(
      "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION);
  types_[MPI_UB] = marker("MPI_UB", false);
  types_[MPI_LB] = marker("MPI_LB", true);
  for (std::size_t h = 1; h < types_.size(); ++h) types_[h]->handle = static_cast<MPI_Datatype>(h);
}

Err DatatypeTable::find(MPI_Datatype handle, const Datatype** out) const {
  const Datatype* t = slot(handle);
  if (t == nullptr || !t->in_use) {
    if (handle == MPI_DATATYPE_NULL) return fail(Err::type, "datatype is MPI_DATATYPE_NULL");
    return fail(Err::type, "datatype handle %d is not a valid datatype", handle);
  }
  *out = t;
  return Err::ok;
}

Err DatatypeTable::rename(MPI_Datatype handle, const char* name) {
  const Datatype* found = nullptr;
  if (Err e = find(handle, &found); e != Err::ok) return e;
  Datatype* t = types_[static_cast<std::size_t>(handle)].get();
  t->user_name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return Err::ok;
}

MPI_Datatype DatatypeTable::add(std::unique_ptr<Datatype> t) {
  t->in_use = true;
  t->predefined = false;
  t->refs = 1;
  MPI_Datatype h;
  if (!free_slots_.empty()) {
    h = free_slots_.back();
    free_slots_.pop_back();
  } else {
    h = static_cast<MPI_Datatype>(types_.size());
    types_.emplace_back();
  }
  t->handle = h;
  types_[static_cast<std::size_t>(h)] = std::move(t);
  return h;
}

MPI_Datatype DatatypeTable::add_named(std::unique_ptr<Datatype> t) {
  const MPI_Datatype h = add(std::move(t));
  types_[static_cast<std::size_t>(h)]->predefined = true;
  return h;
}

Err DatatypeTable::commit(MPI_Datatype handle) {
  const Datatype* t = nullptr;
  if (Err e = find(handle, &t); e != Err::ok) return e;
  types_[static_cast<std::size_t>(handle)]->committed = true;
  return Err::ok;
}

Err DatatypeTable::free(MPI_Datatype handle) {
  const Datatype* t = nullptr;
  if (Err e = find(handle, &t); e != Err::ok) return e;
  if (t->predefined) return fail(Err::type, "%s is predefined and cannot be freed", t->name);
  Datatype* w = types_[static_cast<std::size_t>(handle)].get();
  w->in_use = false;
  unref(w);
  return Err::ok;
}

Err DatatypeTable::acquire(MPI_Datatype handle, const Datatype** out) {
  if (Err e = lookup(handle, out); e != Err::ok) return e;
  if (!(*out)->predefined) ++types_[static_cast<std::size_t>(handle)]->refs;
  return Err::ok;
}

void DatatypeTable::hold(const Datatype* t) {
  if (!t->predefined) ++types_[static_cast<std::size_t>(t->handle)]->refs;
}

void DatatypeTable::release(const Datatype* t) {
  if (t == nullptr || t->predefined) return;
  unref(types_[static_cast<std::size_t>(t->handle)].get());
}

void DatatypeTable::unref(Datatype* t) {
  if (--t->refs > 0) return;
  const MPI_Datatype h = t->handle;
  types_[static_cast<std::size_t>(h)].reset();
  free_slots_.push_back(h);
}

std::size_t DatatypeTable::live_derived() const {
  std::size_t n = 0;
  for (std::size_t h = FTMPI_NUM_PREDEFINED_TYPES; h < types_.size(); ++h) n += types_[h] ? 1 : 0;
  return n;
}

std::size_t pack(const void* buf, std::size_t count, const Datatype& t, void* out) {
  return layout_pack(*t.layout, t.extent, buf, count, 0, t.size * count, out);
}

std::size_t unpack(const void* in, std::size_t bytes, void* buf, std::size_t count,
                   const Datatype& t) {
  return layout_unpack(*t.layout, t.extent, buf, count, 0, bytes, in);
}

std::size_t pack_part(const void* buf, std::size_t count, const Datatype& t, std::size_t offset,
                      std::size_t max, void* out) {
  return layout_pack(*t.layout, t.extent, buf, count, offset, max, out);
}

std::size_t unpack_part(const void* in, std::size_t offset, std::size_t bytes, void* buf,
                        std::size_t count, const Datatype& t) {
  return layout_unpack(*t.layout, t.extent, buf, count, offset, bytes, in);
}

int element_count(const Datatype& t, std::size_t bytes) {
  if (t.size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  if (bytes % t.size != 0) return MPI_UNDEFINED;
  // MPI-3.1 3.2.5: MPI_UNDEFINED also when the count does not fit the int.
  const std::size_t n = bytes / t.size;
  return n > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(n);
}

long long basic_element_count_x(const Datatype& t, std::size_t bytes) {
  const long long n = signature_elements(*t.signature, bytes);
  return n < 0 ? MPI_UNDEFINED : n;
}

int basic_element_count(const Datatype& t, std::size_t bytes) {
  // MPI-3 3.2.5: MPI_UNDEFINED also when the count does not fit the int.
  const long long n = basic_element_count_x(t, bytes);
  return n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
}

}  // namespace ftmpi
