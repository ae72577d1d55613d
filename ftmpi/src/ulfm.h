// ULFM (SPEC 4.8, mpi-ext.h) on the FT-MPI core: revoke, shrink, agree and their non-blocking
// forms. Nothing here detects or agrees by itself: failures come from the same detector and
// notification path as the FT-MPI modes (FaultHandler), agreement and shrink are instances of
// the same failure-tolerant agreement (Consensus, CONSENSUS.md) that constructors and repairs
// use, and the shrunk communicator is built by the Constructor. What this file owns: the revoke
// notice (its own message kind, flooded so it survives the death of the revoker) and the
// bookkeeping of pending MPIX_Comm_iagree / MPIX_Comm_ishrink requests.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "comm.h"
#include "consensus.h"
#include "construct.h"
#include "engine.h"
#include "error.h"

namespace ftmpi {

class Ulfm {
 public:
  Ulfm(CommTable* comms, Engine* engine, Consensus* consensus, Constructor* construct)
      : comms_(comms), engine_(engine), consensus_(consensus), construct_(construct) {}

  // Posts the standing receive of revoke notices; call once after the engine is up.
  Err start();
  // MPIX_Comm_revoke: c and every operation pending on it fail with MPIX_ERR_REVOKED here,
  // and every other live member is told (each tells the others in turn, so the notice gets
  // through even if this process dies while sending it).
  void revoke(Comm* c);
  // A communicator was just built: a revoke notice for it may have come first (a faster
  // member revoked it as soon as it had it).
  void on_comm_added(Comm& c);
  // A freed communicator's context id came back (context_retire.h): every notice kept for it
  // was for that communicator, never for the next one on the id.
  void forget_context(std::uint32_t context);

  Err agree(Comm* c, int* flag);
  Err shrink(Comm* c, MPI_Comm* newcomm);
  // Non-blocking forms: a request of Kind::ulfm, completed through poll() by MPI_Wait/MPI_Test.
  Err iagree(Comm* c, int* flag, Request** out);
  Err ishrink(Comm* c, MPI_Comm* newcomm, Request** out);
  // Drives a Kind::ulfm request; true once complete (r->error set).
  bool poll(Request* r);

 private:
  struct Op {
    bool is_shrink = false;
    int* flag = nullptr;
    MPI_Comm* newcomm = nullptr;
    std::unique_ptr<ContextChoice> choice;  // a shrink's place in the context-id offer order
    Consensus::Ticket ticket;
  };
  static void on_notice(Request& r, void* self);
  Err post_receive();
  void apply_revoke(Comm& c);
  std::vector<std::uint8_t> agree_contribution(const Comm& c, int flag) const;
  Err agree_result(Comm* c, const Decision& d, int* flag);
  Err start_op(Comm* c, std::unique_ptr<Op> op, Request** out);
  Err shrink_result(Comm* c, const Decision& d, ContextChoice* choice, MPI_Comm* newcomm);

  CommTable* comms_;
  Engine* engine_;
  Consensus* consensus_;
  Constructor* construct_;
  std::map<Request*, std::unique_ptr<Op>> ops_;  // pending non-blocking calls
  // Notices for a context no communicator here holds: (context, sending process). Kept for
  // the communicator being built on it, dropped when one is added (ulfm.cpp, on_notice).
  std::set<std::pair<std::uint32_t, std::uint32_t>> early_revokes_;
};

}  // namespace ftmpi
