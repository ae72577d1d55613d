// REBUILD (SPEC 4.2, 4.7): replacement processes take the failed ranks of MPI_COMM_WORLD.
//
// Survivors, inside the repair of MPI_COMM_WORLD (after the agreement fixed the failed set):
//   1. every survivor computes the same plan: new process indices base.., the repaired world,
//      its context ids and agreement counter (the indices come from a counter every survivor
//      advances identically, so they need no extra round);
//   2. the lowest surviving rank asks the daemon (PMIx spawn) to start the job's program with
//      the plan in its environment and tells the other survivors it did (a "spawned" note);
//   3. each replacement publishes its fabric address, inserts everybody's, and sends "hello"
//      to every survivor; a survivor that got a replacement's hello looks up its address
//      (published by then), inserts it and answers "welcome";
//   4. a replacement returns from MPI_Init when every survivor welcomed it (or died).
// So no process sends to a peer before that peer can map it to a process index. A survivor
// that dies meanwhile is simply a new failure after the repair; if the spawning survivor dies
// before its note, the repair fails with MPI_ERR_OTHER and the next one starts over with
// fresh indices (the interrupted ones, if started, give up after FTMPI_REBUILD_TIMEOUT).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm.h"
#include "consensus.h"
#include "engine.h"
#include "error.h"
#include "rebuild_plan.h"
#include "runtime.h"

namespace ftmpi {

class Rebuilder {
 public:
  Rebuilder(CommTable* comms, Engine* engine, Consensus* consensus, Runtime* runtime)
      : comms_(comms), engine_(engine), consensus_(consensus), runtime_(runtime) {}

  // Survivor side. `world` has the agreed failed ranks marked FAILED; `fill` are the ranks to
  // replace (ascending), `context` the ids the repaired world uses, `used` every id in use.
  Err rebuild(Comm* world, const std::vector<int>& fill, std::uint32_t context,
              const CommTable::ContextMask& used);
  // Replacement side, from MPI_Init: joins the job as the plan says and builds the world.
  Err join(int default_comm_mode, int default_msg_mode);

  // Process indices handed out so far (the next rebuild starts there).
  void set_next_index(std::uint32_t n) { next_index_ = n; }

 private:
  static constexpr std::uint32_t kChannel = 0xffff;  // no communicator has this context id
  static constexpr int kSpawned = Consensus::kFirstNoteType;
  static constexpr int kHello = Consensus::kFirstNoteType + 1;
  static constexpr int kWelcome = Consensus::kFirstNoteType + 2;

  int timeout_ms() const;
  // join: the address of member p (rebuild.cpp says why a new one is asked for again).
  bool lookup_member(std::uint32_t p, bool is_new, std::uint64_t deadline, std::vector<std::uint8_t>* addr);

  CommTable* comms_;
  Engine* engine_;
  Consensus* consensus_;
  Runtime* runtime_;
  std::uint32_t next_index_ = 0;
};

}  // namespace ftmpi
