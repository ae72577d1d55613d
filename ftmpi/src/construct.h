// Communicator construction, and with it repair (SPEC 4.5): every constructor runs one agreement
// round on the parent. If the parent has lost processes, the decision first repairs it in place
// according to its mode (new generation), then the requested communicator is built from the
// same decision. So repair costs no extra round, and all survivors end with the same view.
#pragma once

#include <memory>

#include "comm.h"
#include "consensus.h"
#include "context_choice.h"
#include "context_claims.h"
#include "context_retire.h"
#include "engine.h"
#include "rebuild.h"
#include "error.h"

namespace ftmpi {

class Constructor {
 public:
  Constructor(CommTable* comms, Engine* engine, Consensus* consensus, Rebuilder* rebuilder)
      : comms_(comms), engine_(engine), consensus_(consensus), rebuilder_(rebuilder),
        retirement_(comms, engine, consensus) {}

  Err dup(Comm* parent, MPI_Comm* out);
  // color MPI_UNDEFINED gives *out = MPI_COMM_NULL.
  Err split(Comm* parent, int color, int key, MPI_Comm* out);
  // MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the members on `host` (each member names its
  // own; the name travels in the same agreement round as split's color and key, so it costs
  // no extra collective). member false: MPI_UNDEFINED, *out = MPI_COMM_NULL.
  Err split_by_host(Comm* parent, bool member, int key, const std::string& host, MPI_Comm* out);
  Err free(Comm* comm);
  // What uses a communicator beyond the call that named it holds it: a request until its
  // record is recycled (hold_for; persistent ones from *_init to MPI_Request_free), a matched
  // message until its receive is posted. MPI_Comm_free in between only detaches the handle,
  // the last drop finishes the free (the context ids come back after it: context_retire.h).
  void hold(Comm* comm) { ++comm->holds; }
  void hold_for(Request* r) {
    ++r->comm->holds;
    r->holds_comm = true;
  }
  void drop(Comm* comm) {
    if (--comm->holds > 0 || !comm->freed) return;
    finish_free(comm);
  }
  // MPIX_Comm_shrink (ulfm.cpp) runs its agreement itself (it may be non-blocking): the shrink
  // enters the context-id offer order (begin_shrink, before its agreement: context_choice.h),
  // contributes shrink_contribution(), and shrink_build makes the communicator of the
  // contributors, its id taken by the offer rule like every construction's. When another
  // construction held the offer, the extra rounds are agreements among the survivors. The
  // parent is left as it is (no repair): ULFM shrinks into a new communicator.
  std::unique_ptr<ContextChoice> begin_shrink(Comm* parent);
  std::vector<std::uint8_t> shrink_contribution(ContextChoice* choice) const;
  Err shrink_build(Comm* parent, const Decision& d, ContextChoice* choice, MPI_Comm* out);
  // The process's offer order of context ids (context_claims.h), which every constructor of
  // several processes takes part in (intercomm.cpp, comm_create_group.cpp too), and the key of
  // the next construction on `parent` (the same at every member: MPI orders constructions).
  ContextClaims& claims() { return claims_; }
  // When a freed intracommunicator's ids come back (context_retire.h).
  ContextRetirement& retirement() { return retirement_; }
  static ContextClaims::Key next_key(Comm* parent);

 private:
  // The last hold of a freed communicator went: its ids are released, its record destroyed.
  void finish_free(Comm* comm);
  struct Agreed {
    std::vector<std::pair<int, std::vector<std::uint8_t>>> contributions;  // by old rank
    std::vector<std::uint32_t> procs_before;  // the parent's members before any repair
    CommTable::ContextMask used;              // union over the members
  };
  // `host` (split_by_host) follows the revoked byte in the contribution.
  // `choice` gives this member's context-id contribution (context_choice.h).
  Err agree_and_repair(Comm* parent, std::int32_t color, std::int32_t key, ContextChoice* choice,
                       Agreed* out, const std::string& host = {});
  // The new communicator's context id from the agreed union `used` (taken here). A union some
  // member did not offer into is unusable everywhere alike: rounds of an allreduce of the
  // masks over the parent follow until every member offers in the same round.
  Err pick_context(Comm* parent, ContextChoice* choice, CommTable::ContextMask used,
                   std::uint32_t* context);
  Err split_among(Comm* parent, int color, int key, const std::string& host, MPI_Comm* out);
  // *rebuilt: new processes joined, so the construction needs an agreement that includes them.
  Err repair(Comm* c, const std::vector<int>& failed, CommTable::ContextMask* used, bool* rebuilt);
  void release_contexts(Comm* comm);

  CommTable* comms_;
  Engine* engine_;
  Consensus* consensus_;
  Rebuilder* rebuilder_;
  ContextClaims claims_;
  ContextRetirement retirement_;
};

}  // namespace ftmpi
