// REBUILD: what a replacement process needs from the survivors during FTCKPT_Recover.
//
// A replacement starts with nothing: no epoch, no counters, no ring. The survivors hold
// everything, so inside Recover (after the collective choice of what to recover):
//   * a survivor that knows every kept epoch (the "leader") broadcasts the decision - the
//     iteration, its epoch and level, where every member of that epoch is now, the source
//     of every rank's data and the image sizes - whenever some member lacks that knowledge;
//   * each lost data owner of the recovered epoch is paired with a process that was no
//     member of it (its heir: with in-place REBUILD the replacement at the failed rank), and
//     the survivor that serves the owner (copy holder, parity builder) sends the heir the
//     owner's image; at level 4 the heir reads the owner's file.
// The leader, the heirs and the sources are computed identically everywhere from agreed
// data, so no message needs an answer.
#pragma once

#include <vector>

#include "ckpt_state.hpp"
#include "recovery_choice.hpp"

namespace ftckpt {

struct Decision {
  int status = MPI_SUCCESS;      // or FTCKPT_ERR_UNRECOVERABLE / FTCKPT_ERR_NO_CHECKPOINT
  Candidate choice;              // source: current ranks, kSourceParity, -1 (file or gap)
  Epoch described;               // the recovered epoch for processes that were no member of it
  std::vector<long long> sizes;  // every epoch rank's image size at choice.k, -1: unknown
};

// The leader fills *d (status, choice, described.{id,n,gap_at_start,now}, sizes) before the
// call; everybody else gets it. max_n bounds every epoch's size (agreed beforehand).
// Collective over state().comm.
int broadcast_decision(Decision* d, int leader, int max_n);

// Epoch rank -> current rank of its heir, or -1: the lost data owners of e (ascending) paired
// with the ranks of comm that are not gaps and were no member of e (ascending).
std::vector<int> heirs_of(const Epoch& e, MPI_Comm comm);

// Moves every lost owner's image at c.k from its source to its heir, all at once; the heir
// receives each region straight into its registered region of the same id and size (an heir
// whose source is a file reads it and restores from it). *restored: how many of this
// process's regions were restored when it is an heir (else untouched); *ok turns false when
// something went wrong without a failure (a missing image, a short message, an unreadable
// file). Returns an MPI error only when communication failed (another process died). Every
// member calls it with the same arguments.
int hand_over(const Epoch& e, const Candidate& c, const std::vector<long long>& sizes,
              const std::vector<int>& heir, int tag, int* restored, bool* ok);

}  // namespace ftckpt
