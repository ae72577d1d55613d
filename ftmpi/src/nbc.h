// Nonblocking collectives (MPI-3: MPI_Ibarrier, MPI_Iallreduce, ...; api_nbc.cpp).
//
// Each one runs the blocking collective's own code (api_coll_*.cpp: argument checks, staging of
// derived datatypes, the tuned algorithms of collectives/) on a fiber (fiber.h). Where that code
// waits for messages (CommP2P::waitall -> Engine::wait_until), the fiber hands control back,
// so a nonblocking collective is a request that advances one step whenever
// - MPI_Test/MPI_Wait (any form) look at it, or
// - any other progress of the process happens (every MPI wait or test: Engine's background
//   work), so it moves on while the application waits for something else;
// - the asynchronous progress thread runs (progress_agent.h, FTMPI_ASYNC_PROGRESS=1), so it
//   moves on while the application computes outside MPI.
// MPICH's "sched" and libNBC write every algorithm a second time as a schedule of rounds;
// running the blocking code on its own stack gives the same progress behaviour with one copy
// of each algorithm, and so the blocking versions' speed.
//
// Several may be outstanding on one communicator: every member numbers the nonblocking
// collectives it starts on a communicator alike (MPI orders collective calls), and the number
// goes into the upper bits of the collective tags (tag_offset), so their messages never match
// one another's or a blocking collective's (offset 0).
//
// Failures: the body is the blocking collective, so a participant's failure ends it with the
// same error (MPI_ERR_OTHER in the FT-MPI modes, MPIX_ERR_PROC_FAILED in ULFM mode, SPEC 4.3,
// 4.8), which completes the request; the communicator's error handler runs when the
// application waits for it. It never agrees on its outcome (FTMPI_COLL_MODE_ATOMIC's extra
// step): an agreement is ordered among all of a communicator's collective calls, which
// nonblocking ones do not keep. So they behave as in FTMPI_COLL_MODE_RELAXED: SPEC 4.4 holds
// (no success with possibly wrong data); a member whose part was complete before the failure
// may succeed where others fail.
#pragma once

#include <ftmpi/coll/p2p.h>

#include <cstdint>
#include <cstddef>
#include <memory>
#include <vector>

#include "comm.h"
#include "engine.h"
#include "error.h"
#include "fiber.h"
#include "nbc_body.h"
#include "proc_states.h"
#include "progress_agent.h"
#include "request.h"

namespace ftmpi {

// The datatypes an MPI_(I)alltoallw(_init) / MPI_(I)neighbor_alltoallw(_init) names, one per
// peer and direction, for its request to hold (api_nbc.cpp).
std::vector<MPI_Datatype> alltoallw_types(MPI_Comm comm, const void* sendbuf,
                                          const MPI_Datatype sendtypes[],
                                          const MPI_Datatype recvtypes[]);
std::vector<MPI_Datatype> neighbor_alltoallw_types(MPI_Comm comm, const MPI_Datatype sendtypes[],
                                                   const MPI_Datatype recvtypes[]);

class Constructor;
class DatatypeTable;
struct Datatype;

class Nbc {
 public:
  Nbc(Engine* engine, Constructor* construct, DatatypeTable* types)
      : engine_(engine), construct_(construct), types_(types), agent_(engine, &Nbc::pending, this) {}
  // Starts `body` (the blocking collective on c, returning its MPI error code) as a request
  // (*out) and runs it until it first waits. If it ended at once with an error that is not a
  // failure (an argument error), there is no request: *out is nullptr and *code the error.
  // The communicator and `types` (valid ones; MPI_DATATYPE_NULL is skipped) are held until the
  // end, so the application may free them meanwhile (MPI-3.1 5.12).
  // `sequence` (a persistent collective's run): the number its tags get, else (0) the next of
  // the communicator's nonblocking collectives.
  void start(Comm* c, const MPI_Datatype* types, std::size_t ntypes, NbcBody&& body,
             Request** out, int* code, int sequence = 0);
  // The sequence number of a persistent collective made now on c (MPI_Allreduce_init, ...),
  // which all its runs use. The members make them in the same order but may start them in
  // any order (MPI-4.0 6.13; MPICH's coll/p_order): a run must match the same request's run
  // elsewhere, not the one started in the same place. Taken from a range of its own, so never
  // a nonblocking collective's; two runs of one request never overlap at a member, and a
  // member's consecutive runs reach a peer in order, as consecutive blocking collectives do.
  static int persistent_sequence(Comm* c);
  // Drives an nbc request one step (MPI_Test/MPI_Wait); true once complete (r->error set).
  bool poll(Request* r);
  // MPI_Wait on r: when it is the only one pending, runs it to its end on this thread with the
  // blocking calls' wait policy (Fiber::set_may_block) — no fiber switch per round, no progress
  // thread between the rounds. Returns early, r still pending, if another one starts meanwhile
  // (another thread) or if others are pending (then the caller's wait loop steps them all).
  void wait(Request* r);
  // MPI_Finalize, before the engine shuts down: the progress thread ends.
  void stop_progress() { agent_.stop(); }

  // Inside a running nonblocking collective: the offset its collective tags get, and the
  // participants' view it uses (each its own: several may be under way). 0/nullptr outside.
  static int tag_offset();
  static MembersView* view();

  // One pending nonblocking collective.
  struct Op {
    Request* request = nullptr;
    Comm* comm = nullptr;
    int tag_offset = 0;
    // Its own participants' view, kept with the op when it is reused: rebuilt only when the
    // next collective's communicator, rank, size or process states differ (the states'
    // version is unique process-wide), so back-to-back ones on a communicator build it once.
    MembersView view;
    int code = MPI_SUCCESS;
    std::uint64_t seen_events = 0;  // the engine's event count when it last ran
    std::vector<const Datatype*> held;
    NbcBody body;  // the blocking collective's call
    std::unique_ptr<Fiber> fiber;  // runs body; made once, restarted on reuse
  };

 private:
  static bool background(void* self, std::uint64_t events);
  static bool pending(void* self) { return !static_cast<Nbc*>(self)->ops_.empty(); }
  void run(Op* op, int polls = 0);
  void finish(Op* op);
  Op* find(const Request* r) const;

  Engine* engine_;
  Constructor* construct_;
  DatatypeTable* types_;
  std::vector<std::unique_ptr<Op>> ops_;  // pending, in the order started
  // Finished ones kept for the next starts, with their fiber's stack and their vectors'
  // capacity: a start then allocates nothing.
  std::vector<std::unique_ptr<Op>> spare_;
  static constexpr std::size_t kSpareOps = 8;
  std::uint64_t background_calls_ = 0;
  std::vector<Op*> runnable_;  // background(): the ones to resume this time
  ProgressAgent agent_;  // last: ends (joins) before the members it reads are destroyed
};

}  // namespace ftmpi
