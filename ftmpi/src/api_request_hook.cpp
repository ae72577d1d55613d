// For the Fortran bindings only (fortran/src/fortran_f08_staged.c, MPI_SUBARRAYS_SUPPORTED):
// a hook the library runs exactly once when a request is done with. `use mpi_f08` stages a
// strided section some nonblocking collectives need in a temporary; the temporary must be
// copied back into the section and freed when the request completes, whichever API completes
// it (mpi_f08, `use mpi`, C) and through whichever call (Wait/Test and their forms,
// MPI_Request_get_status). Keeping that with the request record, rather than in a table the
// Fortran layer keys by handle number, means a later request that reuses the handle number
// can never be taken for the staged one.
//
// When it runs (Request::on_done, request.h): the first of
//   - the request's completion handed to the user (retire: MPI_Wait/Test/...any/some/all,
//     MPI_Request_free of a complete request), success or error alike;
//   - MPI_Request_get_status reporting it complete;
//   - its record recycled without either (MPI_Request_free while it was pending);
//   - MPI_Finalize, for a request the application never completed: `completed` is 0 there
//     (the operation may not have ended; what the hook owns is freed, nothing copied back).
// The hook runs under the library lock, on whichever thread completes the request, and must
// make no MPI call. Not an MPI call: lower-case name, declared in fortran/src/fortran_support.h.
#include "library.h"
#include "library_lock.h"

using namespace ftmpi;

extern "C" __attribute__((visibility("default"))) int ftmpi_request_on_done(
    MPI_Request request, void (*fn)(void* arg, int completed), void* arg) {
  LibraryLock::Entry entry;
  if (fn == nullptr) return MPI_ERR_ARG;
  Request* r = lib().engine.requests().find(request);
  // A persistent request is never retired by a completion (it turns inactive), and one hook
  // per request keeps "exactly once" simple.
  if (r == nullptr || r->kind == Request::Kind::persistent || r->on_done != nullptr) {
    return MPI_ERR_REQUEST;
  }
  r->on_done = fn;
  r->on_done_arg = arg;
  return MPI_SUCCESS;
}
