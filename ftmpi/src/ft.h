// Fault tolerance in the library core (SPEC 4): what a process failure does to communicators and
// their pending operations, and what an operation on a communicator with failures may do.
// FaultHandler is the communicator layer of the one failure path (ftmpi/FAILURE_STATE.md):
// FailureState records the death and has the transport purge what is addressed to it, then
// calls on_process_failed, which updates every communicator that contains the process and
// purges what the communicator's message mode says must not wait. A communicator's per-rank
// view (Comm::proc_state, Comm::failed, Comm::state) is written only here, by repair, which
// resets it to the agreed membership, and by adopt_known_failures, which every place that
// creates or re-members a communicator calls so that no failure recorded meanwhile is lost.
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
  // A communicator was just created or re-membered (MPI_Init, a constructor, a repair): every
  // member FailureState already knows failed goes through the same path as a new failure
  // (FAILED, listed in Comm::failed, DETECTED, requests purged, ABORT mode aborts).
  void adopt_known_failures(Comm& comm);
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
  // The communicator step of a failure of proc, for one communicator.
  void fail_in(Comm& c, std::uint32_t proc);
  void ulfm_purge(Comm& c, int failed_rank);
  Err check_ulfm(Comm* c, int peer);

  CommTable* comms_;
  Engine* engine_;
  Runtime* runtime_;
};

std::string failed_ranks_text(const Comm& comm);

// A receive from MPI_ANY_SOURCE on a ULFM communicator with a failure not acknowledged yet: it
// cannot complete normally, but stays pending (MPIX_ERR_PROC_FAILED_PENDING from MPI_Wait /
// MPI_Test; a blocking MPI_Recv gives it up with MPIX_ERR_PROC_FAILED). SPEC 4.8.
bool ulfm_wildcard_blocked(const Request& r);
bool ulfm_unacked_failure(const Comm& c);

}  // namespace ftmpi
