// How many simultaneous failures a placement (N, DF, SD) really survives.
//
// Definition. A failure set F "kills" phase p (an iteration k with k mod SD = p) when some
// failed process i has all of its copies of that iteration on failed processes too, i.e. F
// contains the closed group C_p(i) = {i} + {receiver(i, j, p) : j = 1..DF}. F is fatal when it
// kills every phase that is present and complete in the ring. The tolerance of a set of
// phases is the largest f such that no failure set of size <= f is fatal; it equals the size
// of a smallest fatal set minus one. Once SD saves completed, the ring's phases are all of
// 0..SD-1 whatever the current iteration is, so the steady-state tolerance does not depend on
// the current phase. While a save overwrites the oldest slot in place only SD-1 phases are
// complete; compute_tolerance_during_save() gives that worst case over the phase in flight.
//
// Algorithm. A smallest fatal set is a union of one closed group per phase, so we minimise
// |union over p of C_p(i_p)| over tuples (i_p). The formula is shift invariant
// (C_p(i + s) = C_p(i) + s), which gives two reductions:
//  * the groups of an optimal tuple overlap in one connected cluster: otherwise shifting
//    one component until it touches another would shrink the union. The search therefore
//    fixes the first group at owner 0 and grows the cluster by a group that meets the
//    current union; candidates are owners i = u - g for u in the union and g in the group's
//    offsets, so the work is independent of N;
//  * each cluster is generated once, in the canonical order "add the lowest-numbered phase
//    that meets the union", and branch and bound prunes every partial union at least as large
//    as the best known. The initial bound comes from subsets of phases, solved first:
//    OPT(A) + OPT(B) for a split A|B is always achievable.
#pragma once

#include <cstdint>
#include <vector>

#include "ftckpt/placement.hpp"

namespace ftckpt {

// Bit p set: phase p is present and complete.
using PhaseMask = std::uint32_t;
inline PhaseMask all_phases(int sd) { return (PhaseMask{1} << sd) - 1; }

struct Tolerance {
  int tolerated = 0;              // largest f with no fatal failure set of size <= f
  std::vector<int> killing_set;   // a smallest fatal set, sorted; size tolerated + 1
  // victim[p]: the process whose closed group for phase p lies inside killing_set, or -1
  // when phase p was not part of the mask.
  std::vector<int> victim;
  std::uint64_t search_nodes = 0; // cluster-growth steps, for the timing notes
};

// Phases present and complete in the ring after saves 0..last_saved (none when last_saved
// is negative). complete_by_age as for find_recovery_line: entry a describes iteration
// last_saved - a; empty means all complete. Feed the result to compute_tolerance to know
// what the ring survives right now, e.g. during the first SD-1 saves.
PhaseMask ring_phases(const Placement& placement, std::int64_t last_saved,
                      const std::vector<bool>& complete_by_age = {});

// Exact tolerance over the phases in `mask` (default: all SD phases, the steady state).
// With an empty mask there is nothing to recover from and any single failure is fatal.
Tolerance compute_tolerance(const Placement& placement, PhaseMask mask);
inline Tolerance compute_tolerance(const Placement& placement) {
  return compute_tolerance(placement, all_phases(placement.sd()));
}

// Worst case while one slot is being overwritten: minimum over the phase p in flight of the
// tolerance of the other SD-1 phases. `phase_in_flight` receives the worst p when non-null.
Tolerance compute_tolerance_during_save(const Placement& placement, int* phase_in_flight);

// True when the failure set (is_failed has N entries) kills every phase in mask.
bool is_fatal(const Placement& placement, const std::vector<char>& is_failed, PhaseMask mask);

// Reference implementation for tests: enumerate failure sets by increasing size. Exponential
// in N; intended for N <= ~20.
Tolerance brute_force_tolerance(const Placement& placement, PhaseMask mask);

}  // namespace ftckpt
