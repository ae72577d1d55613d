// Recovery line after failures (function RLFFN of Bondarenko & Yakobovsky 2014, section 3.3).
//
// The recovery line is the newest of the last SD saved iterations in which every failed
// process has a copy on a survivor; survivors restore from their own local checkpoint of that
// iteration. Everything here is a pure function of data the FT core already agreed on (the
// failed set, the last saved iteration, which ring slots are complete), so every process
// computes the same answer without another validation round.
#pragma once

#include <cstdint>
#include <vector>

#include "ftckpt/placement.hpp"

namespace ftckpt {

struct RecoveryLine {
  // Iteration to resume from, or -1 when none of the kept iterations can be rebuilt.
  std::int64_t iteration = -1;
  // Failed processes, sorted and without duplicates.
  std::vector<int> failed;
  // holder[n] is the survivor that sends failed[n] its checkpoint (lowest copy number that
  // survived, as in the paper's accessibility()); -1 for every entry when not recoverable.
  std::vector<int> holder;
  // When not recoverable: the failed processes that lost every copy of the newest complete
  // iteration, for the error message. Empty when recoverable.
  std::vector<int> lost_at_newest;

  bool recoverable() const { return iteration >= 0; }
};

// last_saved: newest iteration whose save started (k_end in the paper); iterations below 0
// do not exist, so during the first SD-1 saves fewer candidates are examined.
// complete_by_age[a]: whether iteration last_saved - a completed on every process. A save
// interrupted by a failure leaves its slot incomplete and it must not be chosen. An empty
// vector means all kept iterations are complete; entries beyond SD are ignored.
// Throws std::out_of_range for a failed rank outside [0, N).
RecoveryLine find_recovery_line(const Placement& placement, std::int64_t last_saved,
                                const std::vector<int>& failed,
                                const std::vector<bool>& complete_by_age = {});

// The surviving holder with the lowest copy number of `owner`'s checkpoint at iteration k,
// or -1 when all of them failed. is_failed has N entries.
int surviving_holder(const Placement& placement, int owner, std::int64_t k,
                     const std::vector<char>& is_failed);

}  // namespace ftckpt
