// C API: attribute caching on communicators (MPI-1 keyvals and the MPI-2 names for them) and
// on datatypes (MPI-3.1 6.7.4), over the one attribute store (attributes.h).
#include "attributes.h"
#include "library.h"

using namespace ftmpi;

namespace {
Err find(MPI_Comm comm, Comm** c) {
  if (Err e = check_initialized("attribute call"); e != Err::ok) return e;
  return lib().comms.lookup(comm, c);
}

// Datatype attribute calls name no communicator: MPI_COMM_WORLD's handler, like the other
// datatype calls. Predefined datatypes carry attributes too (MPICH's attr/attrordertype).
Err find_type(MPI_Datatype type) {
  if (Err e = check_initialized("datatype attribute call"); e != Err::ok) return e;
  const Datatype* t = nullptr;
  return lib().types.find(type, &t);
}
}  // namespace

extern "C" {

int ftmpi_null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int ftmpi_dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int ftmpi_null_delete_fn(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn,
                           MPI_Comm_delete_attr_function* delete_fn, int* keyval,
                           void* extra_state) {
  if (Err e = check_initialized("MPI_Comm_create_keyval"); e != Err::ok) return to_code(e);
  if (keyval == nullptr) return raise_world(fail(Err::arg, "keyval pointer is NULL"));
  return raise_world(lib().attrs.create_keyval(AttrKind::comm, copy_fn, delete_fn, extra_state, keyval));
}

int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                      void* extra_state) {
  return MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Comm_free_keyval(int* keyval) {
  if (Err e = check_initialized("MPI_Comm_free_keyval"); e != Err::ok) return to_code(e);
  if (keyval == nullptr) return raise_world(fail(Err::arg, "keyval pointer is NULL"));
  return raise_world(lib().attrs.free_keyval(AttrKind::comm, keyval));
}

int MPI_Keyval_free(int* keyval) { return MPI_Comm_free_keyval(keyval); }

int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void* value) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  return raise(c, lib().attrs.set(c, keyval, value));
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void* value) { return MPI_Comm_set_attr(comm, keyval, value); }

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  if (value == nullptr || flag == nullptr) return raise(c, fail(Err::arg, "NULL output pointer"));
  lib().engine.progress();  // let pending failure notifications update the FT attributes
  return raise(c, lib().attrs.get(c, keyval, static_cast<void**>(value), flag,
                                  lib().runtime.universe_size()));
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void* value, int* flag) {
  return MPI_Comm_get_attr(comm, keyval, value, flag);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c); e != Err::ok) return raise(c, e);
  return raise(c, lib().attrs.remove(c, keyval));
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) { return MPI_Comm_delete_attr(comm, keyval); }

int MPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn,
                           MPI_Type_delete_attr_function* delete_fn, int* keyval,
                           void* extra_state) {
  if (Err e = check_initialized("MPI_Type_create_keyval"); e != Err::ok) return to_code(e);
  if (keyval == nullptr) return raise_world(fail(Err::arg, "keyval pointer is NULL"));
  return raise_world(lib().attrs.create_keyval(AttrKind::type, copy_fn, delete_fn, extra_state, keyval));
}

int MPI_Type_free_keyval(int* keyval) {
  if (Err e = check_initialized("MPI_Type_free_keyval"); e != Err::ok) return to_code(e);
  if (keyval == nullptr) return raise_world(fail(Err::arg, "keyval pointer is NULL"));
  return raise_world(lib().attrs.free_keyval(AttrKind::type, keyval));
}

int MPI_Type_set_attr(MPI_Datatype type, int keyval, void* value) {
  if (Err e = find_type(type); e != Err::ok) return raise_world(e);
  return raise_world(lib().attrs.type_set(type, keyval, value));
}

int MPI_Type_get_attr(MPI_Datatype type, int keyval, void* value, int* flag) {
  if (Err e = find_type(type); e != Err::ok) return raise_world(e);
  if (value == nullptr || flag == nullptr) return raise_world(fail(Err::arg, "NULL output pointer"));
  return raise_world(lib().attrs.type_get(type, keyval, static_cast<void**>(value), flag));
}

int MPI_Type_delete_attr(MPI_Datatype type, int keyval) {
  if (Err e = find_type(type); e != Err::ok) return raise_world(e);
  return raise_world(lib().attrs.type_remove(type, keyval));
}

}  // extern "C"
