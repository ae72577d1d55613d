// Datatypes: the record behind an MPI_Datatype handle, the handle table, and the small copy API
// the point-to-point layer uses to move non-contiguous data.
//
// Handles index the table directly; predefined types occupy the first
// FTMPI_NUM_PREDEFINED_TYPES slots (values fixed by mpi.h). A record carries its flattened layout
// (where the data bytes lie, datatype_layout.h) and its signature (which basic elements it
// carries, datatype_signature.h). Constructors live in datatype_build.h.
//
// Lifetime: MPI_Type_free invalidates the handle at once, but a pending operation that called
// acquire() keeps the record (and its layout) alive until release(); only then is the handle
// slot reused. Layouts are shared, so a derived type never depends on its parents' records.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "datatype_layout.h"
#include "datatype_signature.h"
#include "error.h"

namespace ftmpi {

struct Datatype;

// MPI_Type_get_contents: a constructor's arguments as the user gave them (MPI-3.1 table 4.1).
// A datatype argument is kept as a copy of its record (a derived one may be freed by the user
// meanwhile), or by handle when predefined.
struct TypeContents {
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Datatype> named;                      // per type argument: predefined handle,
  std::vector<std::shared_ptr<const Datatype>> derived;  // or else this record
};

struct Datatype {
  const char* name = "";
  std::string user_name;  // MPI_Type_set_name; shown instead of name when set
  std::size_t size = 0;   // data bytes in one element (= packed bytes, = bytes on the wire)
  MPI_Aint extent = 0;    // span of one element in memory: element i starts at buf + i * extent
  MPI_Aint lb = 0;
  // count elements are exactly count * size bytes at buf, in order: send and receive in place.
  // (One dense piece, at offset 0, no gaps, extent == size.) Otherwise use pack/unpack below.
  bool contiguous = true;
  bool predefined = false;
  bool committed = false;
  bool in_use = false;    // the handle is valid for the user (not yet freed)

  MPI_Datatype handle = MPI_DATATYPE_NULL;
  LayoutPtr layout;
  SignaturePtr signature;
  MPI_Aint true_lb = 0;      // first data byte, markers ignored (MPI_Type_get_true_extent)
  MPI_Aint true_extent = 0;
  // MPI-1 bound rules: explicit MPI_LB/MPI_UB markers (or a resize) are sticky through
  // constructors; a type with an empty typemap takes no part in its parent's bounds.
  bool lb_marked = false;
  bool ub_marked = false;
  bool has_entries = false;
  std::size_t align = 1;    // largest alignment of a basic element (struct extent padding)
  // For MPI_Type_get_envelope.
  int combiner = 0;         // MPI_COMBINER_NAMED
  int env_ints = 0, env_aints = 0, env_types = 0;
  std::shared_ptr<const TypeContents> contents;  // set by the API constructors
  // MPI_Type_create_f90_* (api_type_f90.cpp): the named type this one is (MPI_REAL8 ...), for
  // the predefined reductions, which know named types only. Else MPI_DATATYPE_NULL.
  MPI_Datatype named_alias = MPI_DATATYPE_NULL;
  // 1 for the user's handle until MPI_Type_free, plus one per acquire(). Predefined: unused.
  int refs = 0;

  MPI_Aint ub() const { return lb + extent; }
};

class DatatypeTable {
 public:
  DatatypeTable();

  // A handle that may be used for communication (live and committed). Hot path: inline.
  Err lookup(MPI_Datatype handle, const Datatype** out) const {
    const Datatype* t = slot(handle);
    if (t == nullptr || !t->in_use) {
      return fail(Err::type, "datatype handle %d is not a valid datatype", handle);
    }
    if (!t->committed) return fail(Err::type, "datatype %d is not committed", handle);
    *out = t;
    return Err::ok;
  }
  // Any live handle, committed or not (constructors and queries accept uncommitted types).
  Err find(MPI_Datatype handle, const Datatype** out) const;

  // Takes a new record, gives it a handle (the user's reference: refs = 1).
  MPI_Datatype add(std::unique_ptr<Datatype> t);
  // The same for a type that behaves as predefined (never freed, no reference counting):
  // the MPI_Type_create_f90_* types, made on first request.
  MPI_Datatype add_named(std::unique_ptr<Datatype> t);
  Err commit(MPI_Datatype handle);
  // MPI_Type_set_name (predefined types too; at most MPI_MAX_OBJECT_NAME - 1 characters kept).
  Err rename(MPI_Datatype handle, const char* name);
  // MPI_Type_free: the handle becomes invalid now; the record goes once nothing holds it.
  Err free(MPI_Datatype handle);

  // For a pending operation (request): lookup() plus a reference that keeps the record alive
  // across MPI_Type_free. Every successful acquire must be paired with one release.
  Err acquire(MPI_Datatype handle, const Datatype** out);
  // One more reference on a record already held (a persistent request's type, which the user
  // may have freed since, handed on to the operation MPI_Start begins).
  void hold(const Datatype* t);
  void release(const Datatype* t);

  std::size_t live_derived() const;  // records not yet reclaimed (tests, leak checks)

 private:
  const Datatype* slot(MPI_Datatype handle) const {
    if (handle <= 0 || static_cast<std::size_t>(handle) >= types_.size()) return nullptr;
    return types_[static_cast<std::size_t>(handle)].get();
  }
  void unref(Datatype* t);

  // unique_ptr: records keep their address while the table grows (requests hold pointers).
  std::vector<std::unique_ptr<Datatype>> types_;
  std::vector<MPI_Datatype> free_slots_;
};

// ---- Copy API for the point-to-point layer -------------------------------------------------
// The packed form of `count` elements is their data bytes in typemap order, back to back; it is
// also the wire format, so sender and receiver may use different layouts with the same
// signature. For `t.contiguous` the packed form is the user buffer itself: send/receive in place.

// Bytes that `count` elements occupy packed (and on the wire).
inline std::size_t packed_size(const Datatype& t, std::size_t count) { return t.size * count; }

// Packs `count` elements at buf into out (packed_size bytes). Returns the bytes written.
std::size_t pack(const void* buf, std::size_t count, const Datatype& t, void* out);

// Unpacks a message of `bytes` bytes into `count` elements at buf. A short message fills a
// prefix (possibly ending inside an element); bytes beyond packed_size are ignored (the caller
// reports MPI_ERR_TRUNCATE). Returns the bytes consumed.
std::size_t unpack(const void* in, std::size_t bytes, void* buf, std::size_t count,
                   const Datatype& t);

// The same, for a window of the packed stream: bytes [offset, offset + max) of it. For
// fragmented or pipelined transfers, and MPI_Pack/MPI_Unpack positions. Return bytes moved.
std::size_t pack_part(const void* buf, std::size_t count, const Datatype& t, std::size_t offset,
                      std::size_t max, void* out);
std::size_t unpack_part(const void* in, std::size_t offset, std::size_t bytes, void* buf,
                        std::size_t count, const Datatype& t);

// MPI_Get_count: whole elements in `bytes` received bytes, or MPI_UNDEFINED.
int element_count(const Datatype& t, std::size_t bytes);
// MPI_Get_elements: basic elements in `bytes` received bytes, or MPI_UNDEFINED.
int basic_element_count(const Datatype& t, std::size_t bytes);
// The same as an MPI_Count (MPI_Get_elements_x): MPI_UNDEFINED only for a partial element.
long long basic_element_count_x(const Datatype& t, std::size_t bytes);

// Whether buf == NULL is acceptable for count elements: MPI_BOTTOM is NULL, and a derived type
// built from MPI_Get_address values addresses absolute memory. Only a predefined type with data
// to move makes a NULL buffer an MPI_ERR_BUFFER.
inline bool buffer_may_be_null(const Datatype& t, std::size_t count) {
  return count == 0 || t.size == 0 || !t.predefined;
}

}  // namespace ftmpi
