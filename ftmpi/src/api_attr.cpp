// C API: attribute caching on communicators (MPI-1 keyvals and the MPI-2 names for them).
#include "attributes.h"
#include "library.h"

using namespace ftmpi;

namespace {
Err find(MPI_Comm comm, Comm** c) {
  if (Err e = check_initialized("attribute call"); e != Err::ok) return e;
  return lib().comms.lookup(comm, c);
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
  return raise_world(lib().attrs.create_keyval(copy_fn, delete_fn, extra_state, keyval));
}

int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                      void* extra_state) {
  return MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Comm_free_keyval(int* keyval) {
  if (Err e = check_initialized("MPI_Comm_free_keyval"); e != Err::ok) return to_code(e);
  if (keyval == nullptr) return raise_world(fail(Err::arg, "keyval pointer is NULL"));
  return raise_world(lib().attrs.free_keyval(keyval));
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

}  // extern "C"
