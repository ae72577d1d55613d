// Which checkpoint level serves a recovery, computed from the failure topology alone
// (seed 001, FRAME's Algorithm 3): every process knows the failed set the FT core agreed on,
// so every process derives the same answer and no per-level validation round is needed.
//
// Order of preference: the newest iteration first (least recomputation), and for that
// iteration the lowest level that can serve it:
//   1  nobody who owned data was lost: every survivor has its own image;
//   2  every lost process has a copy on a survivor (RLFFN, recovery_line.hpp);
//   3  (XOR groups on) every lost process either has a surviving copy or is the only member
//      its XOR group lost, so the group's parity rebuilds it;
//   4  files: used when they hold a newer iteration than memory can rebuild (or memory
//      cannot rebuild any).
#pragma once

#include <cstdint>
#include <vector>

#include "ftckpt/placement.hpp"
#include "ftckpt/xor_groups.hpp"

namespace ftckpt {

// source[] values besides a rank.
constexpr int kSourceNone = -1;    // a gap (owned no data), or nothing chosen
constexpr int kSourceFile = -2;    // read its level-4 file
constexpr int kSourceParity = -3;  // rebuild it from its XOR group

struct LevelQuery {
  const Placement* placement = nullptr;
  std::int64_t last_saved = -1;        // newest iteration with a complete slot, -1: none
  std::vector<bool> complete_by_age;   // entry a: iteration last_saved - a is complete (SD entries)
  std::vector<char> dead;              // N entries: lost, or a gap
  std::vector<char> gap;               // N entries: a gap that owned no data (empty: none)
  const XorGroups* groups = nullptr;   // level 3 when non-null and enabled
  std::int64_t newest_file = -1;       // newest iteration with level-4 files, -1: none
};

struct LevelChoice {
  int level = 0;                  // 0: nothing can be rebuilt
  std::int64_t iteration = -1;
  std::vector<int> source;        // rank -> the rank that serves its data, or kSource*
  std::vector<int> lost;          // lost data owners, ascending
  std::vector<int> lost_at_newest;  // when nothing in memory: who lost every copy of the newest
  bool recoverable() const { return level > 0; }
};

LevelChoice choose_level(const LevelQuery& q);

// Level 3 at iteration k for the given lost set: the sources (a surviving copy holder, or
// kSourceParity), or false when some group lost two members of which one has no copy.
bool xor_sources(const Placement& placement, const XorGroups& groups, std::int64_t k,
                 const std::vector<char>& dead, const std::vector<int>& lost, std::vector<int>* source);

}  // namespace ftckpt
