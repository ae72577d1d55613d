// C API: completing requests — Wait/Test and their any/some/all variants, Request_free.
// MPI-1.3 3.7.3/3.7.5: null requests count as inactive; "any"/"some" over only inactive
// requests return MPI_UNDEFINED; errors of the multiple-completion calls are reported per
// request in MPI_ERROR with MPI_ERR_IN_STATUS.
#include <cstdint>

#include "api_request.h"
#include "library.h"
#include "status_count.h"

using namespace ftmpi;

namespace {

// Every handle is null or a live request, and none appears twice: completing the first would
// free the record the second still names. One pass, marking each record it meets.
Err check_array(int count, const MPI_Request* reqs) {
  if (count < 0) return fail(Err::count, "count %d is negative", count);
  if (count > 0 && reqs == nullptr) return fail(Err::request, "request array is NULL");
  RequestPool& pool = lib().engine.requests();
  const std::uint32_t mark = count > 1 ? pool.new_mark() : 0;
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    Request* r = pool.find(reqs[i]);
    if (r == nullptr) return fail(Err::request, "request %d (index %d) is not active", reqs[i], i);
    if (mark != 0 && !RequestPool::mark_once(r, mark)) {
      return fail(Err::request, "request %d appears twice in the array (again at index %d)",
                  reqs[i], i);
    }
  }
  return Err::ok;
}

// Null handles and inactive persistent requests are ignored by the any/some variants.
bool inactive(MPI_Request h) {
  return h == MPI_REQUEST_NULL || operation_of(lib().engine.requests().find(h)) == nullptr;
}

bool all_inactive(int count, const MPI_Request* reqs) {
  for (int i = 0; i < count; ++i) {
    if (!inactive(reqs[i])) return false;
  }
  return true;
}

// Index of a complete request, or -1.
int find_complete(int count, const MPI_Request* reqs) {
  RequestPool& pool = lib().engine.requests();
  for (int i = 0; i < count; ++i) {
    if (inactive(reqs[i])) continue;
    if (request_done(pool.find(reqs[i]))) return i;
  }
  return -1;
}

// MPI_Waitany/MPI_Waitsome: the request they wait for when it is the array's only unfinished
// one and a nonblocking collective, else nullptr. That one may then run to its end inline,
// as in MPI_Wait (Nbc::wait). Not with another unfinished request beside it: the call must
// return as soon as that one completes, and the application may need that return (its
// reply) before the collective can end anywhere. Looks at completion flags only: no polling.
Request* sole_unfinished_nbc(int count, const MPI_Request* reqs) {
  RequestPool& pool = lib().engine.requests();
  Request* found = nullptr;
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    Request* op = operation_of(pool.find(reqs[i]));
    if (op == nullptr) continue;       // an inactive persistent request
    if (op->complete) return nullptr;  // the call returns at once
    if (found != nullptr || op->kind != Request::Kind::nbc) return nullptr;
    found = op;
  }
  return found;
}

// The nonblocking collective MPI_Wait/MPI_Waitall may run to its end inline (Nbc::wait): r
// itself, or the run a persistent collective (MPI_Allreduce_init, ...) started; else nullptr.
inline Request* nbc_run_of(Request* r) {
  if (r->kind == Request::Kind::nbc) return r;
  if (r->kind != Request::Kind::persistent || r->persistent.coll == nullptr) return nullptr;
  return operation_of(r);  // nullptr while inactive
}

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// Retires every complete request; fills outcount/indices/statuses as Waitsome/Testsome do.
int retire_some(int count, MPI_Request* reqs, int* outcount, int* indices, MPI_Status* statuses) {
  RequestPool& pool = lib().engine.requests();
  int n = 0, first_error = MPI_SUCCESS;
  Comm* err_comm = nullptr;
  KeepFreedComm err_keep;
  for (int i = 0; i < count; ++i) {
    if (inactive(reqs[i])) continue;
    Request* r = pool.find(reqs[i]);
    if (!request_done(r)) continue;
    Comm* comm = r->comm;
    KeepFreedComm keep(comm);
    MPI_Status* st = status_at(statuses, n);
    int e = request_finish(r, st, &reqs[i]);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = e;
    if (e != MPI_SUCCESS && first_error == MPI_SUCCESS) {
      first_error = e;
      err_comm = comm;
      err_keep.keep(comm);
    }
    indices[n++] = i;
  }
  *outcount = n;
  return first_error == MPI_SUCCESS ? MPI_SUCCESS : raise(err_comm, Err::in_status);
}

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (Err e = check_initialized("MPI_Wait"); e != Err::ok) return to_code(e);
  if (request == nullptr) return raise_world(fail(Err::request, "request pointer is NULL"));
  if (*request == MPI_REQUEST_NULL) {
    fill_empty_status(status);
    return MPI_SUCCESS;
  }
  Request* r = lib().engine.requests().find(*request);
  if (r == nullptr) return raise_world(fail(Err::request, "request %d is not active", *request));
  Comm* comm = r->comm;
  if (Request* run = nbc_run_of(r)) lib().nbc.wait(run);  // the usual case runs to its end here
  lib().engine.wait_until([r] { return request_done(r); });
  KeepFreedComm keep(comm);
  return raise_code(comm, request_finish(r, status, request));
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (Err e = check_initialized("MPI_Test"); e != Err::ok) return to_code(e);
  if (request == nullptr) return raise_world(fail(Err::request, "request pointer is NULL"));
  if (flag == nullptr) return raise_world(fail(Err::arg, "flag pointer is NULL"));
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    fill_empty_status(status);
    return MPI_SUCCESS;
  }
  Request* r = lib().engine.requests().find(*request);
  if (r == nullptr) return raise_world(fail(Err::request, "request %d is not active", *request));
  if (!request_done(r)) lib().engine.progress();
  if (!request_done(r)) {
    *flag = 0;
    lib().engine.poll_missed();
    return MPI_SUCCESS;
  }
  *flag = 1;
  Comm* comm = r->comm;
  KeepFreedComm keep(comm);
  return raise_code(comm, request_finish(r, status, request));
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (Err e = check_initialized("MPI_Waitall"); e != Err::ok) return to_code(e);
  if (Err e = check_array(count, requests); e != Err::ok) return raise_world(e);
  RequestPool& pool = lib().engine.requests();
  bool any_error = false;
  Comm* err_comm = nullptr;
  KeepFreedComm err_keep;
  for (int i = 0; i < count; ++i) {
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    if (requests[i] == MPI_REQUEST_NULL) {
      fill_empty_status(st);
      if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = MPI_SUCCESS;
      continue;
    }
    Request* r = pool.find(requests[i]);
    Comm* comm = r->comm;
    if (Request* run = nbc_run_of(r)) lib().nbc.wait(run);  // as in MPI_Wait
    lib().engine.wait_until([r] { return request_done(r); });
    KeepFreedComm keep(comm);
    int e = request_finish(r, st, &requests[i]);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = e;
    if (e != MPI_SUCCESS) {
      any_error = true;
      err_comm = comm;
      err_keep.keep(comm);
    }
  }
  return any_error ? raise(err_comm, Err::in_status) : MPI_SUCCESS;
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (Err e = check_initialized("MPI_Waitany"); e != Err::ok) return to_code(e);
  if (Err e = check_array(count, requests); e != Err::ok) return raise_world(e);
  if (index == nullptr) return raise_world(fail(Err::arg, "index pointer is NULL"));
  if (all_inactive(count, requests)) {
    *index = MPI_UNDEFINED;
    fill_empty_status(status);
    return MPI_SUCCESS;
  }
  if (Request* r = sole_unfinished_nbc(count, requests)) lib().nbc.wait(r);  // as in MPI_Wait
  int i = -1;
  lib().engine.wait_until([&] { return (i = find_complete(count, requests)) >= 0; });
  Request* r = lib().engine.requests().find(requests[i]);
  Comm* comm = r->comm;
  KeepFreedComm keep(comm);
  *index = i;
  return raise_code(comm, request_finish(r, status, &requests[i]));
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (Err e = check_initialized("MPI_Testany"); e != Err::ok) return to_code(e);
  if (Err e = check_array(count, requests); e != Err::ok) return raise_world(e);
  if (index == nullptr || flag == nullptr) return raise_world(fail(Err::arg, "index or flag pointer is NULL"));
  if (all_inactive(count, requests)) {
    *index = MPI_UNDEFINED;
    *flag = 1;
    fill_empty_status(status);
    return MPI_SUCCESS;
  }
  lib().engine.progress();
  int i = find_complete(count, requests);
  if (i < 0) {
    *flag = 0;
    *index = MPI_UNDEFINED;
    lib().engine.poll_missed();
    return MPI_SUCCESS;
  }
  Request* r = lib().engine.requests().find(requests[i]);
  Comm* comm = r->comm;
  KeepFreedComm keep(comm);
  *flag = 1;
  *index = i;
  return raise_code(comm, request_finish(r, status, &requests[i]));
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (Err e = check_initialized("MPI_Waitsome"); e != Err::ok) return to_code(e);
  if (Err e = check_array(incount, requests); e != Err::ok) return raise_world(e);
  if (outcount == nullptr || (incount > 0 && indices == nullptr)) {
    return raise_world(fail(Err::arg, "outcount or indices pointer is NULL"));
  }
  if (all_inactive(incount, requests)) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  if (Request* r = sole_unfinished_nbc(incount, requests)) lib().nbc.wait(r);  // as in MPI_Wait
  lib().engine.wait_until([&] { return find_complete(incount, requests) >= 0; });
  return retire_some(incount, requests, outcount, indices, statuses);
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (Err e = check_initialized("MPI_Testsome"); e != Err::ok) return to_code(e);
  if (Err e = check_array(incount, requests); e != Err::ok) return raise_world(e);
  if (outcount == nullptr || (incount > 0 && indices == nullptr)) {
    return raise_world(fail(Err::arg, "outcount or indices pointer is NULL"));
  }
  if (all_inactive(incount, requests)) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  lib().engine.progress();
  const int rc = retire_some(incount, requests, outcount, indices, statuses);
  if (rc == MPI_SUCCESS && *outcount == 0) lib().engine.poll_missed();
  return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (Err e = check_initialized("MPI_Testall"); e != Err::ok) return to_code(e);
  if (Err e = check_array(count, requests); e != Err::ok) return raise_world(e);
  if (flag == nullptr) return raise_world(fail(Err::arg, "flag pointer is NULL"));
  lib().engine.progress();
  RequestPool& pool = lib().engine.requests();
  for (int i = 0; i < count; ++i) {
    if (requests[i] != MPI_REQUEST_NULL && !request_done(pool.find(requests[i]))) {
      *flag = 0;
      lib().engine.poll_missed();
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return MPI_Waitall(count, requests, statuses);  // everything is complete: no waiting
}

int MPI_Cancel(MPI_Request* request) {
  if (Err e = check_initialized("MPI_Cancel"); e != Err::ok) return to_code(e);
  if (request == nullptr) return raise_world(fail(Err::request, "request pointer is NULL"));
  Request* r = lib().engine.requests().find(*request);
  if (r == nullptr) return raise_world(fail(Err::request, "request %d is not active", *request));
  if (r->kind == Request::Kind::nbc) {  // MPI-3.1 5.12: erroneous
    return raise(r->comm, fail(Err::request, "MPI_Cancel: request %d is a nonblocking collective", *request));
  }
  if (r->kind == Request::Kind::persistent && r->persistent.coll != nullptr) {  // MPI-4.0 3.8.4
    return raise(r->comm, fail(Err::request, "MPI_Cancel: request %d is a persistent collective",
                               *request));
  }
  if (r->kind == Request::Kind::greq) return raise_code(nullptr, greq_cancel(r));
  // A persistent request cancels the operation it has started, if any.
  if (Request* op = operation_of(r)) {
    if (op->kind == Request::Kind::done_at_once) {
      cancel_buffered(op);  // a buffered send's proxy
    } else if (op->kind == Request::Kind::pair) {
      pair_cancel(op);  // MPI_Isendrecv(_replace)
    } else {
      lib().engine.cancel(op);
    }
  }
  return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  if (status == nullptr || flag == nullptr) return raise_world(fail(Err::arg, "NULL pointer"));
  *flag = status_cancelled(status) ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request* request) {
  if (Err e = check_initialized("MPI_Request_free"); e != Err::ok) return to_code(e);
  if (request == nullptr) return raise_world(fail(Err::request, "request pointer is NULL"));
  Request* r = lib().engine.requests().find(*request);
  if (r == nullptr) return raise_world(fail(Err::request, "request %d is not active", *request));
  if (r->kind == Request::Kind::nbc && !r->complete) {  // MPI-3.1 5.12: erroneous
    return raise(r->comm, fail(Err::request, "MPI_Request_free: request %d is a pending "
                               "nonblocking collective; complete it with MPI_Wait or MPI_Test",
                               *request));
  }
  if (r->kind == Request::Kind::greq) return raise_code(nullptr, greq_free(r, request));
  if (r->kind == Request::Kind::persistent && r->persistent.coll != nullptr &&
      r->persistent.active != MPI_REQUEST_NULL) {  // MPI-4.0 6.13: only an inactive one
    return raise(r->comm, fail(Err::request, "MPI_Request_free: persistent collective request %d "
                               "is active; complete it with MPI_Wait or MPI_Test first",
                               *request));
  }
  if (r->kind == Request::Kind::persistent) {
    if (Request* op = operation_of(r)) lib().engine.abandon(op);
    release_persistent(r);
    *request = MPI_REQUEST_NULL;
  } else if (r->kind == Request::Kind::pair && !r->complete) {
    pair_free(r);
    *request = MPI_REQUEST_NULL;
  } else if (r->complete) {
    (void)retire(r, MPI_STATUS_IGNORE, request);
  } else {
    // The operation goes on; its record is recycled when it completes (Engine::complete).
    lib().engine.abandon(r);
    *request = MPI_REQUEST_NULL;
  }
  return MPI_SUCCESS;
}

}  // extern "C"
