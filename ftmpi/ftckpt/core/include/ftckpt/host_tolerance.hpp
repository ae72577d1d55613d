// How many whole hosts a placement survives losing at once.
//
// A host failure takes all of its ranks together, so the rank tolerance (tolerance.hpp) is
// not the answer: three ranks on one host fail "at once" every time. A set S of hosts is
// fatal when failing every rank on S kills every phase in the mask, i.e. for every phase p
// some owner i has its closed group C_p(i) = {i} + copies entirely on S. The host tolerance
// is (size of a smallest fatal host set) - 1. The search lists, per phase, the distinct
// minimal host sets H_p(i) = hosts of C_p(i) and picks one per phase, minimising the union by
// branch and bound: exact, exponential only in SD, and cheap for the host counts of a job
// (the lists hold at most N sets and usually far fewer).
#pragma once

#include <vector>

#include "ftckpt/placement.hpp"
#include "ftckpt/tolerance.hpp"

namespace ftckpt {

struct HostTolerance {
  int hosts = 1;                     // hosts of the placement
  int tolerated = 0;                 // largest h such that no h hosts failing is fatal
  std::vector<int> killing_hosts;    // a smallest fatal host set, sorted; size tolerated + 1
  std::vector<int> killing_ranks;    // every rank on those hosts, sorted
};

HostTolerance compute_host_tolerance(const Placement& placement, PhaseMask mask);
inline HostTolerance compute_host_tolerance(const Placement& placement) {
  return compute_host_tolerance(placement, all_phases(placement.sd()));
}

// The same for ranks placed on hosts by an explicit map (N entries, any labels), whatever the
// placement's own map: e.g. how formula (1) without host awareness fares on those hosts.
HostTolerance compute_host_tolerance(const Placement& placement, const std::vector<int>& host_of_rank,
                                     PhaseMask mask);

// Reference for tests: every host subset by increasing size, checked with is_fatal.
HostTolerance brute_force_host_tolerance(const Placement& placement, PhaseMask mask);

}  // namespace ftckpt
