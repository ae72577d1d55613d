// Helpers the C API files share for finishing requests (api_p2p.cpp, api_completion.cpp).
#pragma once

#include <mpi.h>

#include "comm.h"
#include "library.h"

namespace ftmpi {

struct Request;

// A request may hold the last reference to a communicator freed while it was pending: its
// record is recycled inside request_finish/retire, yet the communicator's error handler may
// still have to report the request's error. keep() holds such a communicator until this goes
// out of scope (after the return value is computed); live ones cost one load and a branch.
class KeepFreedComm {
 public:
  KeepFreedComm() = default;
  explicit KeepFreedComm(Comm* c) { keep(c); }
  ~KeepFreedComm() { release(); }
  KeepFreedComm(const KeepFreedComm&) = delete;
  KeepFreedComm& operator=(const KeepFreedComm&) = delete;
  void keep(Comm* c) {
    if (__builtin_expect(c == nullptr || !c->freed || c == c_, 1)) return;
    release();
    lib().construct.hold(c);
    c_ = c;
  }

 private:
  void release() {
    if (c_ != nullptr) lib().construct.drop(c_);
    c_ = nullptr;
  }
  Comm* c_ = nullptr;
};

// Completed request -> user: fills the status, unpacks a staged receive, recycles the record,
// sets the handle to MPI_REQUEST_NULL and returns the request's error code.
int retire(Request* r, MPI_Status* st, MPI_Request* handle);
// The status of a completed request: source, tag, byte count, cancelled.
void fill_status(const Request& r, MPI_Status* st);
// The status of a null or inactive request (MPI-1.3 3.7.3).
void fill_empty_status(MPI_Status* st);

// The completion functions treat every request through these three, so a persistent request
// (whose handle stays valid and which may be inactive) and an ordinary one look alike.
// The operation a request stands for right now: itself, a persistent request's started
// operation, or nullptr when it is an inactive persistent request.
Request* operation_of(Request* r);
// Complete (or inactive, which counts as complete)?
bool request_done(Request* r);
// Finishes a done request: status, error code; ordinary requests are freed and the handle set
// to MPI_REQUEST_NULL, persistent ones become inactive and keep their handle.
int request_finish(Request* r, MPI_Status* st, MPI_Request* handle);
// MPI_Request_free of a persistent request: drops the datatype and communicator it held.
void release_persistent(Request* r);

// Persistent collectives (api_pcoll.cpp). MPI_Start of one: starts a run of its collective
// as a nonblocking collective (nbc.h) and sets *inner to that run's request; returns the
// MPI error code of a run refused at once (an argument error), with *inner unchanged.
int start_collective(Request* r, MPI_Request* inner);
// MPI_Request_free of an inactive one: its call and the datatypes it held go.
void release_collective(Request* r);

// request_done of an MPI_Isendrecv pair (api_isendrecv.cpp): once both parts are complete
// the pair takes the receive's status and the first error (the receive's, else the send's),
// retires them and is complete; true too while its receive is blocked as a ULFM wildcard.
bool pair_done(Request* pair);
// MPI_Request_free of a pair: its parts go on alone and are recycled when they complete.
void pair_free(Request* pair);
// MPI_Cancel of a pending pair: cancels both parts; pair_done reports it cancelled when both
// were, and MPI_ERR_REQUEST when only one was (the other half took place).
void pair_cancel(Request* pair);

// MPI_Cancel of a buffered send's proxy request (MPI_Ibsend, a started MPI_Bsend_init): asks
// to cancel the send behind it; the proxy is then pending until the answer comes.
void cancel_buffered(Request* proxy);
// request_done of such a pending proxy: takes the send's outcome (cancelled or not) once known.
bool buffered_cancel_done(Request* proxy);

// Generalized requests (api_grequest.cpp), each on a complete (or, for cancel and free, any)
// request of kind greq. greq_finish: query_fn into st (a scratch status for IGNORE), free_fn,
// record recycled, handle set to MPI_REQUEST_NULL; returns query_fn's error, else free_fn's.
int greq_finish(Request* r, MPI_Status* st, MPI_Request* handle);
// query_fn only (MPI_Request_get_status); the request stays.
int greq_query(Request* r, MPI_Status* st);
int greq_cancel(Request* r);                       // cancel_fn(extra, complete)
int greq_free(Request* r, MPI_Request* handle);    // MPI_Request_free

}  // namespace ftmpi
