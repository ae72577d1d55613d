// C API: error classes, strings and handlers; communicator rank and size.
#include <cstring>

#include "library.h"

using namespace ftmpi;

namespace {
Err check_errhandler(MPI_Errhandler h) {
  if (h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_RETURN) {
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
