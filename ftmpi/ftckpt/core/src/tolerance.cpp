#include "ftckpt/tolerance.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace ftckpt {

namespace {

// A placed closed group: phase p, owner i.
using Placed = std::pair<int, int>;

// Closed group offsets per phase: {0} + copy offsets, sorted, duplicates removed (a copy can
// land on the owner or two copies on one node when N is small).
std::vector<std::vector<int>> closed_group_offsets(const Placement& pl) {
  std::vector<std::vector<int>> g(pl.sd());
  for (int p = 0; p < pl.sd(); ++p) {
    g[p] = pl.copy_offsets(p);
    g[p].push_back(0);
    std::sort(g[p].begin(), g[p].end());
    g[p].erase(std::unique(g[p].begin(), g[p].end()), g[p].end());
  }
  return g;
}

std::vector<int> shifted(const std::vector<int>& offsets, int i, int n) {
  std::vector<int> s;
  s.reserve(offsets.size());
  for (int d : offsets) s.push_back((i + d) % n);
  std::sort(s.begin(), s.end());
  return s;
}

std::vector<int> merged(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// Branch and bound over overlap-connected clusters covering exactly the phases in `mask`.
// The union is kept both as a list (to enumerate candidates) and as per-node multiplicities
// (to count a candidate's new nodes without building the merged set).
class ClusterSearch {
 public:
  ClusterSearch(const std::vector<std::vector<int>>& groups, int n, PhaseMask mask, int bound)
      : groups_(groups), n_(n), mask_(mask), best_(bound), count_(n, 0), pos_(n, 0) {}

  // Returns true when a cluster smaller than the initial bound was found.
  bool run() {
    int first = __builtin_ctz(mask_);
    bool improved = false;
    place(first, 0);  // shift invariance: the first group sits at owner 0
    grow(PhaseMask{1} << first, improved);
    unplace(first, 0);
    return improved;
  }
  int best() const { return best_; }
  const std::vector<Placed>& best_cluster() const { return best_cluster_; }
  std::uint64_t nodes() const { return nodes_; }

 private:
  int node(int i, int g) const { return (i + g) % n_; }
  int new_nodes(int q, int i) const {
    int fresh = 0;
    for (int g : groups_[q]) fresh += count_[node(i, g)] == 0;
    return fresh;
  }
  void place(int q, int i) {
    for (int g : groups_[q])
      if (count_[node(i, g)]++ == 0) {
        pos_[node(i, g)] = static_cast<int>(union_.size());
        union_.push_back(node(i, g));
      }
    current_.push_back({q, i});
  }
  void unplace(int q, int i) {
    // Reverse order: the nodes place() appended come off the end of union_ last-in first-out.
    for (auto g = groups_[q].rbegin(); g != groups_[q].rend(); ++g)
      if (--count_[node(i, *g)] == 0) union_.pop_back();
    current_.pop_back();
  }

  // Would owner i's group for phase q touch a node that was already in the union when q
  // was passed over (see grow)?
  bool touches_forbidden(int q, int i) const {
    for (int g : groups_[q]) {
      int v = node(i, g);
      if (count_[v] > 0 && pos_[v] < limit_[q]) return true;
    }
    return false;
  }

  // Canonical order: each cluster is generated once, in the order "add the lowest phase
  // that meets the union". Choosing phase q therefore commits every lower unplaced phase q'
  // to stay clear of the current union; limit_[q'] records that prefix of union_.
  void grow(PhaseMask placed, bool& improved) {
    ++nodes_;
    const int size = static_cast<int>(union_.size());
    if (placed == mask_) {
      if (size < best_) {
        best_ = size;
        best_cluster_ = current_;
        improved = true;
      }
      return;
    }
    const PhaseMask open = mask_ & ~placed;
    for (int q = 0; q < 32; ++q) {
      if (!(open >> q & 1)) continue;
      // Owners whose group meets the allowed part of the union: u = i + g.
      std::vector<int> cand;
      for (int idx = limit_[q]; idx < size; ++idx)
        for (int g : groups_[q]) cand.push_back(((union_[idx] - g) % n_ + n_) % n_);
      std::sort(cand.begin(), cand.end());
      cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
      std::vector<int> saved(limit_, limit_ + q);
      for (int lower = 0; lower < q; ++lower)
        if (open >> lower & 1) limit_[lower] = size;
      for (int i : cand) {
        // Unions only grow, so a partial union this large cannot beat the best.
        if (size + new_nodes(q, i) >= best_ || touches_forbidden(q, i)) continue;
        place(q, i);
        grow(placed | (PhaseMask{1} << q), improved);
        unplace(q, i);
      }
      std::copy(saved.begin(), saved.end(), limit_);
    }
  }

  const std::vector<std::vector<int>>& groups_;
  int n_;
  PhaseMask mask_;
  int best_;
  std::vector<int> count_;  // multiplicity of each node in the current union
  std::vector<int> pos_;    // index in union_ of each node in the union
  int limit_[32] = {};      // per phase: union_ prefix it must not touch
  std::vector<int> union_;
  std::vector<Placed> current_, best_cluster_;
  std::uint64_t nodes_ = 0;
};

Tolerance result_from(const Placement& pl, const std::vector<std::vector<int>>& groups,
                      const std::vector<Placed>& cfg, std::uint64_t nodes) {
  Tolerance t;
  t.victim.assign(pl.sd(), -1);
  std::vector<int> uni;
  for (auto [p, i] : cfg) {
    uni = merged(uni, shifted(groups[p], i, pl.n()));
    t.victim[p] = i;
  }
  t.killing_set = uni;
  t.tolerated = static_cast<int>(uni.size()) - 1;
  t.search_nodes = nodes;
  return t;
}

}  // namespace

PhaseMask ring_phases(const Placement& pl, std::int64_t last_saved,
                      const std::vector<bool>& complete_by_age) {
  PhaseMask mask = 0;
  for (int age = 0; age < pl.sd() && last_saved - age >= 0; ++age) {
    if (age < static_cast<int>(complete_by_age.size()) && !complete_by_age[age]) continue;
    mask |= PhaseMask{1} << pl.phase(last_saved - age);
  }
  return mask;
}

bool is_fatal(const Placement& pl, const std::vector<char>& is_failed, PhaseMask mask) {
  for (int p = 0; p < pl.sd(); ++p) {
    if (!(mask >> p & 1)) continue;
    bool killed = false;
    for (int i = 0; i < pl.n() && !killed; ++i) {
      if (!is_failed[i]) continue;
      bool all_lost = true;
      for (int j = 1; j <= pl.df() && all_lost; ++j) all_lost = is_failed[pl.receiver(i, j, p)];
      killed = all_lost;
    }
    if (!killed) return false;
  }
  return true;
}

Tolerance compute_tolerance(const Placement& pl, PhaseMask mask) {
  mask &= all_phases(pl.sd());
  if (mask == 0) {
    Tolerance t;
    t.killing_set = {0};
    t.victim.assign(pl.sd(), -1);
    return t;
  }
  const auto groups = closed_group_offsets(pl);
  const int n = pl.n();
  // Bottom-up over the sub-masks of `mask` (a sub-mask is numerically smaller than its
  // superset, so plain increasing order visits parts before wholes).
  std::vector<int> opt(mask + 1, std::numeric_limits<int>::max());
  std::vector<std::vector<Placed>> cfg(mask + 1);
  std::uint64_t nodes = 0;
  for (PhaseMask sub = 1; sub <= mask; ++sub) {
    if ((sub & ~mask) != 0) continue;
    int best = std::numeric_limits<int>::max();
    std::vector<Placed> best_cfg;
    if (__builtin_popcount(sub) == 1) {
      int p = __builtin_ctz(sub);
      best = static_cast<int>(groups[p].size());
      best_cfg = {{p, 0}};
    } else {
      // Bound from splits A|B: the two parts' best clusters placed anywhere realise at
      // most OPT(A) + OPT(B). The cluster search then always finds something strictly
      // smaller (shift one part until it touches the other), but the bound prunes hard.
      // The lowest phase stays in A so each split is seen once.
      PhaseMask low = sub & (~sub + 1);
      for (PhaseMask a = (sub - 1) & sub; a != 0; a = (a - 1) & sub) {
        if (!(a & low)) continue;
        PhaseMask b = sub ^ a;
        if (opt[a] + opt[b] < best) {
          best = opt[a] + opt[b];
          best_cfg = cfg[a];
          best_cfg.insert(best_cfg.end(), cfg[b].begin(), cfg[b].end());
        }
      }
      ClusterSearch search(groups, n, sub, best);
      if (search.run()) {
        best = search.best();
        best_cfg = search.best_cluster();
      }
      nodes += search.nodes();
    }
    opt[sub] = best;
    cfg[sub] = best_cfg;
  }
  return result_from(pl, groups, cfg[mask], nodes);
}

Tolerance compute_tolerance_during_save(const Placement& pl, int* phase_in_flight) {
  Tolerance worst;
  int worst_p = 0;
  worst.tolerated = std::numeric_limits<int>::max();
  for (int p = 0; p < pl.sd(); ++p) {
    Tolerance t = compute_tolerance(pl, all_phases(pl.sd()) & ~(PhaseMask{1} << p));
    if (t.tolerated < worst.tolerated) {
      worst = t;
      worst_p = p;
    }
  }
  if (phase_in_flight) *phase_in_flight = worst_p;
  return worst;
}

Tolerance brute_force_tolerance(const Placement& pl, PhaseMask mask) {
  const int n = pl.n();
  Tolerance t;
  t.victim.assign(pl.sd(), -1);
  std::vector<char> failed(n, 0);
  for (int size = 1; size <= n; ++size) {
    // Walk all subsets of this size as index combinations in lexicographic order.
    std::vector<int> idx(size);
    for (int s = 0; s < size; ++s) idx[s] = s;
    while (true) {
      std::fill(failed.begin(), failed.end(), 0);
      for (int s : idx) failed[s] = 1;
      if (is_fatal(pl, failed, mask & all_phases(pl.sd()))) {
        t.killing_set = idx;
        t.tolerated = size - 1;
        return t;
      }
      int s = size - 1;
      while (s >= 0 && idx[s] == n - size + s) --s;
      if (s < 0) break;
      ++idx[s];
      for (int r = s + 1; r < size; ++r) idx[r] = idx[r - 1] + 1;
    }
  }
  t.tolerated = n;  // unreachable: losing every process is always fatal
  return t;
}

}  // namespace ftckpt
