// C API: derived datatype constructors, commit/free, bound and envelope queries, addresses,
// MPI_Get_elements and MPI_Pack/Unpack/Pack_size. Each entry checks its arguments, calls a
// builder (datatype_build.h) or the copy API (datatype.h) and reports errors through MPI_COMM_WORLD's
// handler (only pack/unpack name a communicator).
#include <climits>
#include <cstdint>
#include <vector>

#include "datatype_build.h"
#include "library.h"
#include "status_count.h"

using namespace ftmpi;

namespace {

DatatypeTable& types() { return lib().types; }

Err find_type(MPI_Datatype h, const Datatype** t) { return types().find(h, t); }

Err check_count(int count) {
  return count < 0 ? fail(Err::count, "count %d is negative", count) : Err::ok;
}

Err check_out(const void* p, const char* what) {
  return p == nullptr ? fail(Err::arg, "%s pointer is NULL", what) : Err::ok;
}

Err check_blocklens(int count, const int* bl) {
  if (count > 0 && bl == nullptr) return fail(Err::arg, "array_of_blocklengths is NULL");
  for (int i = 0; i < count; ++i) {
    if (bl[i] < 0) return fail(Err::arg, "blocklength[%d] = %d is negative", i, bl[i]);
  }
  return Err::ok;
}

int publish(std::unique_ptr<Datatype> t, MPI_Datatype* newtype) {
  *newtype = types().add(std::move(t));
  return MPI_SUCCESS;
}

// The user's constructor call, for MPI_Type_get_contents (set_contents).
struct Call {
  int combiner;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
};

int publish(std::unique_ptr<Datatype> t, Call call, const std::vector<const Datatype*>& args,
            MPI_Datatype* newtype) {
  set_contents(t.get(), call.combiner, std::move(call.ints), std::move(call.aints), args);
  return publish(std::move(t), newtype);
}

template <typename T>
std::vector<T> list(int n, const T* a) {
  return n > 0 ? std::vector<T>(a, a + n) : std::vector<T>{};
}

// Shared by MPI_Type_indexed (displacements in extents) and hindexed (in bytes).
template <typename Disp>
int indexed(int count, const int* bl, const Disp* disp, MPI_Aint unit_of, MPI_Datatype oldtype,
            MPI_Datatype* newtype, int combiner, Call* call = nullptr) {
  const Datatype* old = nullptr;
  Err e = check_count(count);
  if (e == Err::ok) e = check_blocklens(count, bl);
  if (e == Err::ok && count > 0 && disp == nullptr) {
    e = fail(Err::arg, "array_of_displacements is NULL");
  }
  if (e == Err::ok) e = find_type(oldtype, &old);
  if (e == Err::ok) e = check_out(newtype, "newtype");
  if (e != Err::ok) return raise_world(e);
  const MPI_Aint unit = unit_of != 0 ? old->extent : 1;
  std::vector<TypeBlock> blocks(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    blocks[static_cast<std::size_t>(i)] = {old, static_cast<std::size_t>(bl[i]),
                                           static_cast<MPI_Aint>(disp[i]) * unit};
  }
  Call plain{combiner, {count}, {}};
  if (call == nullptr) {  // indexed, hindexed: the block lengths, displacements in ints or aints
    call = &plain;
    call->ints.insert(call->ints.end(), bl, bl + count);
    for (int i = 0; i < count; ++i) {
      if (unit_of != 0) {
        call->ints.push_back(static_cast<int>(disp[i]));
      } else {
        call->aints.push_back(static_cast<MPI_Aint>(disp[i]));
      }
    }
  }
  return publish(build_blocks(blocks.data(), blocks.size(), false, combiner), std::move(*call),
                 {old}, newtype);
}

// One block length for every block. Everything is checked before the count-sized block list
// is allocated: a bad call with a huge count must fail, not allocate.
template <typename Disp>
int indexed_block(int count, int blocklength, const Disp* disp, MPI_Aint unit_of,
                  MPI_Datatype oldtype, MPI_Datatype* newtype, int combiner) {
  const Datatype* old = nullptr;
  Err e = check_count(count);
  if (e == Err::ok && blocklength < 0) e = fail(Err::arg, "blocklength %d is negative", blocklength);
  if (e == Err::ok && count > 0 && disp == nullptr) e = fail(Err::arg, "array_of_displacements is NULL");
  if (e == Err::ok) e = find_type(oldtype, &old);
  if (e == Err::ok) e = check_out(newtype, "newtype");
  if (e != Err::ok) return raise_world(e);
  std::vector<int> bl(static_cast<std::size_t>(count), blocklength);
  Call call{combiner, {count, blocklength}, {}};
  for (int i = 0; i < count; ++i) {
    if (unit_of != 0) {
      call.ints.push_back(static_cast<int>(disp[i]));
    } else {
      call.aints.push_back(static_cast<MPI_Aint>(disp[i]));
    }
  }
  return indexed(count, bl.data(), disp, unit_of, oldtype, newtype, combiner, &call);
}

int hvector(int count, int blocklen, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype,
            bool stride_in_extents) {
  const Datatype* old = nullptr;
  Err e = check_count(count);
  if (e == Err::ok && blocklen < 0) e = fail(Err::arg, "blocklength %d is negative", blocklen);
  if (e == Err::ok) e = find_type(oldtype, &old);
  if (e == Err::ok) e = check_out(newtype, "newtype");
  if (e != Err::ok) return raise_world(e);
  const MPI_Aint bytes = stride_in_extents ? stride * old->extent : stride;
  const int combiner = stride_in_extents ? MPI_COMBINER_VECTOR : MPI_COMBINER_HVECTOR;
  Call call{combiner, {count, blocklen}, {}};
  if (stride_in_extents) {
    call.ints.push_back(static_cast<int>(stride));
  } else {
    call.aints.push_back(stride);
  }
  return publish(build_hvector(static_cast<std::size_t>(count), static_cast<std::size_t>(blocklen),
                               bytes, *old, combiner),
                 std::move(call), {old}, newtype);
}

int create_struct(int count, const int* bl, const MPI_Aint* disp, const MPI_Datatype* tv,
                  MPI_Datatype* newtype) {
  Err e = check_count(count);
  if (e == Err::ok) e = check_blocklens(count, bl);
  if (e == Err::ok && count > 0 && (disp == nullptr || tv == nullptr)) {
    e = fail(Err::arg, "array_of_displacements or array_of_types is NULL");
  }
  if (e == Err::ok) e = check_out(newtype, "newtype");
  std::vector<TypeBlock> blocks(e == Err::ok ? static_cast<std::size_t>(count) : 0);
  for (int i = 0; e == Err::ok && i < count; ++i) {
    TypeBlock& b = blocks[static_cast<std::size_t>(i)];
    if (find_type(tv[i], &b.type) != Err::ok) {
      e = fail(Err::type, "array_of_types[%d] = %d is not a valid datatype", i, tv[i]);
    }
    b.blocklen = static_cast<std::size_t>(bl[i]);
    b.disp = disp[i];
  }
  if (e != Err::ok) return raise_world(e);
  Call call{MPI_COMBINER_STRUCT, {count}, list(count, disp)};
  call.ints.insert(call.ints.end(), bl, bl + count);
  std::vector<const Datatype*> args;
  for (const TypeBlock& b : blocks) args.push_back(b.type);
  return publish(build_blocks(blocks.data(), blocks.size(), true, MPI_COMBINER_STRUCT),
                 std::move(call), args, newtype);
}

// Common shape of the one-type queries: check the out pointer, find the type.
template <typename F>
int query(MPI_Datatype h, const void* out, const char* what, F&& f) {
  const Datatype* t = nullptr;
  Err e = check_out(out, what);
  if (e == Err::ok) e = find_type(h, &t);
  if (e != Err::ok) return raise_world(e);
  f(*t);
  return MPI_SUCCESS;
}

// Pack and unpack share their checks: a committed type, a valid communicator, a position.
Err check_pack(const char* fn, int count, MPI_Datatype type, MPI_Comm comm, const int* position,
               int size, const char* size_name, const Datatype** t, Comm** c) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  if (Err e = lib().comms.lookup(comm, c); e != Err::ok) return e;
  if (Err e = check_count(count); e != Err::ok) return e;
  if (Err e = types().lookup(type, t); e != Err::ok) return e;
  if (size < 0) return fail(Err::arg, "%s %d is negative", size_name, size);
  if (position == nullptr) return fail(Err::arg, "position pointer is NULL");
  if (*position < 0 || *position > size) {
    return fail(Err::arg, "position %d outside 0..%s (%d)", *position, size_name, size);
  }
  return Err::ok;
}

}  // namespace

extern "C" {

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const Datatype* old = nullptr;
  Err e = check_count(count);
  if (e == Err::ok) e = find_type(oldtype, &old);
  if (e == Err::ok) e = check_out(newtype, "newtype");
  if (e != Err::ok) return raise_world(e);
  return publish(build_contiguous(static_cast<std::size_t>(count), *old),
                 {MPI_COMBINER_CONTIGUOUS, {count}, {}}, {old}, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype* newtype) {
  return hvector(count, blocklength, stride, oldtype, newtype, true);
}

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return hvector(count, blocklength, stride, oldtype, newtype, false);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  return hvector(count, blocklength, stride, oldtype, newtype, false);
}

int MPI_Type_indexed(int count, const int bl[], const int disp[], MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return indexed(count, bl, disp, 1, oldtype, newtype, MPI_COMBINER_INDEXED);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int disp[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_block(count, blocklength, disp, 1, oldtype, newtype, MPI_COMBINER_INDEXED_BLOCK);
}

// MPI-3: displacements in bytes.
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint disp[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_block(count, blocklength, disp, 0, oldtype, newtype, MPI_COMBINER_HINDEXED_BLOCK);
}

int MPI_Type_hindexed(int count, const int bl[], const MPI_Aint disp[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  return indexed(count, bl, disp, 0, oldtype, newtype, MPI_COMBINER_HINDEXED);
}

int MPI_Type_create_hindexed(int count, const int bl[], const MPI_Aint disp[],
                             MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed(count, bl, disp, 0, oldtype, newtype, MPI_COMBINER_HINDEXED);
}

int MPI_Type_struct(int count, const int bl[], const MPI_Aint disp[], const MPI_Datatype tv[],
                    MPI_Datatype* newtype) {
  return create_struct(count, bl, disp, tv, newtype);
}

int MPI_Type_create_struct(int count, const int bl[], const MPI_Aint disp[],
                           const MPI_Datatype tv[], MPI_Datatype* newtype) {
  return create_struct(count, bl, disp, tv, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype* newtype) {
  const Datatype* old = nullptr;
  Err e = find_type(oldtype, &old);
  if (e == Err::ok) e = check_out(newtype, "newtype");
  if (e != Err::ok) return raise_world(e);
  return publish(build_resized(*old, lb, extent), {MPI_COMBINER_RESIZED, {}, {lb, extent}}, {old},
                 newtype);
}

int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                             int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const Datatype* old = nullptr;
  Err e = find_type(oldtype, &old);
  if (e == Err::ok) e = check_out(newtype, "newtype");
  if (e == Err::ok) e = check_subarray(ndims, sizes, subsizes, starts, order, old->extent);
  if (e != Err::ok) return raise_world(e);
  Call call{MPI_COMBINER_SUBARRAY, {ndims}, {}};
  for (const int* a : {sizes, subsizes, starts}) call.ints.insert(call.ints.end(), a, a + ndims);
  call.ints.push_back(order);
  return publish(build_subarray(ndims, sizes, subsizes, starts, order, *old), std::move(call),
                 {old}, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const Datatype* old = nullptr;
  Err e = find_type(oldtype, &old);
  if (e == Err::ok) e = check_out(newtype, "newtype");
  if (e != Err::ok) return raise_world(e);
  if (int rc = publish(build_dup(*old), {MPI_COMBINER_DUP, {}, {}}, {old}, newtype); rc != MPI_SUCCESS) return rc;
  // MPI-3.1 6.7.4: the attributes follow their copy callbacks. If one fails, no new type
  // (MPICH's attr/attrerrtype wants MPI_DATATYPE_NULL back); those copied are deleted.
  int user_code = MPI_SUCCESS;
  if (Err e = lib().attrs.type_copy_all(oldtype, *newtype, &user_code); e != Err::ok) {
    (void)lib().attrs.type_delete_all(*newtype);
    (void)types().free(*newtype);
    *newtype = MPI_DATATYPE_NULL;
    return raise_code(nullptr, callback_error_code(e, user_code));
  }
  return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  Err e = check_out(datatype, "datatype");
  if (e == Err::ok) e = types().commit(*datatype);
  return e == Err::ok ? MPI_SUCCESS : raise_world(e);
}

int MPI_Type_free(MPI_Datatype* datatype) {
  Err e = check_out(datatype, "datatype");
  const Datatype* t = nullptr;
  if (e == Err::ok) e = find_type(*datatype, &t);
  // The attributes' delete callbacks first (MPI-3.1 6.7.4), while the handle is still valid;
  // one that fails leaves the type as it is, as MPI_Comm_free does.
  if (e == Err::ok && !t->predefined) e = lib().attrs.type_delete_all(*datatype);
  if (e == Err::ok) e = types().free(*datatype);
  if (e != Err::ok) return raise_world(e);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int MPI_Type_extent(MPI_Datatype type, MPI_Aint* extent) {
  return query(type, extent, "extent", [&](const Datatype& t) { *extent = t.extent; });
}

int MPI_Type_lb(MPI_Datatype type, MPI_Aint* displacement) {
  return query(type, displacement, "displacement", [&](const Datatype& t) { *displacement = t.lb; });
}

int MPI_Type_ub(MPI_Datatype type, MPI_Aint* displacement) {
  return query(type, displacement, "displacement",
               [&](const Datatype& t) { *displacement = t.ub(); });
}

int MPI_Type_get_extent(MPI_Datatype type, MPI_Aint* lb, MPI_Aint* extent) {
  if (lb == nullptr) return raise_world(fail(Err::arg, "lb pointer is NULL"));
  return query(type, extent, "extent", [&](const Datatype& t) {
    *lb = t.lb;
    *extent = t.extent;
  });
}

int MPI_Type_get_true_extent(MPI_Datatype type, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  if (true_lb == nullptr) return raise_world(fail(Err::arg, "true_lb pointer is NULL"));
  return query(type, true_extent, "true_extent", [&](const Datatype& t) {
    *true_lb = t.true_lb;
    *true_extent = t.true_extent;
  });
}

int MPI_Type_get_envelope(MPI_Datatype type, int* ni, int* na, int* nd, int* combiner) {
  if (ni == nullptr || na == nullptr || nd == nullptr) {
    return raise_world(fail(Err::arg, "an envelope output pointer is NULL"));
  }
  return query(type, combiner, "combiner", [&](const Datatype& t) {
    *ni = t.env_ints;
    *na = t.env_aints;
    *nd = t.env_types;
    *combiner = t.combiner;
  });
}

int MPI_Address(void* location, MPI_Aint* address) {
  if (address == nullptr) return raise_world(fail(Err::arg, "address pointer is NULL"));
  *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
  return MPI_SUCCESS;
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  return MPI_Address(const_cast<void*>(location), address);
}

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype type, int* count) {
  if (status == nullptr || count == nullptr) {
    return raise_world(fail(Err::arg, "status or count pointer is NULL"));
  }
  const Datatype* t = nullptr;
  if (Err e = types().lookup(type, &t); e != Err::ok) return raise_world(e);
  *count = basic_element_count(*t, status_bytes(status));
  return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype type, MPI_Comm comm, int* size) {
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  Err e = check_initialized("MPI_Pack_size");
  if (e == Err::ok) e = lib().comms.lookup(comm, &c);
  if (e == Err::ok) e = check_count(incount);
  if (e == Err::ok) e = types().lookup(type, &t);
  if (e == Err::ok) e = check_out(size, "size");
  if (e != Err::ok) return raise(c, e);
  // The packed form carries no header: both ends share one representation.
  const std::size_t n = packed_size(*t, static_cast<std::size_t>(incount));
  if (n > static_cast<std::size_t>(INT_MAX)) {
    return raise(c, fail(Err::count, "%d elements of datatype %d pack into %zu bytes, more than "
                         "an int can hold", incount, type, n));
  }
  *size = static_cast<int>(n);
  return MPI_SUCCESS;
}

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype type, void* outbuf, int outsize,
             int* position, MPI_Comm comm) {
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  Err e = check_pack("MPI_Pack", incount, type, comm, position, outsize, "outsize", &t, &c);
  const std::size_t n = e == Err::ok ? packed_size(*t, static_cast<std::size_t>(incount)) : 0;
  if (e == Err::ok && n > 0 && inbuf == nullptr && !buffer_may_be_null(*t, incount)) {
    e = fail(Err::buffer, "inbuf is NULL but %d elements of %s are to be packed", incount, t->name);
  }
  if (e == Err::ok && n > 0 && outbuf == nullptr) e = fail(Err::buffer, "outbuf is NULL");
  if (e == Err::ok && n > static_cast<std::size_t>(outsize - *position)) {
    e = fail(Err::truncate, "packing %zu bytes at position %d overflows outsize %d", n, *position,
             outsize);
  }
  if (e != Err::ok) return raise(c, e);
  pack(inbuf, static_cast<std::size_t>(incount), *t, static_cast<char*>(outbuf) + *position);
  *position += static_cast<int>(n);
  return MPI_SUCCESS;
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype type, MPI_Comm comm) {
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  Err e = check_pack("MPI_Unpack", outcount, type, comm, position, insize, "insize", &t, &c);
  const std::size_t n = e == Err::ok ? packed_size(*t, static_cast<std::size_t>(outcount)) : 0;
  if (e == Err::ok && n > 0 && inbuf == nullptr) e = fail(Err::buffer, "inbuf is NULL");
  if (e == Err::ok && n > 0 && outbuf == nullptr && !buffer_may_be_null(*t, outcount)) {
    e = fail(Err::buffer, "outbuf is NULL but %d elements of %s are to be unpacked", outcount,
             t->name);
  }
  if (e == Err::ok && n > static_cast<std::size_t>(insize - *position)) {
    e = fail(Err::truncate, "unpacking %zu bytes at position %d runs past insize %d", n,
             *position, insize);
  }
  if (e != Err::ok) return raise(c, e);
  unpack(static_cast<const char*>(inbuf) + *position, n, outbuf,
         static_cast<std::size_t>(outcount), *t);
  *position += static_cast<int>(n);
  return MPI_SUCCESS;
}

}  // extern "C"
