// What FTCKPT_Recover rolls back to, and the two ways of choosing it: from the failure
// topology (recover.cpp, the library's way) or level by level with validation rounds
// (level_rounds.cpp, for FTCKPT_Test_level_search and the comparison in the README).
#pragma once

#include <cstdint>
#include <vector>

#include "ckpt_state.hpp"

namespace ftckpt {

struct Candidate {
  std::int64_t k = -1;
  int epoch = -1;
  int level = FTCKPT_LEVEL_NONE;
  int slot = -1;
  // Epoch rank -> current rank that serves its data; -1: its level-4 file (or a gap);
  // kSourceParity: to be rebuilt from its XOR group first (rebuild_from_parity).
  std::vector<int> source;
  std::vector<int> lost_at_newest;  // when nothing is recoverable: for the message
};

// Ring slot of a complete iteration k of `epoch`, or -1.
int slot_of(std::int64_t k, int epoch);

// Newest complete iteration of the epoch in memory, -1 when none.
std::int64_t newest_complete(int epoch);

// Newest level-4 iteration when the newest files belong to this epoch, else -1.
std::int64_t newest_file_of(int epoch);

// No communication: every survivor computes the same answer from the agreed failed set.
Candidate choose_from_topology();

// Every candidate (iteration, level) in the order of preference, each validated with one
// allreduce. Same answer as choose_from_topology (the copy holder may differ: the lowest
// rank that has a copy instead of the lowest copy number). Collective.
int choose_by_rounds(Candidate* out, int* rounds);

}  // namespace ftckpt
