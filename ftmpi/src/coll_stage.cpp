#include "coll_stage.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "library.h"

namespace ftmpi {
namespace {

// ---- Reduction planning -----------------------------------------------------------------------

// The value-index pair types MAXLOC/MINLOC take, by their two basic elements (datatype.cpp).
struct PairType {
  MPI_Datatype pair, value, index;
};
constexpr PairType kPairs[] = {
    {MPI_FLOAT_INT, MPI_FLOAT, MPI_INT},   {MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT},
    {MPI_LONG_INT, MPI_LONG, MPI_INT},     {MPI_2INT, MPI_INT, MPI_INT},
    {MPI_SHORT_INT, MPI_SHORT, MPI_INT},   {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT},
    {MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER},
};

// Whether the basic elements of `sig`, starting at position *pos of the stream, alternate
// value, index, value, ... A repeated child is walked at most twice: after two passes the
// parity is back where it started, so further repetitions would check the same thing.
bool alternates(const Signature& sig, const PairType& p, std::size_t* pos) {
  for (const SigItem& it : sig.items) {
    if (it.repeat == 0) continue;
    if (it.child) {
      const std::size_t walks = std::min<std::size_t>(it.repeat, 2);
      for (std::size_t k = 0; k < walks; ++k) {
        if (!alternates(*it.child, p, pos)) return false;
      }
      *pos += (it.repeat - walks) * it.child->elements;
      continue;
    }
    if (p.value != p.index && it.repeat > 1) return false;  // two of a kind in a row
    if (it.kind != (*pos % 2 == 0 ? p.value : p.index)) return false;
    *pos += it.repeat;
  }
  return true;
}

const PairType* pair_type_of(const Signature& sig) {
  if (sig.elements % 2 != 0) return nullptr;
  for (const PairType& p : kPairs) {
    std::size_t pos = 0;
    if (alternates(sig, p, &pos)) return &p;
  }
  return nullptr;
}

// A user operation on a staged type sees the type's own layout: element i's window is
// [i * extent, (i + 1) * extent) of the staging buffer, and its origin sits `shift` bytes
// before the window, so that every data byte (true_lb .. true_lb + true_extent from the
// origin) lies inside. The shift is rounded to the type's alignment when that still fits,
// so the user function reads aligned fields.
bool user_shift(const Datatype& t, MPI_Aint* shift) {
  if (t.extent <= 0) return false;
  const MPI_Aint a = static_cast<MPI_Aint>(t.align == 0 ? 1 : t.align);
  const MPI_Aint floor_lb = t.true_lb >= 0 ? t.true_lb / a * a : -((-t.true_lb + a - 1) / a) * a;
  if (t.true_lb - floor_lb + t.true_extent <= t.extent) {
    *shift = floor_lb;
    return true;
  }
  if (t.true_extent <= t.extent) {
    *shift = t.true_lb;
    return true;
  }
  return false;
}

Err plan_user(MPI_Op op, MPI_Datatype type, const Datatype& t, std::size_t count,
              coll::Reduction* r, Form* form) {
  if (Err e = lib().ops.reduction(op, type, static_cast<std::size_t>(t.extent), count, r);
      e != Err::ok) {
    return e;  // not a valid operation
  }
  Form f;
  f.unit = &t;
  f.direct = t.contiguous;
  if (!f.direct && !user_shift(t, &f.shift)) {
    return fail(Err::type, "datatype %d: its elements overlap in memory (true extent %ld, "
                "extent %ld), so a user-defined operation cannot be given them as laid out",
                type, static_cast<long>(t.true_extent), static_cast<long>(t.extent));
  }
  if (f.shift != 0) {
    // The algorithm hands out element windows; the user function wants element origins.
    r->combine = [inner = std::move(r->combine), s = f.shift](const void* in, void* inout,
                                                             std::size_t n) {
      const auto origin = [s](const void* p) {
        return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(p) -
                                       static_cast<std::uintptr_t>(s));
      };
      inner(origin(in), origin(inout), n);
    };
  }
  *form = f;
  return Err::ok;
}

}  // namespace

// ---- Stage ------------------------------------------------------------------------------------

void Stage::allocate() {
  unsigned char* p = mem_.get(bytes());
  // A layout with holes (pair padding, gaps of a user-layout type) travels whole: give the
  // holes a defined value.
  if (form_.unit != nullptr && !form_.unit->contiguous) std::memset(p, 0, bytes());
  data_ = p;
}

void Stage::copy_in(std::size_t first, std::size_t n, std::size_t at) {
  const Datatype& t = *type_;
  const void* src = reinterpret_cast<const void*>(user_at(first));
  unsigned char* dst = static_cast<unsigned char*>(data_) + at;
  if (form_.unit == nullptr || (form_.unit->contiguous && form_.shift == 0)) {
    pack(src, n, t, dst);  // the packed form is the staged layout
    return;
  }
  StageMemory tmp;
  const std::size_t bytes = packed_size(t, n);
  pack(src, n, t, tmp.get(bytes));
  unpack(tmp.data(), bytes, dst - form_.shift, n * form_.per, *form_.unit);
}

void Stage::copy_out(std::size_t first, std::size_t n, std::size_t at) const {
  const Datatype& t = *type_;
  void* dst = reinterpret_cast<void*>(user_at(first));
  const unsigned char* src = static_cast<const unsigned char*>(data_) + at;
  const std::size_t bytes = packed_size(t, n);
  if (form_.unit == nullptr || (form_.unit->contiguous && form_.shift == 0)) {
    unpack(src, bytes, dst, n, t);
    return;
  }
  StageMemory tmp;
  pack(src - form_.shift, n * form_.per, *form_.unit, tmp.get(bytes));
  unpack(tmp.data(), bytes, dst, n, t);
}

// ---- Reductions -------------------------------------------------------------------------------

Err plan_reduction(MPI_Op op, MPI_Datatype type, const Datatype& t, std::size_t count,
                   coll::Reduction* r, Form* form) {
  if (t.predefined) {  // as the user laid it out, pair types with their padding
    if (Err e = lib().ops.reduction(op, type, static_cast<std::size_t>(t.extent), count, r);
        e != Err::ok) {
      return e;
    }
    *form = Form::as_laid_out(t);
    return Err::ok;
  }
  if (op < MPI_MAX || op > MPI_MINLOC) return plan_user(op, type, t, count, r, form);

  // A predefined operation on a derived type: it applies to the basic elements.
  const Signature& sig = *t.signature;
  if (sig.elements == 0) {  // nothing to combine
    coll::Reduction none;
    none.elem_size = 1;
    none.combine = [](const void*, void*, std::size_t) {};
    *r = std::move(none);
    *form = Form::packed(t);
    return Err::ok;
  }
  MPI_Datatype unit_handle;
  std::size_t per;
  if (op == MPI_MAXLOC || op == MPI_MINLOC) {
    const PairType* p = pair_type_of(sig);
    if (p == nullptr) {
      return fail(Err::op, "MPI_MAXLOC/MPI_MINLOC on datatype %d: its basic elements are not "
                  "value-index pairs of one of the pair types (MPI_DOUBLE_INT, MPI_2INT, ...)",
                  type);
    }
    unit_handle = p->pair;
    per = sig.elements / 2;
  } else {
    if (sig.uniform_kind == MPI_DATATYPE_NULL) {
      return fail(Err::op, "datatype %d mixes basic types; a predefined operation applies only "
                  "to a derived datatype built from one predefined type", type);
    }
    unit_handle = sig.uniform_kind;
    per = sig.elements;
  }
  const Datatype* unit = nullptr;
  if (Err e = lib().types.lookup(unit_handle, &unit); e != Err::ok) return e;
  if (lib().ops.reduction(op, unit_handle, static_cast<std::size_t>(unit->extent), count * per,
                          r) != Err::ok) {
    return fail(Err::op, "operation %d is not defined for %s, the basic type of datatype %d", op,
                unit->name, type);
  }
  Form f;
  f.unit = unit;
  f.per = per;
  // Dense memory of the basic type (or of a padding-free pair) already is the array the
  // reduction wants.
  f.direct = t.contiguous && unit->contiguous;
  *form = f;
  return Err::ok;
}

}  // namespace ftmpi
