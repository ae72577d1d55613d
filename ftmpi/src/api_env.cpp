// C API: environment management (init, finalize, abort, time, processor name, version).
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <strings.h>
#include <unistd.h>

#include <ftmpi/debug_log.h>

#include "coll_outcome.h"
#include "ftmpi_knobs/knobs.h"
#include "library.h"
#include "library_lock.h"
#include "monitor.h"
#include "spare_connect.h"

using namespace ftmpi;

namespace {

double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// A rank's stdout is a pipe to its daemon's relay, which stdio buffers fully: the lines a
// process prints just before it dies (a fault-tolerant job's usual last words) would die with
// it. Line-buffer it, as on a terminal (Open MPI gives its ranks a pseudo-terminal). Only for
// a process mpirun started (a singleton's stdout is the user's business).
void line_buffer_stdout() {
  if (!knobs::flag(knobs::Id::line_buffered_stdout) || knobs::text(knobs::Id::jobid).empty()) return;
  if (isatty(STDOUT_FILENO)) return;
  setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
}

int do_init() {
  Library& l = lib();
  if (l.initialized) return raise_world(fail(Err::other, "MPI_Init called twice"));
  l.main_thread = std::this_thread::get_id();
  line_buffer_stdout();
  std::string err;
  // FTMPI_DEBUG: the start-up phases (docs/MEASUREMENTS.md, "Start-up"); each line carries the time.
  FTMPI_DLOG("startup", "MPI_Init: PMIx client init");
  if (!l.runtime.init(&err) && l.runtime.connected()) {
    l.runtime.abort(MPI_ERR_OTHER, "MPI_Init failed: " + err);
  }
  debug_log::set_rank(l.runtime.rank());
  FTMPI_DLOG("startup", "MPI_Init: PMIx client ready (rank %d of %d)", l.runtime.rank(),
             l.runtime.size());
  if (l.engine.init(&l.runtime, &err) != Err::ok) {
    l.runtime.abort(MPI_ERR_OTHER, "MPI_Init failed: " + err);
  }
  // A spare blocks there (spare_wait.cpp), its connections opened meanwhile (spare_connect.h).
  const auto preconnect = [&l](int fd, const std::vector<std::vector<std::uint8_t>>& ranks) {
    preconnect_spare(l.engine, ranks, fd);
  };
  if (l.runtime.is_spare() && !l.runtime.wait_for_assignment(&err, preconnect)) {
    l.runtime.abort(MPI_ERR_OTHER, "MPI_Init of a hot spare failed: " + err);
  }
  std::vector<std::uint32_t> world;
  if (!l.runtime.is_replacement()) {
    for (int p = 0; p < l.runtime.size(); ++p) world.push_back(static_cast<std::uint32_t>(p));
  }
  l.comms.init(world, static_cast<std::uint32_t>(l.runtime.rank()), comm_mode_from_env(),
               msg_mode_from_env());
  l.rebuilder.set_next_index(static_cast<std::uint32_t>(l.runtime.size()));
  // The failure path's listeners, in order: communicators and their requests, then the
  // agreement's decision forwarding (ftmpi/FAILURE_STATE.md). Failures recorded before this
  // point (a process that never published its address) reach MPI_COMM_WORLD through the
  // membership hook right below.
  FailureState& failures = l.engine.failures();
  failures.add_failure_listener([&l](std::uint32_t proc) { l.ft.on_process_failed(proc); });
  failures.add_failure_listener([&l](std::uint32_t proc) { l.consensus.on_process_failed(proc); });
  failures.add_suspect_listener([&l](std::uint32_t proc) { l.ft.on_process_suspected(proc); });
  // ...and a revoke notice that arrived before this process had the communicator (ulfm.h).
  l.comms.set_membership_hook([&l](Comm& c) {
    l.ft.adopt_known_failures(c);
    l.ulfm.on_comm_added(c);
  });
  l.comms.membership_changed(*l.comms.world());
  // Freed communicators' ids come back when a construction starts (context_retire.h), and the
  // revoke notices kept for such an id go with it.
  l.comms.set_settle_hook([&l] { l.construct.retirement().settle(); });
  l.engine.requests().set_comm_drop([](Comm* c) { lib().construct.drop(c); });
  l.construct.retirement().set_release_hook([&l](std::uint32_t c) { l.ulfm.forget_context(c); });
  if (l.consensus.start() != Err::ok || l.ulfm.start() != Err::ok ||
      l.construct.retirement().start() != Err::ok) {
    l.runtime.abort(MPI_ERR_INTERN, "MPI_Init failed: cannot post agreement receive");
  }
  if (l.runtime.is_replacement()) {
    // REBUILD: this process replaces a failed rank; MPI_COMM_WORLD comes back repaired.
    if (Err e = l.rebuilder.join(comm_mode_from_env(), msg_mode_from_env()); e != Err::ok) {
      char text[MPI_MAX_ERROR_STRING];
      int len = 0;
      error_text(to_code(e), text, &len);
      l.runtime.abort(MPI_ERR_OTHER, std::string("MPI_Init of a replacement failed: ") + text);
    }
    l.init_state = FTMPI_INIT_RESTARTED;
  }
  l.initialized = true;
  monitor().comm_changed(*l.comms.world());
  FTMPI_DLOG("startup", "MPI_Init: done");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Init(int*, char***) { return do_init(); }

int MPI_Init_thread(int*, char***, int required, int* provided) {
  int rc = do_init();
  if (rc != MPI_SUCCESS) return rc;  // a refused call (already initialized) changes nothing
  // Every level is provided; MULTIPLE switches on the library lock (library_lock.h), which
  // the lower levels do without (their calls never overlap).
  if (required < MPI_THREAD_SINGLE) required = MPI_THREAD_SINGLE;
  lib().thread_level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
  if (lib().thread_level == MPI_THREAD_MULTIPLE) LibraryLock::enable();
  if (provided != nullptr) *provided = lib().thread_level;
  return rc;
}

int MPI_Query_thread(int* provided) {
  if (provided == nullptr) return raise_world(fail(Err::arg, "provided is NULL"));
  *provided = lib().thread_level;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  Library& l = lib();
  if (Err e = check_initialized("MPI_Finalize"); e != Err::ok) return to_code(e);
  // MPI-2.2 8.7.1: first of all, as if MPI_COMM_SELF were freed, its attributes' delete
  // callbacks run (libraries hook their clean-up there and may still make MPI calls).
  Comm* self = nullptr;
  (void)l.comms.lookup(MPI_COMM_SELF, &self);
  if (Err e = l.attrs.delete_all(self); e != Err::ok) return raise(self, e);
  // A member may still need the answer of this one for its last settled collective
  // (coll_outcome.h): a process that finalized is not reported as failed, so it would wait.
  confirm_all_settled();
  FTMPI_DLOG("startup", "MPI_Finalize: draining sends");
  l.engine.drain_sends();
  l.nbc.stop_progress();  // its thread waits on the transport: gone before it closes
  l.engine.shutdown();
  // Requests the application never completed: nothing can write their buffers any more, so
  // what their hooks own (mpi_f08's staged section temporaries) is freed now, not leaked.
  l.engine.requests().for_each_live([](Request& r) { run_on_done(r, false); });
  monitor().finalize();
  FTMPI_DLOG("startup", "MPI_Finalize: PMIx client finalize");
  l.runtime.finalize();
  l.finalized = true;
  FTMPI_DLOG("startup", "MPI_Finalize: done");
  return MPI_SUCCESS;
}

int MPI_Initialized(int* flag) {
  if (flag == nullptr) return raise_world(fail(Err::arg, "flag is NULL"));
  *flag = lib().initialized ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  if (flag == nullptr) return raise_world(fail(Err::arg, "flag is NULL"));
  *flag = lib().finalized ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  Library& l = lib();
  // Runtime::abort (or mpirun) adds the rank and the code: each is named once.
  Comm* c = nullptr;
  std::string on = l.initialized && l.comms.lookup(comm, &c) == Err::ok
                       ? c->name
                       : "communicator handle " + std::to_string(comm);
  std::fflush(stdout);
  l.runtime.abort(errorcode, "MPI_Abort called on " + on);
}

// The profiling layer this would steer is the user's (PMPI); the library itself has nothing
// to switch, so every level is accepted. These three are not generated (gen_locked_api.py:
// varargs, and the clocks take no lock), so their profiling names are made here.
int PMPI_Pcontrol(const int, ...) { return MPI_SUCCESS; }
int MPI_Pcontrol(const int level, ...) __attribute__((weak, alias("PMPI_Pcontrol")));

double PMPI_Wtime(void) {
  static const double base = now_seconds();
  return now_seconds() - base;
}
double MPI_Wtime(void) __attribute__((weak, alias("PMPI_Wtime")));

double PMPI_Wtick(void) {
  timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  return static_cast<double>(res.tv_sec) + 1e-9 * static_cast<double>(res.tv_nsec);
}
double MPI_Wtick(void) __attribute__((weak, alias("PMPI_Wtick")));

int MPI_Get_processor_name(char* name, int* resultlen) {
  if (name == nullptr || resultlen == nullptr) {
    return raise_world(fail(Err::arg, "name or resultlen is NULL"));
  }
  std::string host = lib().runtime.hostname();
  if (host.size() >= MPI_MAX_PROCESSOR_NAME) host.resize(MPI_MAX_PROCESSOR_NAME - 1);
  std::memcpy(name, host.c_str(), host.size() + 1);
  *resultlen = static_cast<int>(host.size());
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  if (version == nullptr || subversion == nullptr) {
    return raise_world(fail(Err::arg, "version or subversion is NULL"));
  }
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

// MPI-3.1 8.1.1: may be called before MPI_Init and after MPI_Finalize, so no handler runs.
int MPI_Get_library_version(char* version, int* resultlen) {
  if (version == nullptr || resultlen == nullptr) {
    return to_code(fail(Err::arg, "version or resultlen is NULL"));
  }
  static const char kText[] = FTMPI_VERSION_STRING
      " (fault-tolerant MPI: FT-MPI modes and ULFM; MPI-1.3 interface and the MPI-2/3 calls the "
      "README lists)";
  static_assert(sizeof kText <= MPI_MAX_LIBRARY_VERSION_STRING, "library version text too long");
  std::memcpy(version, kText, sizeof kText);
  *resultlen = static_cast<int>(sizeof kText - 1);
  return MPI_SUCCESS;
}

int MPI_Is_thread_main(int* flag) {
  if (flag == nullptr) return raise_world(fail(Err::arg, "flag is NULL"));
  *flag = std::this_thread::get_id() == lib().main_thread ? 1 : 0;
  return MPI_SUCCESS;
}

int FTMPI_Init_state(int* state) {
  if (state == nullptr) return raise_world(fail(Err::arg, "state is NULL"));
  *state = lib().init_state;
  return MPI_SUCCESS;
}

}  // extern "C"
