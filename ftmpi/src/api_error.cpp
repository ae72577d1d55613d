// C API: error classes, strings and handlers; communicator rank and size.
#include <cstring>

#include "library.h"

using namespace ftmpi;

namespace {
Err check_errhandler(MPI_Errhandler h) {
  bool user = h >= kFirstUserErrhandler &&
              static_cast<std::size_t>(h - kFirstUserErrhandler) < lib().errhandlers.size() &&
              lib().errhandlers[static_cast<std::size_t>(h - kFirstUserErrhandler)] != nullptr;
  if (h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_RETURN && !user) {
    return fail(Err::arg, "errhandler %d is not a valid error handler", h);
  }
  return Err::ok;
}
}  // namespace

extern "C" {

int MPI_Error_class(int errorcode, int* errorclass) {
  if (errorclass == nullptr) return raise_world(fail(Err::arg, "errorclass pointer is NULL"));
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (!error_text(errorcode, buf, &len)) {
    return raise_world(fail(Err::arg, "%d is not a valid error code", errorcode));
  }
  *errorclass = error_class_of(errorcode);
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (string == nullptr || resultlen == nullptr) {
    return raise_world(fail(Err::arg, "string or resultlen pointer is NULL"));
  }
  if (!error_text(errorcode, string, resultlen)) {
    return raise_world(fail(Err::arg, "%d is not a valid error code", errorcode));
  }
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  if (Err e = check_initialized("MPI_Comm_set_errhandler"); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise_world(e);
  if (Err e = check_errhandler(errhandler); e != Err::ok) return raise(c, e);
  c->errhandler = errhandler;
  c->errhandler_chosen = true;
  return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  if (Err e = check_initialized("MPI_Comm_get_errhandler"); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise_world(e);
  if (errhandler == nullptr) return raise(c, fail(Err::arg, "errhandler pointer is NULL"));
  *errhandler = c->errhandler;
  return MPI_SUCCESS;
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return MPI_Comm_get_errhandler(comm, errhandler);
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  if (fn == nullptr || errhandler == nullptr) return raise_world(fail(Err::arg, "NULL argument"));
  lib().errhandlers.push_back(fn);
  *errhandler = kFirstUserErrhandler + static_cast<MPI_Errhandler>(lib().errhandlers.size() - 1);
  return MPI_SUCCESS;
}

int MPI_Errhandler_create(MPI_Handler_function* fn, MPI_Errhandler* errhandler) {
  return MPI_Comm_create_errhandler(fn, errhandler);
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  if (errhandler == nullptr) return raise_world(fail(Err::arg, "errhandler pointer is NULL"));
  if (Err e = check_errhandler(*errhandler); e != Err::ok) return raise_world(e);
  // Communicators still using it keep calling it (MPI-1.3 8.2); the handle alone goes away.
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int MPI_Add_error_class(int* errorclass) {
  if (Err e = check_initialized("MPI_Add_error_class"); e != Err::ok) return to_code(e);
  if (errorclass == nullptr) return raise_world(fail(Err::arg, "errorclass pointer is NULL"));
  return raise_world(add_error_class(errorclass));
}

int MPI_Add_error_code(int errorclass, int* errorcode) {
  if (Err e = check_initialized("MPI_Add_error_code"); e != Err::ok) return to_code(e);
  if (errorcode == nullptr) return raise_world(fail(Err::arg, "errorcode pointer is NULL"));
  return raise_world(add_error_code(errorclass, errorcode));
}

int MPI_Add_error_string(int errorcode, const char* string) {
  if (Err e = check_initialized("MPI_Add_error_string"); e != Err::ok) return to_code(e);
  if (string == nullptr) return raise_world(fail(Err::arg, "string pointer is NULL"));
  return raise_world(set_error_string(errorcode, string));
}

// Runs the communicator's handler as if an MPI call on it had failed with errorcode; returns
// MPI_SUCCESS once the handler returned (MPI-2.2 8.3.6).
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  if (Err e = check_initialized("MPI_Comm_call_errhandler"); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise_world(e);
  (void)raise_code(c, errorcode);
  return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  if (Err e = check_initialized("MPI_Comm_rank"); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise_world(e);
  if (rank == nullptr) return raise(c, fail(Err::arg, "rank pointer is NULL"));
  *rank = c->rank;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  if (Err e = check_initialized("MPI_Comm_size"); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise_world(e);
  if (size == nullptr) return raise(c, fail(Err::arg, "size pointer is NULL"));
  *size = c->size();
  return MPI_SUCCESS;
}

}  // extern "C"
