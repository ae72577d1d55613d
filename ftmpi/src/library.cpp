#include "library.h"

#include <cstdio>
#include <string>

namespace ftmpi {

namespace detail {
std::atomic<Library*> g_library{nullptr};

Library& make_library() {
  static Library instance;
  g_library.store(&instance, std::memory_order_release);
  return instance;
}
}  // namespace detail

int raise(Comm* comm, Err e) { return raise_code(comm, to_code(e)); }

int raise_failure(Comm* comm, int code) {
  // A nonblocking collective's body (nbc.h): the error completes its request, and the handler
  // runs when the application waits for it.
  if (Fiber::running() || HeldHandlers::held()) return code;
  Library& l = lib();
  // Outside MPI_Init..MPI_Finalize there is no handler to run: just report.
  if (!l.initialized || l.finalized) return code;
  // An error with no valid communicator goes to MPI_COMM_WORLD's handler (MPI-1.3, 7.2).
  if (comm == nullptr) comm = l.comms.world();
  MPI_Errhandler handler = comm != nullptr ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
  if (handler == MPI_ERRORS_RETURN) return code;
  if (handler >= kFirstUserErrhandler &&
      static_cast<std::size_t>(handler - kFirstUserErrhandler) < l.errhandlers.size()) {
    MPI_Comm handle = comm->handle;
    int c = code;
    l.errhandlers[static_cast<std::size_t>(handler - kFirstUserErrhandler)](&handle, &c);
    return code;
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (!error_text(code, text, &len)) std::snprintf(text, sizeof text, "error code %d", code);
  // Printed once, with the rank and the code, by mpirun (or by Runtime::abort without one).
  l.runtime.abort(error_class_of(code), "fatal error on " + comm->name + ": " + text);
}

int raise_world(Err e) { return raise(nullptr, e); }

Err not_initialized(const char* fn) {
  Library& l = lib();
  if (!l.initialized) return fail(Err::other, "%s called before MPI_Init", fn);
  if (l.finalized) return fail(Err::other, "%s called after MPI_Finalize", fn);
  return Err::ok;
}

}  // namespace ftmpi
