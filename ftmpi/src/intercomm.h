// Intercommunicators (MPI-1.3 section 5.6): a local and a remote group, disjoint; point-to-point
// ranks name the remote group. A Comm with `inter` set keeps its local group in procs/rank
// (what MPI_Comm_size, MPI_Comm_rank and MPI_Comm_group report) and the remote group in
// remote_procs; the engine addresses through Comm::peer_procs(), so nothing else changes.
//
// Context ids: each group agrees on the union of its members' used-context masks (the consensus
// round every constructor runs), the two leaders swap their unions, and a second round in each
// group hands the leader's result to everyone. Both groups then hold the same union over all
// members of both and pick the same lowest free pair, with the offer rounds every constructor
// shares (context_choice.h; a round is the same exchange again). Constructions on one
// intercommunicator (dup, idup, split, merge) run one at a time in call order (intercomm.cpp,
// Turn), so their agreements pair up alike in every member.
//
// Fault tolerance does not extend to intercommunicators: nothing repairs them. A failed member
// of either group marks the intercommunicator FAILED and purges its pending requests, so every
// later call returns MPI_ERR_OTHER instead of waiting; a construction in progress returns an
// error once the failure is known (consensus, and receives naming the dead leader, complete).
#pragma once

#include <cstdint>

#include "comm.h"
#include "consensus.h"
#include "context_choice.h"
#include "engine.h"
#include "error.h"

namespace ftmpi {

class Intercomms {
 public:
  Intercomms(CommTable* comms, Engine* engine, Consensus* consensus, ContextClaims* claims)
      : comms_(comms), engine_(engine), consensus_(consensus), claims_(claims) {}

  // MPI_Intercomm_create, collective over local (an intracommunicator). local_leader and tag are
  // checked by the caller; peer_comm and remote_leader only matter at the leader, which checks
  // them and reports a bad one to its whole group.
  Err create(Comm* local, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
             MPI_Comm* out);
  // MPI_Intercomm_merge: an intracommunicator of both groups, the high=false group first.
  Err merge(Comm* ic, bool high, MPI_Comm* out);
  // MPI_Comm_dup of an intercommunicator: same groups, new context pair.
  Err dup(Comm* ic, MPI_Comm* out);
  // MPI_Comm_split of an intercommunicator (MPI-2.2 5.4.2): for each color given in both
  // groups, an intercommunicator of the processes of that color on either side (ordered by
  // key, then old rank); MPI_COMM_NULL for MPI_UNDEFINED or a color the other side lacks.
  // MPI_Comm_create of an intercommunicator is this split with the group as one color.
  Err split(Comm* ic, int color, int key, MPI_Comm* out);

 private:
  struct Channel;
  struct Across;
  // `contributed`: this member's context mask (ContextChoice::contribution).
  template <typename Plan>
  Err agree_across(Comm* group, int leader, const CommTable::ContextMask& contributed,
                   const std::vector<std::uint8_t>& mine, Plan&& plan, Across* out);
  // The context id from the first exchange's union `united`, with offer rounds over `group`
  // and the leaders' `channel` while it is unusable.
  Err pick(Comm* group, int leader, const Channel& channel, ContextChoice* choice,
           const CommTable::ContextMask& united, std::uint32_t* context, int skip = 0);
  Err leader_exchange(const Channel& ch, const std::vector<std::uint8_t>& send,
                      std::vector<std::uint8_t>* received);
  std::size_t nprocs() const;

  CommTable* comms_;
  Engine* engine_;
  Consensus* consensus_;
  ContextClaims* claims_;
};

// MPI_Comm_compare when either side is an intercommunicator (MPI-1.3 5.4.1, 5.6.1): both local
// and remote groups are compared; an intercommunicator never matches an intracommunicator.
int intercomm_compare(const Comm& a, const Comm& b);

// MPI_Comm_dup's and MPI_Comm_split's branches for intercommunicators (over the library's
// tables).
Err intercomm_dup(Comm* ic, MPI_Comm* out);
Err intercomm_split(Comm* ic, int color, int key, MPI_Comm* out);

// FaultHandler's branch for intercommunicators: a member of either group failed (see above).
void intercomm_lost_process(Comm& c, std::uint32_t proc, Engine* engine);

}  // namespace ftmpi
