// Process groups: an ordered list of process indices (the same ids as Comm::procs) and the
// caller's place in it. Handles index a table; MPI_GROUP_EMPTY is the predefined slot 1.
// The set algebra works on the process lists and knows nothing of communicators, so the
// communicator layer builds groups with make_group() and turns groups back into process lists.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "error.h"

namespace ftmpi {

struct Group {
  std::vector<std::uint32_t> procs;  // group rank -> process index
  int my_rank = MPI_UNDEFINED;       // the caller's rank in the group, if a member
  std::uint32_t my_proc = 0;         // the caller's process index (carried into derived groups)
  int refs = 0;                      // the user's handle + retain() calls
  bool predefined = false;

  int size() const { return static_cast<int>(procs.size()); }
};

class GroupTable {
 public:
  GroupTable();

  Err lookup(MPI_Group handle, const Group** out) const;
  // A new group (refs = 1), or MPI_GROUP_EMPTY for an empty list.
  MPI_Group create(std::vector<std::uint32_t> procs, std::uint32_t my_proc);
  // Another holder (for example a communicator that keeps its group).
  void retain(MPI_Group handle);
  // MPI_Group_free and the end of a retain(): the slot is reused once nothing holds it.
  // Freeing MPI_GROUP_EMPTY is allowed and does nothing (empty results are that handle).
  Err release(MPI_Group handle);

  std::size_t live() const;  // user-created groups not yet reclaimed (tests, leak checks)

 private:
  std::vector<std::unique_ptr<Group>> groups_;
  std::vector<MPI_Group> free_slots_;
};

// The process-wide table (until it moves into Library).
GroupTable& groups();

// For MPI_Comm_group and friends: a group of `procs` in that order, the caller being my_proc.
MPI_Group make_group(const std::vector<std::uint32_t>& procs, std::uint32_t my_proc);

// ---- Group algebra on process lists (order as MPI-1 section 5.3.2 prescribes) -------------
std::vector<std::uint32_t> group_union(const Group& a, const Group& b);
std::vector<std::uint32_t> group_intersection(const Group& a, const Group& b);
std::vector<std::uint32_t> group_difference(const Group& a, const Group& b);
int group_compare(const Group& a, const Group& b);  // MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL

// Rank lists are validated here (each in range, no duplicates) with MPI_ERR_RANK/MPI_ERR_ARG.
Err group_incl(const Group& g, int n, const int* ranks, std::vector<std::uint32_t>* out);
Err group_excl(const Group& g, int n, const int* ranks, std::vector<std::uint32_t>* out);
// Expands (first, last, stride) triplets into the ranks they name, in order.
Err group_range_ranks(const Group& g, int n, const int (*ranges)[3], std::vector<int>* out);
// ranks of a in b (MPI_UNDEFINED when absent; MPI_PROC_NULL maps to itself).
Err group_translate(const Group& a, int n, const int* ranks, const Group& b, int* out);

}  // namespace ftmpi
