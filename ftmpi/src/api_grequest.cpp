// Generalized requests (MPI-3.1 12.2): a request the application completes itself with
// MPI_Grequest_complete, and callbacks the library calls exactly as 12.2 says:
//   query_fn(extra, status)  by the Wait/Test (any form) that completes the request, before
//                            free_fn, and by MPI_Request_get_status of a complete request (as
//                            often as it is called); its return code is the call's error;
//   free_fn(extra)           once: by that completing call, or, after MPI_Request_free, by
//                            MPI_Request_free or MPI_Grequest_complete, whichever comes last;
//   cancel_fn(extra, done)   by MPI_Cancel, done = whether MPI_Grequest_complete was called.
// The record is an ordinary Request of kind greq (so every completion call, the any/some/all
// forms included, handles it where it handles the others: request_finish); the callbacks live
// beside it here, keyed by record, so the hot request record does not grow. A generalized
// request names no communicator and no peer, so process failures never touch it; its errors
// go through MPI_COMM_WORLD's handler. A NULL callback does nothing (query leaves an empty
// status).
#include <unordered_map>

#include "api_request.h"
#include "library.h"

using namespace ftmpi;

namespace {

struct Greq {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra = nullptr;
  bool user_freed = false;  // MPI_Request_free came before MPI_Grequest_complete
};

std::unordered_map<const Request*, Greq>& greqs() {
  static std::unordered_map<const Request*, Greq> table;
  return table;
}

// free_fn, then the record goes. The entry is erased first: free_fn may start new requests.
int free_and_release(Request* r) {
  auto it = greqs().find(r);
  const Greq g = it->second;
  greqs().erase(it);
  const int rc = g.free != nullptr ? g.free(g.extra) : MPI_SUCCESS;
  lib().engine.retire(r);
  return rc;
}

// The live greq record behind a handle, or nullptr.
Request* find_greq(MPI_Request handle) {
  Request* r = lib().engine.requests().find(handle);
  return r != nullptr && r->kind == Request::Kind::greq ? r : nullptr;
}

}  // namespace

namespace ftmpi {

int greq_query(Request* r, MPI_Status* st) {
  MPI_Status local;
  MPI_Status* s = st != MPI_STATUS_IGNORE ? st : &local;  // query_fn always gets a status
  fill_empty_status(s);
  const Greq& g = greqs().at(r);
  return g.query != nullptr ? g.query(g.extra, s) : MPI_SUCCESS;
}

int greq_finish(Request* r, MPI_Status* st, MPI_Request* handle) {
  const int query_rc = greq_query(r, st);
  const int free_rc = free_and_release(r);
  *handle = MPI_REQUEST_NULL;
  return query_rc != MPI_SUCCESS ? query_rc : free_rc;
}

int greq_cancel(Request* r) {
  const Greq& g = greqs().at(r);
  return g.cancel != nullptr ? g.cancel(g.extra, r->complete ? 1 : 0) : MPI_SUCCESS;
}

int greq_free(Request* r, MPI_Request* handle) {
  *handle = MPI_REQUEST_NULL;
  if (r->complete) return free_and_release(r);
  greqs().at(r).user_freed = true;  // MPI_Grequest_complete frees it
  return MPI_SUCCESS;
}

}  // namespace ftmpi

extern "C" {

int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                       MPI_Request* request) {
  if (Err e = check_initialized("MPI_Grequest_start"); e != Err::ok) return to_code(e);
  if (request == nullptr) return raise_world(fail(Err::arg, "MPI_Grequest_start: request is NULL"));
  Request* r = lib().engine.requests().allocate(Request::Kind::greq);
  r->source = MPI_ANY_SOURCE;
  greqs()[r] = Greq{query_fn, free_fn, cancel_fn, extra_state, false};
  *request = r->handle;
  return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request request) {
  if (Err e = check_initialized("MPI_Grequest_complete"); e != Err::ok) return to_code(e);
  Request* r = find_greq(request);
  if (r == nullptr) {
    return raise_world(fail(Err::request, "MPI_Grequest_complete: %d is not a generalized request", request));
  }
  if (r->complete) {
    return raise_world(fail(Err::request, "MPI_Grequest_complete: request %d is complete already", request));
  }
  // A waiting thread sees the flag on its next look (its wait sleeps in steps of at most
  // FTMPI_MAX_SLEEP_US, giving the library lock up meanwhile).
  r->complete = true;
  if (greqs().at(r).user_freed) return raise_code(nullptr, free_and_release(r));
  return MPI_SUCCESS;
}

}  // extern "C"
