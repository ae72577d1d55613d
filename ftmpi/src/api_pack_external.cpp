// C API: MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size with the "external32"
// representation (MPI-3.1 13.5.2): every basic element big-endian, at the standard's size.
// That size is the native one except MPI_LONG / MPI_UNSIGNED_LONG (4 bytes, native 8) and
// MPI_WCHAR (2 bytes, native 4); MPI_LONG_DOUBLE (x87 extended in 16 native bytes) becomes
// IEEE binary128; complex types are two parts, pair types (MPI_DOUBLE_INT...) their two members.
// A value that does not fit a narrower external size is MPI_ERR_ARG (never cut silently).
// The data goes through the native packed form (pack/unpack, datatype.h: the basic elements
// in typemap order, back to back), which the type signature describes element by element.
#include <cstdint>
#include <cstring>
#include <vector>

#include "datatype.h"
#include "library.h"

using namespace ftmpi;

namespace {

enum class Conv : unsigned char { swap, narrow_signed, narrow_unsigned, long_double };
// One basic kind: `parts` parts of `native` bytes each, `ext` bytes each in external32.
struct ExtKind {
  Conv conv;
  std::size_t native, ext;
  int parts;
};

ExtKind ext_kind(MPI_Datatype kind, std::size_t native) {
  switch (kind) {
    case MPI_LONG: return {Conv::narrow_signed, native, 4, 1};
    case MPI_UNSIGNED_LONG: return {Conv::narrow_unsigned, native, 4, 1};
    case MPI_WCHAR: return {Conv::narrow_unsigned, native, 2, 1};
    case MPI_LONG_DOUBLE: return {Conv::long_double, native, 16, 1};
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX: return {Conv::long_double, native / 2, 16, 2};
    case MPI_C_FLOAT_COMPLEX: case MPI_C_DOUBLE_COMPLEX: case MPI_COMPLEX: case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX8: case MPI_COMPLEX16: case MPI_COMPLEX32: case MPI_CXX_FLOAT_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX: return {Conv::swap, native / 2, native / 2, 2};
    default: return {Conv::swap, native, native, 1};
  }
}

// external32 bytes of one element of `sig`.
std::size_t ext_bytes(const Signature& sig) {
  std::size_t n = 0;
  for (const SigItem& it : sig.items) {
    if (it.child) {
      n += it.repeat * ext_bytes(*it.child);
    } else {
      const ExtKind k = ext_kind(it.kind, it.elem_size);
      n += it.repeat * static_cast<std::size_t>(k.parts) * k.ext;
    }
  }
  return n;
}

void reverse_copy(const std::uint8_t* from, std::size_t n, std::uint8_t* to) {
  for (std::size_t i = 0; i < n; ++i) to[i] = from[n - 1 - i];
}

// One part, native (little-endian, this machine) -> external32. False: the value does not fit.
bool to_external(const ExtKind& k, const std::uint8_t* in, std::uint8_t* out) {
  switch (k.conv) {
    case Conv::swap: reverse_copy(in, k.native, out); return true;
    case Conv::narrow_signed:
    case Conv::narrow_unsigned: {
      std::uint64_t v = 0;
      std::memcpy(&v, in, k.native);
      const unsigned bits = static_cast<unsigned>(k.ext * 8);
      if (k.conv == Conv::narrow_signed) {
        const auto s = static_cast<std::int64_t>(v);
        if (s < -(std::int64_t{1} << (bits - 1)) || s >= (std::int64_t{1} << (bits - 1))) return false;
      } else if (v >> bits != 0) {  // bits is 16 or 32 here: below the word
        return false;
      }
      reverse_copy(in, k.ext, out);  // the low bytes, most significant first
      return true;
    }
    case Conv::long_double: {
      long double ld;
      std::memcpy(&ld, in, sizeof ld);
      const __float128 q = static_cast<__float128>(ld);
      reverse_copy(reinterpret_cast<const std::uint8_t*>(&q), 16, out);
      return true;
    }
  }
  return false;
}

void from_external(const ExtKind& k, const std::uint8_t* in, std::uint8_t* out) {
  switch (k.conv) {
    case Conv::swap: reverse_copy(in, k.native, out); return;
    case Conv::narrow_signed:
    case Conv::narrow_unsigned: {
      std::uint8_t le[8] = {};
      reverse_copy(in, k.ext, le);
      std::uint64_t v = 0;
      std::memcpy(&v, le, 8);
      if (k.conv == Conv::narrow_signed && (le[k.ext - 1] & 0x80) != 0) v |= ~std::uint64_t{0} << (k.ext * 8);
      std::memcpy(out, &v, k.native);
      return;
    }
    case Conv::long_double: {
      __float128 q;
      reverse_copy(in, 16, reinterpret_cast<std::uint8_t*>(&q));
      const long double ld = static_cast<long double>(q);
      std::memset(out, 0, k.native);
      std::memcpy(out, &ld, sizeof ld < k.native ? sizeof ld : k.native);
      return;
    }
  }
}

// Converts one element of `sig` between the native packed stream and external32, advancing
// both cursors. False when a value does not fit (packing only).
bool convert(const Signature& sig, bool pack, const std::uint8_t*& in, std::uint8_t*& out) {
  for (const SigItem& it : sig.items) {
    if (it.child) {
      for (std::size_t r = 0; r < it.repeat; ++r) {
        if (!convert(*it.child, pack, in, out)) return false;
      }
      continue;
    }
    const ExtKind k = ext_kind(it.kind, it.elem_size);
    const std::size_t from = pack ? k.native : k.ext, to = pack ? k.ext : k.native;
    for (std::size_t r = 0; r < it.repeat * static_cast<std::size_t>(k.parts); ++r) {
      if (pack) {
        if (!to_external(k, in, out)) return false;
      } else {
        from_external(k, in, out);
      }
      in += from;
      out += to;
    }
  }
  return true;
}

Err check_args(const char* fn, const char* datarep, int count, MPI_Datatype type,
               const MPI_Aint* position, const Datatype** t) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  if (datarep == nullptr || std::strcmp(datarep, "external32") != 0) {
    return fail(Err::arg, "%s: data representation '%s' is not \"external32\"", fn,
                datarep != nullptr ? datarep : "(null)");
  }
  if (count < 0) return fail(Err::count, "%s: count %d is negative", fn, count);
  if (Err e = lib().types.lookup(type, t); e != Err::ok) return e;
  if (position == nullptr) return fail(Err::arg, "%s: NULL size or position pointer", fn);
  return Err::ok;
}

}  // namespace

extern "C" {

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
  const Datatype* t = nullptr;
  if (Err e = check_args("MPI_Pack_external_size", datarep, incount, datatype, size, &t); e != Err::ok) {
    return raise_world(e);
  }
  *size = static_cast<MPI_Aint>(ext_bytes(*t->signature) * static_cast<std::size_t>(incount));
  return MPI_SUCCESS;
}

int MPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
                      void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  const Datatype* t = nullptr;
  Err e = check_args("MPI_Pack_external", datarep, incount, datatype, position, &t);
  const std::size_t n = e == Err::ok ? ext_bytes(*t->signature) * static_cast<std::size_t>(incount) : 0;
  if (e == Err::ok && (*position < 0 || outsize < *position ||
                       n > static_cast<std::size_t>(outsize - *position))) {
    e = fail(Err::truncate, "MPI_Pack_external: %zu bytes at position %ld overflow outsize %ld", n,
             static_cast<long>(*position), static_cast<long>(outsize));
  }
  if (e == Err::ok && n > 0 && (outbuf == nullptr || (inbuf == nullptr && !buffer_may_be_null(*t, incount)))) {
    e = fail(Err::buffer, "MPI_Pack_external: NULL buffer for %d elements of %s", incount, t->name);
  }
  if (e != Err::ok) return raise_world(e);
  std::vector<std::uint8_t> native(packed_size(*t, static_cast<std::size_t>(incount)));
  pack(inbuf, static_cast<std::size_t>(incount), *t, native.data());
  const std::uint8_t* in = native.data();
  std::uint8_t* out = static_cast<std::uint8_t*>(outbuf) + *position;
  for (int i = 0; i < incount; ++i) {
    if (!convert(*t->signature, true, in, out)) {
      return raise_world(fail(Err::arg, "MPI_Pack_external: element %d of %s holds a value "
                              "external32's narrower size cannot (MPI_LONG and MPI_UNSIGNED_LONG "
                              "are 4 bytes, MPI_WCHAR 2)", i, t->name));
    }
  }
  *position += static_cast<MPI_Aint>(n);
  return MPI_SUCCESS;
}

int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                        void* outbuf, int outcount, MPI_Datatype datatype) {
  const Datatype* t = nullptr;
  Err e = check_args("MPI_Unpack_external", datarep, outcount, datatype, position, &t);
  const std::size_t n = e == Err::ok ? ext_bytes(*t->signature) * static_cast<std::size_t>(outcount) : 0;
  if (e == Err::ok && (*position < 0 || insize < *position ||
                       n > static_cast<std::size_t>(insize - *position))) {
    e = fail(Err::truncate, "MPI_Unpack_external: %zu bytes at position %ld run past insize %ld", n,
             static_cast<long>(*position), static_cast<long>(insize));
  }
  if (e == Err::ok && n > 0 && (inbuf == nullptr || (outbuf == nullptr && !buffer_may_be_null(*t, outcount)))) {
    e = fail(Err::buffer, "MPI_Unpack_external: NULL buffer for %d elements of %s", outcount, t->name);
  }
  if (e != Err::ok) return raise_world(e);
  std::vector<std::uint8_t> native(packed_size(*t, static_cast<std::size_t>(outcount)));
  const std::uint8_t* in = static_cast<const std::uint8_t*>(inbuf) + *position;
  std::uint8_t* out = native.data();
  for (int i = 0; i < outcount; ++i) (void)convert(*t->signature, false, in, out);
  unpack(native.data(), native.size(), outbuf, static_cast<std::size_t>(outcount), *t);
  *position += static_cast<MPI_Aint>(n);
  return MPI_SUCCESS;
}

}  // extern "C"
