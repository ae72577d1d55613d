#include "datatype.h"

#include <complex.h>
#include <cstdint>
#include <cwchar>

namespace ftmpi {
namespace {

struct FloatInt { float a; int b; };
struct DoubleInt { double a; int b; };
struct LongInt { long a; int b; };
struct ShortInt { short a; int b; };
struct TwoInt { int a; int b; };
struct LongDoubleInt { long double a; int b; };

template <typename T>
Datatype basic(const char* name) {
  Datatype t;
  t.name = name;
  t.size = sizeof(T);
  t.extent = sizeof(T);
  t.predefined = t.committed = t.in_use = true;
  return t;
}

// Pair types have padding: their size counts data bytes only, the extent includes padding.
// They still travel as whole extents (both ends share the ABI), so they count as contiguous.
template <typename T, typename A, typename B>
Datatype pair(const char* name) {
  Datatype t = basic<T>(name);
  t.size = sizeof(A) + sizeof(B);
  return t;
}

Datatype marker(const char* name) {
  Datatype t;
  t.name = name;
  t.predefined = t.committed = t.in_use = true;
  return t;
}

}  // namespace

DatatypeTable::DatatypeTable() : types_(FTMPI_NUM_PREDEFINED_TYPES) {
  auto set = [this](MPI_Datatype h, Datatype t) { types_[static_cast<std::size_t>(h)] = t; };
  set(MPI_CHAR, basic<char>("MPI_CHAR"));
  set(MPI_SIGNED_CHAR, basic<signed char>("MPI_SIGNED_CHAR"));
  set(MPI_UNSIGNED_CHAR, basic<unsigned char>("MPI_UNSIGNED_CHAR"));
  set(MPI_BYTE, basic<unsigned char>("MPI_BYTE"));
  set(MPI_WCHAR, basic<wchar_t>("MPI_WCHAR"));
  set(MPI_SHORT, basic<short>("MPI_SHORT"));
  set(MPI_UNSIGNED_SHORT, basic<unsigned short>("MPI_UNSIGNED_SHORT"));
  set(MPI_INT, basic<int>("MPI_INT"));
  set(MPI_UNSIGNED, basic<unsigned>("MPI_UNSIGNED"));
  set(MPI_LONG, basic<long>("MPI_LONG"));
  set(MPI_UNSIGNED_LONG, basic<unsigned long>("MPI_UNSIGNED_LONG"));
  set(MPI_LONG_LONG_INT, basic<long long>("MPI_LONG_LONG_INT"));
  set(MPI_UNSIGNED_LONG_LONG, basic<unsigned long long>("MPI_UNSIGNED_LONG_LONG"));
  set(MPI_FLOAT, basic<float>("MPI_FLOAT"));
  set(MPI_DOUBLE, basic<double>("MPI_DOUBLE"));
  set(MPI_LONG_DOUBLE, basic<long double>("MPI_LONG_DOUBLE"));
  set(MPI_PACKED, basic<unsigned char>("MPI_PACKED"));
  set(MPI_FLOAT_INT, pair<FloatInt, float, int>("MPI_FLOAT_INT"));
  set(MPI_DOUBLE_INT, pair<DoubleInt, double, int>("MPI_DOUBLE_INT"));
  set(MPI_LONG_INT, pair<LongInt, long, int>("MPI_LONG_INT"));
  set(MPI_SHORT_INT, pair<ShortInt, short, int>("MPI_SHORT_INT"));
  set(MPI_2INT, pair<TwoInt, int, int>("MPI_2INT"));
  set(MPI_LONG_DOUBLE_INT, pair<LongDoubleInt, long double, int>("MPI_LONG_DOUBLE_INT"));
  set(MPI_UB, marker("MPI_UB"));
  set(MPI_LB, marker("MPI_LB"));
  set(MPI_INT8_T, basic<std::int8_t>("MPI_INT8_T"));
  set(MPI_INT16_T, basic<std::int16_t>("MPI_INT16_T"));
  set(MPI_INT32_T, basic<std::int32_t>("MPI_INT32_T"));
  set(MPI_INT64_T, basic<std::int64_t>("MPI_INT64_T"));
  set(MPI_UINT8_T, basic<std::uint8_t>("MPI_UINT8_T"));
  set(MPI_UINT16_T, basic<std::uint16_t>("MPI_UINT16_T"));
  set(MPI_UINT32_T, basic<std::uint32_t>("MPI_UINT32_T"));
  set(MPI_UINT64_T, basic<std::uint64_t>("MPI_UINT64_T"));
  set(MPI_C_BOOL, basic<bool>("MPI_C_BOOL"));
  set(MPI_AINT, basic<MPI_Aint>("MPI_AINT"));
  set(MPI_OFFSET, basic<MPI_Offset>("MPI_OFFSET"));
  set(MPI_COUNT, basic<MPI_Count>("MPI_COUNT"));
  set(MPI_C_FLOAT_COMPLEX, basic<float _Complex>("MPI_C_FLOAT_COMPLEX"));
  set(MPI_C_DOUBLE_COMPLEX, basic<double _Complex>("MPI_C_DOUBLE_COMPLEX"));
  set(MPI_C_LONG_DOUBLE_COMPLEX, basic<long double _Complex>("MPI_C_LONG_DOUBLE_COMPLEX"));
  // Fortran types, with the sizes gfortran uses by default.
  set(MPI_INTEGER, basic<std::int32_t>("MPI_INTEGER"));
  set(MPI_REAL, basic<float>("MPI_REAL"));
  set(MPI_DOUBLE_PRECISION, basic<double>("MPI_DOUBLE_PRECISION"));
  set(MPI_COMPLEX, basic<float _Complex>("MPI_COMPLEX"));
  set(MPI_DOUBLE_COMPLEX, basic<double _Complex>("MPI_DOUBLE_COMPLEX"));
  set(MPI_LOGICAL, basic<std::int32_t>("MPI_LOGICAL"));
  set(MPI_CHARACTER, basic<char>("MPI_CHARACTER"));
  set(MPI_2INTEGER, basic<TwoInt>("MPI_2INTEGER"));
  set(MPI_2REAL, basic<float[2]>("MPI_2REAL"));
  set(MPI_2DOUBLE_PRECISION, basic<double[2]>("MPI_2DOUBLE_PRECISION"));
}

}  // namespace ftmpi
