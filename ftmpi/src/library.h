// The process-wide MPI state: one instance, created by MPI_Init, owned here. The C API files
// reach it through lib(); nothing below the API layer touches globals.
#pragma once

#include <mpi.h>

#include <atomic>
#include <thread>
#include <vector>

#include "attributes.h"
#include "comm.h"
#include "consensus.h"
#include "construct.h"
#include "datatype.h"
#include "engine.h"
#include "error.h"
#include "ft.h"
#include "nbc.h"
#include "rebuild.h"
#include "reduction.h"
#include "runtime.h"
#include "ulfm.h"

namespace ftmpi {

struct Library {
  Runtime runtime;
  Engine engine;
  CommTable comms;
  DatatypeTable types;
  OpTable ops;
  Attributes attrs;
  FaultHandler ft{&comms, &engine, &runtime};
  Consensus consensus{&engine};
  Rebuilder rebuilder{&comms, &engine, &consensus, &runtime};
  Constructor construct{&comms, &engine, &consensus, &rebuilder};
  Ulfm ulfm{&comms, &engine, &consensus, &construct};
  Nbc nbc{&engine, &construct, &types};
  bool initialized = false;
  bool finalized = false;
  int init_state = FTMPI_INIT_NEW;
  int thread_level = MPI_THREAD_FUNNELED;
  std::thread::id main_thread;  // the thread that called MPI_Init (MPI_Is_thread_main)
  // User error handlers; handle = kFirstUserErrhandler + index.
  std::vector<MPI_Comm_errhandler_function*> errhandlers;
};

// The one library object. Called on every path of every call (a point-to-point round called
// it ~15 times), so it is inline: one load of a pointer set by the first call. It was an
// out-of-line function-local static (a call and the guard check, 12 instructions each time).
namespace detail {
extern std::atomic<Library*> g_library;
Library& make_library();
}  // namespace detail
inline Library& lib() {
  Library* l = detail::g_library.load(std::memory_order_acquire);
  return __builtin_expect(l != nullptr, 1) ? *l : detail::make_library();
}
constexpr MPI_Errhandler kFirstUserErrhandler = 3;

// API-edge helpers. Both return an MPI error code; errors go through the communicator's handler
// (MPI_COMM_WORLD's when there is no valid communicator), which may end the job.
int raise(Comm* comm, Err e);
// Every call ends here, almost always with MPI_SUCCESS: that case stays inline.
int raise_failure(Comm* comm, int code);
inline int raise_code(Comm* comm, int code) {
  return __builtin_expect(code == MPI_SUCCESS, 1) ? code : raise_failure(comm, code);
}
int raise_world(Err e);
// Held while a call is made of other calls (MPI_Sendrecv of MPI_Irecv, MPI_Isend, MPI_Waitall):
// their errors come back to it as codes, and it raises the one error the application sees,
// once. Without it a user handler saw MPI_ERR_IN_STATUS from the inner MPI_Waitall instead of
// the failure (the ULFM tutorial's 03.undisturbed aborted on it).
class HeldHandlers {
 public:
  HeldHandlers() { ++depth(); }
  ~HeldHandlers() { --depth(); }
  HeldHandlers(const HeldHandlers&) = delete;
  HeldHandlers& operator=(const HeldHandlers&) = delete;
  static bool held() { return depth() > 0; }

 private:
  static int& depth() {
    thread_local int d = 0;
    return d;
  }
};
// Err::other with a message, for calls made outside the MPI_Init..MPI_Finalize window.
// Inline for the same reason as lib(); the message is made out of line.
Err not_initialized(const char* fn);
inline Err check_initialized(const char* fn) {
  const Library& l = lib();
  if (__builtin_expect(l.initialized && !l.finalized, 1)) return Err::ok;
  return not_initialized(fn);
}

}  // namespace ftmpi
