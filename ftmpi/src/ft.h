// Fault tolerance in the library core (SPEC 4): what a process failure does to communicators and
// their pending operations, and what an operation on a communicator with failures may do.
// One idempotent path: the engine marks the process failed in the transport (operations
// addressed to it complete with errors), then FaultHandler updates every communicator that
// contains it and purges what the communicator's message mode says must not wait.
#pragma once

#include <cstdint>
#include <string>

#include "comm.h"
#include "engine.h"
#include "error.h"

namespace ftmpi {

class Runtime;

// Job defaults from FTMPI_COMM_MODE / FTMPI_MSG_MODE (mpirun sets them from its flags).
int comm_mode_from_env();
int msg_mode_from_env();

class FaultHandler {
 public:
  FaultHandler(CommTable* comms, Engine* engine, Runtime* runtime)
      : comms_(comms), engine_(engine), runtime_(runtime) {}

  void on_process_failed(std::uint32_t proc);
  // A transport error points at proc, but nobody has confirmed its death (SPEC 4.7): every
  // communicator whose local group holds it shows it FTMPI_PROC_UNAVAILABLE where it was
  // FTMPI_PROC_OK. Nothing else changes (no DETECTED state, no entry in Comm::failed, nothing
  // purged; it still counts in FTMPI_Comm_valid_size): only the runtime's report, which
  // on_process_failed handles, makes it FAILED.
  void on_process_suspected(std::uint32_t proc);

  // May an operation on comm involving `peer` (a rank, MPI_ANY_SOURCE, or kWholeComm for
  // collectives and constructors) go ahead? Err::other with the failed ranks named if not.
  static constexpr int kWholeComm = -1000;
  Err check(Comm* comm, int peer);

 private:
  CommTable* comms_;
  Engine* engine_;
  Runtime* runtime_;
};

std::string failed_ranks_text(const Comm& comm);

}  // namespace ftmpi
