// C API: conversion between C and Fortran handles and statuses (MPI-3.1 17.2.4). ftmpi's handles
// are integers already, so a handle converts to itself: the Fortran layer (fortran/) passes the
// INTEGER through, and a stale or garbage value is caught where it is used, as in C.
#include <cstddef>
#include <cstring>

#include "library.h"

using namespace ftmpi;

MPI_Comm MPI_Comm_f2c(MPI_Fint comm) { return comm; }
MPI_Fint MPI_Comm_c2f(MPI_Comm comm) { return comm; }
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype) { return datatype; }
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype) { return datatype; }
MPI_Group MPI_Group_f2c(MPI_Fint group) { return group; }
MPI_Fint MPI_Group_c2f(MPI_Group group) { return group; }
MPI_Request MPI_Request_f2c(MPI_Fint request) { return request; }
MPI_Fint MPI_Request_c2f(MPI_Request request) { return request; }
MPI_Op MPI_Op_f2c(MPI_Fint op) { return op; }
MPI_Fint MPI_Op_c2f(MPI_Op op) { return op; }
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler) { return errhandler; }
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler) { return errhandler; }
MPI_Message MPI_Message_f2c(MPI_Fint message) { return message; }
MPI_Fint MPI_Message_c2f(MPI_Message message) { return message; }
MPI_Info MPI_Info_f2c(MPI_Fint info) { return info; }
MPI_Fint MPI_Info_c2f(MPI_Info info) { return info; }

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
              "a Fortran status is the C struct, INTEGER by INTEGER");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
              "MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR");

// The IGNORE sentinels are not statuses: converting one is an error (MPI-3.1 17.2.5).
int MPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  if (f_status == MPI_F_STATUS_IGNORE || c_status == MPI_STATUS_IGNORE) {
    return raise_world(fail(Err::arg, "MPI_Status_f2c: an IGNORE status cannot be converted"));
  }
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

int MPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  if (c_status == MPI_STATUS_IGNORE || f_status == MPI_F_STATUS_IGNORE) {
    return raise_world(fail(Err::arg, "MPI_Status_c2f: an IGNORE status cannot be converted"));
  }
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

// MPI_F08_status is MPI_Status (mpi.h), and a Fortran INTEGER status the same five integers.
namespace {
int copy_status(const void* from, void* to, const char* fn) {
  if (from == nullptr || to == nullptr) {
    return raise_world(fail(Err::arg, "%s: an IGNORE status cannot be converted", fn));
  }
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
}  // namespace

int MPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return copy_status(f08_status, c_status, "MPI_Status_f082c");
}
int MPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return copy_status(c_status, f08_status, "MPI_Status_c2f08");
}
int MPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  return copy_status(f08_status, f_status, "MPI_Status_f082f");
}
int MPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  return copy_status(f_status, f08_status, "MPI_Status_f2f08");
}
