// C API: the ULFM calls of mpi-ext.h (SPEC 4.8). Arguments are checked here; revoke, agree and
// shrink live in ulfm.cpp, failure state in FaultHandler (ft.cpp). They work on communicators
// in every mode, and on a revoked communicator (they are the way out of one).
#include <algorithm>

#include "group.h"
#include "library.h"

using namespace ftmpi;

namespace {

Err find(MPI_Comm comm, Comm** c, const char* fn) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  if (Err e = lib().comms.lookup(comm, c); e != Err::ok) return e;
  if ((*c)->inter) {
    return fail(Err::comm, "%s: %s is an intercommunicator; the ULFM calls support "
                "intracommunicators only", fn, (*c)->name.c_str());
  }
  lib().engine.progress();  // failure notices and revokes that arrived are taken into account
  return Err::ok;
}

// The failed processes of c this process knows of, the first `n` of them (in the order it
// learned of them), as a group.
MPI_Group failed_group(const Comm& c, std::size_t n) {
  std::vector<std::uint32_t> procs;
  for (std::size_t i = 0; i < n && i < c.failed.size(); ++i) {
    procs.push_back(c.procs[static_cast<std::size_t>(c.failed[i])]);
  }
  return make_group(procs, c.procs[static_cast<std::size_t>(c.rank)]);
}

}  // namespace

extern "C" {

int MPIX_Comm_revoke(MPI_Comm comm) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_revoke"); e != Err::ok) return raise(c, e);
  lib().ulfm.revoke(c);
  return MPI_SUCCESS;
}

int MPIX_Comm_is_revoked(MPI_Comm comm, int* flag) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_is_revoked"); e != Err::ok) return raise(c, e);
  if (flag == nullptr) return raise(c, fail(Err::arg, "flag pointer is NULL"));
  *flag = c->revoked ? 1 : 0;
  return MPI_SUCCESS;
}

int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_shrink"); e != Err::ok) return raise(c, e);
  if (newcomm == nullptr) return raise(c, fail(Err::arg, "newcomm pointer is NULL"));
  return raise(c, lib().ulfm.shrink(c, newcomm));
}

int MPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_ishrink"); e != Err::ok) return raise(c, e);
  if (request == nullptr) return raise(c, fail(Err::request, "request pointer is NULL"));
  if (newcomm == nullptr) return raise(c, fail(Err::arg, "newcomm pointer is NULL"));
  Request* r = nullptr;
  if (Err e = lib().ulfm.ishrink(c, newcomm, &r); e != Err::ok) return raise(c, e);
  *request = r->handle;
  return MPI_SUCCESS;
}

int MPIX_Comm_agree(MPI_Comm comm, int* flag) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_agree"); e != Err::ok) return raise(c, e);
  if (flag == nullptr) return raise(c, fail(Err::arg, "flag pointer is NULL"));
  return raise(c, lib().ulfm.agree(c, flag));
}

int MPIX_Comm_iagree(MPI_Comm comm, int* flag, MPI_Request* request) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_iagree"); e != Err::ok) return raise(c, e);
  if (request == nullptr) return raise(c, fail(Err::request, "request pointer is NULL"));
  if (flag == nullptr) return raise(c, fail(Err::arg, "flag pointer is NULL"));
  Request* r = nullptr;
  if (Err e = lib().ulfm.iagree(c, flag, &r); e != Err::ok) return raise(c, e);
  *request = r->handle;
  return MPI_SUCCESS;
}

int MPIX_Comm_failure_ack(MPI_Comm comm) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_failure_ack"); e != Err::ok) return raise(c, e);
  c->acked = static_cast<int>(c->failed.size());
  return MPI_SUCCESS;
}

int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* failedgrp) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_failure_get_acked"); e != Err::ok) return raise(c, e);
  if (failedgrp == nullptr) return raise(c, fail(Err::arg, "failedgrp pointer is NULL"));
  *failedgrp = failed_group(*c, static_cast<std::size_t>(c->acked));
  return MPI_SUCCESS;
}

int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group* failedgrp) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_get_failed"); e != Err::ok) return raise(c, e);
  if (failedgrp == nullptr) return raise(c, fail(Err::arg, "failedgrp pointer is NULL"));
  *failedgrp = failed_group(*c, c->failed.size());
  return MPI_SUCCESS;
}

int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int* num_acked) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPIX_Comm_ack_failed"); e != Err::ok) return raise(c, e);
  if (num_to_ack < 0) return raise(c, fail(Err::arg, "num_to_ack %d is negative", num_to_ack));
  if (num_acked == nullptr) return raise(c, fail(Err::arg, "num_acked pointer is NULL"));
  // Acknowledges the first num_to_ack of MPIX_Comm_get_failed's group; never takes one back.
  const int known = static_cast<int>(c->failed.size());
  c->acked = std::max(c->acked, std::min(num_to_ack, known));
  *num_acked = c->acked;
  return MPI_SUCCESS;
}

}  // extern "C"
