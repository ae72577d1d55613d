// Staging of non-contiguous datatypes for the collectives (api_coll_*.cpp). The algorithms in
// collectives/ move and reduce plain bytes; a buffer whose datatype is not contiguous is copied
// into a staging buffer before the algorithm (inputs) and out of it after (outputs).
//
// A contiguous type (every predefined basic type, and derived types that are one dense run) is
// "direct": the algorithm works in the user's buffer, with no copy and no allocation.
//
// What the staged bytes look like (a Form):
// - data movement (bcast, gather, ...): the packed form, count * size bytes, the same bytes
//   point-to-point puts on the wire, so send and receive types may differ as long as their
//   signatures match;
// - predefined reductions: an array of the type's one basic type (a vector of doubles reduces
//   as doubles), or for MAXLOC/MINLOC of its value-index pair type (MPI_DOUBLE_INT, ...), with
//   that pair's C struct layout;
// - user-defined operations: the type's own memory layout (element i at i * extent), since the
//   user function receives the datatype handle and walks its typemap.
#pragma once

#include <ftmpi/coll/scratch.h>

#include <optional>

#include <ftmpi/coll/ops.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "datatype.h"
#include "error.h"

namespace ftmpi {

// Staging memory: the collectives layer's per-thread scratch cache, so a large staged
// collective does not fault in freshly mmap'ed pages on every call.
class StageMemory {
 public:
  unsigned char* get(std::size_t bytes) {  // once per object
    mem_.emplace(bytes);
    return mem_->data();
  }
  unsigned char* data() { return mem_ ? mem_->data() : nullptr; }

 private:
  std::optional<coll::Scratch> mem_;
};

// How a buffer of some datatype appears to the algorithm.
struct Form {
  bool direct = true;               // the user's buffer itself
  const Datatype* unit = nullptr;   // staged element type; nullptr: the packed form
  std::size_t per = 1;              // staged units per user element
  MPI_Aint shift = 0;               // user-layout staging: element 0's origin is data - shift

  // Data movement: the packed form, direct for a contiguous type. (A type without data but
  // with an extent counts as contiguous; staged, it moves its zero bytes.)
  static Form packed(const Datatype& t) {
    Form f;
    f.direct = t.contiguous && static_cast<MPI_Aint>(t.size) == t.extent;
    return f;
  }
  // Reductions on a predefined type: its elements as the user laid them out (pair types with
  // their padding), in place.
  static Form as_laid_out(const Datatype& t) {
    Form f;
    f.unit = &t;
    return f;
  }
};

// One buffer argument of `count` elements of `t` at `buf`, as the bytes the algorithm gets.
// Elements are addressed by index; staged, element i's bytes start at i * elem_bytes().
// The direct case is inline and allocates nothing: the v-variants run through it on every
// call (the other collectives skip Stage altogether when none of their buffers is staged).
class Stage {
 public:
  // Direct: data() is buf. Staged: allocates the staging buffer (nothing is copied yet).
  void setup(const void* buf, std::size_t count, const Datatype& t, const Form& f) {
    user_ = reinterpret_cast<std::uintptr_t>(buf);
    count_ = count;
    type_ = &t;
    form_ = f;
    elem_bytes_ = f.unit == nullptr ? t.size : f.per * static_cast<std::size_t>(f.unit->extent);
    data_ = const_cast<void*>(buf);
    if (!f.direct) allocate();
  }

  void* data() const { return data_; }
  bool direct() const { return form_.direct; }
  std::size_t elem_bytes() const { return elem_bytes_; }
  std::size_t bytes() const { return count_ * elem_bytes_; }

  // User elements [first, first + n) into the staging buffer at byte `at`, and back. No-ops
  // when direct. The block-less versions move every element.
  void load(std::size_t first, std::size_t n, std::size_t at) {
    if (!form_.direct && n > 0) copy_in(first, n, at);
  }
  void store(std::size_t first, std::size_t n, std::size_t at) const {
    if (!form_.direct && n > 0) copy_out(first, n, at);
  }
  void load_all() { load(0, count_, 0); }
  void store_all() const { store(0, count_, 0); }

 private:
  void allocate();
  void copy_in(std::size_t first, std::size_t n, std::size_t at);
  void copy_out(std::size_t first, std::size_t n, std::size_t at) const;

  std::uintptr_t user_at(std::size_t first) const {
    return user_ + static_cast<std::uintptr_t>(static_cast<MPI_Aint>(first) * type_->extent);
  }

  std::uintptr_t user_ = 0;  // integer: MPI_BOTTOM is 0 and layouts may hold absolute offsets
  std::size_t count_ = 0;
  const Datatype* type_ = nullptr;
  Form form_;
  std::size_t elem_bytes_ = 0;
  void* data_ = nullptr;
  StageMemory mem_;
};

// How `count` elements of `type` (record t) reduce under `op` (a predefined or user op): the
// Reduction the algorithm runs (its elements are the form's units, r.count = count * per) and
// the form the buffers take. Err::op for a predefined op on a type that mixes basic types, or
// MAXLOC/MINLOC on a type that is not made of value-index pairs; Err::type for a user op on a
// non-contiguous type whose elements overlap in memory (extent smaller than its data).
Err plan_reduction(MPI_Op op, MPI_Datatype type, const Datatype& t, std::size_t count,
                   coll::Reduction* r, Form* form);

}  // namespace ftmpi
