// When a freed intracommunicator's context ids may serve again. A communicator that a revoke or
// a failure cut short can leave messages behind on its ids: a send nobody will receive, a
// synchronous send's ack, the tail of a collective, its shrink's or agreement's late
// contributions, a forwarded revoke notice. Any of them reaching a later communicator on the
// same id would be taken for its own (an MPI_ANY_SOURCE receive, a revoke of the wrong
// communicator, an agreement answered with the old one's contribution). Such ids used to be
// kept for good, so a process ran out of them after ~1900 revokes.
//
// The rule now, for every intracommunicator of several processes: MPI_Comm_free here sends a
// small "retire" notice (match_bits.h Kind::retire) on its context to every other live member,
// after which this process sends nothing more on those ids. Messages between two processes
// arrive in the order they were sent (the transport's one stream per pair: shm ring, libfabric
// FI_ORDER_SAS), so once this process has freed its communicator and holds the notice of every
// other member not known dead, whatever any member ever sent it on those ids has arrived. The
// ids are then given back (settle()): after driving progress until nothing moves (so what
// arrived is handled, including what a dead member wrote before it died), the leftovers go
// (unexpected user, synchronous and ack messages dropped in the transport, every agreement
// instance of the ids, kept revoke notices) and the ids return to the pool. A member of a later
// communicator on the id can only be built once every one of its members gave the id back, so
// no message of that communicator reaches a process that still holds leftovers of the old one.
//
// Notices are counted per (context, sender): every communicator on an id that two processes
// share yields exactly one notice each way, and one process holds one communicator on an id at a
// time, so the k-th notice of a sender is for the k-th such communicator (one that came before
// this process freed its own is kept for it). A member known dead owes nothing: it sends
// nothing more, and what it wrote before dying is taken in by the progress of settle().
// Intercommunicators keep the old rule (given back at once unless a failure touched them).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "comm.h"
#include "consensus.h"
#include "engine.h"
#include "error.h"

namespace ftmpi {

class ContextRetirement {
 public:
  ContextRetirement(CommTable* comms, Engine* engine, Consensus* consensus)
      : comms_(comms), engine_(engine), consensus_(consensus) {}

  // Posts the standing receive of retire notices; call once after the engine is up.
  Err start();
  // c (an intracommunicator) is freed here: the other live members are told, and its ids wait
  // for their notices.
  void retire(const Comm& c);
  // Gives back every retired id whose notices are all in. Drives progress: call it where a
  // construction starts (CommTable::settle_contexts), never from a completion hook.
  void settle();
  // Called with each id given back (the even one of each pair): ulfm.cpp drops the revoke
  // notices it kept for it.
  void set_release_hook(std::function<void(std::uint32_t)> f) { release_hook_ = std::move(f); }
  // Freed communicators whose ids are not given back yet (tests, cominfo-style checks).
  std::size_t waiting() const { return waiting_.size(); }

 private:
  struct Waiting {
    std::uint32_t context = 0;       // point-to-point id
    std::uint32_t coll_context = 0;  // collectives' id (another pair after a CONT repair)
    std::vector<std::uint32_t> owed;  // members whose notice has not come
  };
  static void on_notice(Request& r, void* self);
  Err post_receive();
  void give_back(const Waiting& w);

  CommTable* comms_;
  Engine* engine_;
  Consensus* consensus_;
  std::vector<Waiting> waiting_;
  // Notices that came before this process freed its communicator on the id: (context, sender)
  // -> how many.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> early_;
  std::function<void(std::uint32_t)> release_hook_;
  bool settling_ = false;
};

}  // namespace ftmpi
