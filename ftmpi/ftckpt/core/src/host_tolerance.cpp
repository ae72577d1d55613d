#include "ftckpt/host_tolerance.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>

namespace ftckpt {

namespace {

using HostSet = std::vector<int>;  // sorted host numbers

// Distinct host sets of the closed groups of phase p, without any that contains another
// (a superset can never give a smaller union), smallest first.
std::vector<HostSet> minimal_host_sets(const Placement& pl, const std::vector<int>& host_of, int p) {
  std::set<HostSet> distinct;
  for (int i = 0; i < pl.n(); ++i) {
    HostSet h{host_of[i]};
    for (int r : pl.holders(i, p)) h.push_back(host_of[r]);
    std::sort(h.begin(), h.end());
    h.erase(std::unique(h.begin(), h.end()), h.end());
    distinct.insert(h);
  }
  std::vector<HostSet> all(distinct.begin(), distinct.end());
  std::stable_sort(all.begin(), all.end(), [](const HostSet& a, const HostSet& b) { return a.size() < b.size(); });
  std::vector<HostSet> minimal;
  for (const HostSet& h : all) {
    bool has_subset = false;
    for (const HostSet& m : minimal)
      has_subset = has_subset || std::includes(h.begin(), h.end(), m.begin(), m.end());
    if (!has_subset) minimal.push_back(h);
  }
  return minimal;
}

class HostSearch {
 public:
  HostSearch(std::vector<std::vector<HostSet>> per_phase, int hosts)
      : per_phase_(std::move(per_phase)), count_(hosts, 0), best_(hosts + 1) {}

  void run() { pick(0, 0); }
  int best() const { return best_; }
  const HostSet& best_set() const { return best_set_; }

 private:
  void pick(std::size_t phase, int size) {
    if (size >= best_) return;  // the union only grows
    if (phase == per_phase_.size()) {
      best_ = size;
      best_set_.clear();
      for (int h = 0; h < static_cast<int>(count_.size()); ++h)
        if (count_[h] > 0) best_set_.push_back(h);
      return;
    }
    for (const HostSet& s : per_phase_[phase]) {
      int fresh = 0;
      for (int h : s) fresh += count_[h]++ == 0;
      pick(phase + 1, size + fresh);
      for (int h : s) --count_[h];
    }
  }

  std::vector<std::vector<HostSet>> per_phase_;
  std::vector<int> count_;
  int best_;
  HostSet best_set_;
};

HostTolerance finish(const std::vector<int>& host_of, int nhosts, const HostSet& hosts) {
  HostTolerance t;
  t.hosts = nhosts;
  t.killing_hosts = hosts;
  t.tolerated = static_cast<int>(hosts.size()) - 1;
  for (int r = 0; r < static_cast<int>(host_of.size()); ++r)
    if (std::binary_search(hosts.begin(), hosts.end(), host_of[r])) t.killing_ranks.push_back(r);
  return t;
}

std::vector<int> own_map(const Placement& pl) {
  std::vector<int> m(pl.n());
  for (int r = 0; r < pl.n(); ++r) m[r] = pl.host_of(r);
  return m;
}

// Host numbers 0..H-1 in order of each host's lowest rank (as Placement numbers them).
std::vector<int> renumbered(const std::vector<int>& labels, int* nhosts) {
  std::map<int, int> number;
  std::vector<int> out(labels.size());
  for (std::size_t r = 0; r < labels.size(); ++r)
    out[r] = number.emplace(labels[r], static_cast<int>(number.size())).first->second;
  *nhosts = static_cast<int>(number.size());
  return out;
}

}  // namespace

HostTolerance compute_host_tolerance(const Placement& pl, PhaseMask mask) {
  return compute_host_tolerance(pl, own_map(pl), mask);
}

HostTolerance compute_host_tolerance(const Placement& pl, const std::vector<int>& labels, PhaseMask mask) {
  if (static_cast<int>(labels.size()) != pl.n()) throw std::invalid_argument("host map must have N entries");
  int nhosts = 0;
  const std::vector<int> host_of = renumbered(labels, &nhosts);
  mask &= all_phases(pl.sd());
  if (mask == 0) return finish(host_of, nhosts, {host_of[0]});  // nothing kept: any loss is fatal
  std::vector<std::vector<HostSet>> per_phase;
  for (int p = 0; p < pl.sd(); ++p)
    if (mask >> p & 1) per_phase.push_back(minimal_host_sets(pl, host_of, p));
  // Most constrained phase first: fewer branches near the root.
  std::sort(per_phase.begin(), per_phase.end(),
            [](const auto& a, const auto& b) { return a.size() < b.size(); });
  HostSearch search(std::move(per_phase), nhosts);
  search.run();
  return finish(host_of, nhosts, search.best_set());
}

HostTolerance brute_force_host_tolerance(const Placement& pl, PhaseMask mask) {
  const int m = pl.hosts();
  std::vector<char> failed(pl.n());
  for (int size = 1; size <= m; ++size) {
    for (std::uint32_t bits = 0; bits < (std::uint32_t{1} << m); ++bits) {
      if (__builtin_popcount(bits) != size) continue;
      for (int r = 0; r < pl.n(); ++r) failed[r] = bits >> pl.host_of(r) & 1;
      if (!is_fatal(pl, failed, mask & all_phases(pl.sd()))) continue;
      HostSet hosts;
      for (int h = 0; h < m; ++h)
        if (bits >> h & 1) hosts.push_back(h);
      return finish(own_map(pl), m, hosts);
    }
  }
  return finish(own_map(pl), m, {});  // unreachable: losing every host is fatal
}

}  // namespace ftckpt
