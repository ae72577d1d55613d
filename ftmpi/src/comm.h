// Communicators: who is in them (by process index), which context ids they own, how errors are
// handled. Handles index the table; MPI_COMM_WORLD and MPI_COMM_SELF are slots 1 and 2.
#pragma once

#include <mpi.h>

#include <bitset>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attr_map.h"
#include "error.h"
#include "info.h"
#include "proc_states.h"

namespace ftmpi {

struct Topology;  // topology.h

struct Comm {
  MPI_Comm handle = MPI_COMM_NULL;
  std::uint32_t context = 0;          // point-to-point (even)
  // Collectives: the odd id of a pair. Normally context + 1; a CONT repair keeps `context` (so
  // point-to-point messages survive) but takes a new pair here, so that messages of a
  // collective cut short by the failure can never match a later collective.
  std::uint32_t coll_context = 1;
  bool inter = false;                 // an intercommunicator (see below)
  std::vector<std::uint32_t> procs;   // communicator rank -> process index (transport peer)
  std::vector<int> rank_of_proc;      // process index -> communicator rank, -1 if absent
  int rank = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  // Set by MPI_Comm_set_errhandler: MPI_COMM_WORLD's handler then no longer follows its mode.
  bool errhandler_chosen = false;
  std::string name;
  // MPI_Comm_set_info's hints (info.h): kept and returned by MPI_Comm_get_info, acted on by
  // nothing yet; MPI_Comm_dup copies them (MPI-3.1 6.4.2).
  Info hints;

  // Fault tolerance (SPEC 4): modes chosen by the application, state kept by ft.cpp.
  int comm_mode = FTMPI_COMM_MODE_ABORT;
  int msg_mode = FTMPI_MSG_MODE_NOP;
  int coll_mode = FTMPI_COLL_MODE_ATOMIC;
  int state = FTMPI_COMM_OK;
  ProcStates proc_state;  // per communicator rank, FTMPI_PROC_* (the one owner: proc_states.h)
  // The collectives' participants, derived from proc_state (CommP2P::members_of).
  mutable MembersView members_view;
  std::vector<int> failed;                // ranks failed since the last repair, in order seen
  // Saw a failure or a revoke at some point: messages of operations it cut short may still be
  // in flight. An intercommunicator's ids are then never handed out again; an
  // intracommunicator's come back once every member has freed it (context_retire.h).
  bool tainted = false;
  // Requests on it not yet recycled (every kind: Constructor::hold_for), persistent ones from
  // *_init, matched messages: MPI_Comm_free then only takes the handle away; the record and its
  // context ids stay until the last hold is dropped.
  int holds = 0;
  bool freed = false;  // MPI_Comm_free was called while held
  // ULFM (ulfm.cpp, any mode): revoked by MPIX_Comm_revoke here or elsewhere (state is then
  // FTMPI_COMM_FAILED for good); `acked`: how many entries of `failed` the application has
  // acknowledged (MPIX_Comm_failure_ack / MPIX_Comm_ack_failed), reset with `failed`.
  bool revoked = false;
  int acked = 0;
  // Nonblocking collectives started on this communicator since coll_context last changed
  // (nbc.cpp): every member numbers them alike, and the number keeps their messages apart.
  std::uint32_t nbc_context = 0;
  std::uint32_t nbc_started = 0;
  // Persistent collectives made on it (MPI_Allreduce_init, ...): every member makes them in the
  // same order, so the count names each one alike everywhere (Nbc::persistent_sequence).
  std::uint32_t pcoll_made = 0;
  // Constructions begun on it (dup, split, create): with the context id, the order in which
  // concurrent ones may offer their context ids (context_claims.h), the same in every member.
  // On an intercommunicator they run one at a time: `constructions_done` is the next one's turn
  // (intercomm.cpp, Turn).
  std::uint64_t constructions = 0;
  std::uint64_t constructions_done = 0;

  // Cartesian or graph topology (MPI_Cart_create, MPI_Graph_create); shared by MPI_Comm_dup.
  std::shared_ptr<const Topology> topology;

  // keyval -> value and when it was set: MPI_Finalize deletes MPI_COMM_SELF's attributes in
  // the reverse order of setting (MPI-2.2 8.7.1); attributes.cpp.
  AttributeMap attributes;
  int attr_values[5] = {};          // storage behind the FTMPI_* cached attributes

  // Intercommunicator (intercomm.cpp; `inter` sits beside the context ids, on the line the
  // point-to-point path reads anyway): procs, rank and proc_state describe the local group;
  // point-to-point ranks name the remote group.
  std::vector<std::uint32_t> remote_procs;  // remote rank -> process index
  std::vector<int> remote_rank_of_proc;     // process index -> remote rank, -1 if absent
  // The local group as an intracommunicator on the same collective context, for the local
  // steps of collectives on the intercommunicator (intercomm_coll.cpp); built by the first.
  std::shared_ptr<Comm> local_side;

  int size() const { return static_cast<int>(procs.size()); }
  bool is_failed(int r) const { return proc_state[static_cast<std::size_t>(r)] == FTMPI_PROC_FAILED; }
  // The ranks point-to-point calls name: this communicator's, or an intercommunicator's remote
  // group. One well-predicted select on the fast path.
  const std::vector<std::uint32_t>& peer_procs() const { return inter ? remote_procs : procs; }
  const std::vector<int>& peer_rank_of_proc() const {
    return inter ? remote_rank_of_proc : rank_of_proc;
  }
  int peer_size() const { return static_cast<int>(peer_procs().size()); }
};

// The error a process failure gives on c: FT-MPI's MPI_ERR_OTHER (SPEC 4.7) or, in ULFM mode,
// MPIX_ERR_PROC_FAILED (SPEC 4.8). Only error paths call it.
// A revoked communicator says so instead.
inline Err failure_err(const Comm& c) {
  if (c.revoked) return Err::revoked;
  return c.comm_mode == FTMPI_COMM_MODE_ULFM ? Err::proc_failed : Err::other;
}

class CommTable {
 public:
  // Builds MPI_COMM_WORLD (world rank -> process index; 0..n-1 at start, other indices for a
  // REBUILD replacement) and MPI_COMM_SELF (just me), both in the job's default modes.
  void init(const std::vector<std::uint32_t>& world_procs, std::uint32_t my_proc, int comm_mode,
            int msg_mode);

  Err lookup(MPI_Comm handle, Comm** out) {
    if (handle <= 0 || static_cast<std::size_t>(handle) >= comms_.size() ||
        !comms_[static_cast<std::size_t>(handle)]) {
      return fail(Err::comm, "communicator handle %d is not a valid communicator", handle);
    }
    *out = comms_[static_cast<std::size_t>(handle)].get();
    return Err::ok;
  }
  Comm* world() { return comms_[MPI_COMM_WORLD].get(); }
  // Takes ownership of a new communicator and gives it a handle; then membership_changed.
  MPI_Comm add(std::unique_ptr<Comm> c);
  // A communicator was added or re-membered (a repair): the hook (FaultHandler::
  // adopt_known_failures, set by MPI_Init) applies every failure recorded meanwhile, so a
  // death seen while the members were being agreed is never lost (ftmpi/FAILURE_STATE.md).
  void set_membership_hook(std::function<void(Comm&)> f) { membership_hook_ = std::move(f); }
  void membership_changed(Comm& c) {
    if (membership_hook_) membership_hook_(c);
  }
  void remove(MPI_Comm handle);
  // The handle becomes invalid now, but the record lives on (still seen by for_each, so it
  // keeps hearing of failures) until destroy_detached(): a request still holds it.
  void detach(MPI_Comm handle);
  void destroy_detached(const Comm* c);

  // Context ids come in pairs (point-to-point, collectives). Which pairs this process uses is
  // a bit mask that constructors combine over the members, so every member picks the same
  // lowest pair free everywhere: identical creation sequences give identical ids.
  static constexpr std::size_t kContextPairs = 2048;
  using ContextMask = std::bitset<kContextPairs>;
  const ContextMask& used_contexts() const { return used_; }
  void mark_context_used(std::uint32_t context) { used_.set(context / 2); }
  void release_context(std::uint32_t context) { used_.reset(context / 2); }
  // A freed communicator's ids may come back only later (context_retire.h): a construction
  // calls this before it reads the mask, and the hook (set by MPI_Init) gives back those ready.
  void set_settle_hook(std::function<void()> f) { settle_hook_ = std::move(f); }
  void settle_contexts() {
    if (settle_hook_) settle_hook_();
  }
  // A REBUILD replacement takes over the context ids the survivors have in use.
  void adopt_contexts(const ContextMask& used) { used_ |= used; }
  template <typename F>
  void for_each(F&& f) {
    for (auto& c : comms_) {
      if (c) f(*c);
    }
    for (auto& c : detached_) f(*c);
  }

 private:
  std::vector<std::unique_ptr<Comm>> comms_;
  std::vector<std::unique_ptr<Comm>> detached_;
  ContextMask used_;
  std::function<void(Comm&)> membership_hook_;
  std::function<void()> settle_hook_;
};

}  // namespace ftmpi
