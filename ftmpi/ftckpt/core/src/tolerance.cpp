#include "ftckpt/tolerance.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace ftckpt {

namespace {

// A placed closed group: phase p, owner i.
using Placed = std::pair<int, int>;

// Closed groups {i} + copies of i, as seen by the cluster search. Two shapes:
//  * RingGroups: shift invariant along ring_order() (one host, or equal-sized hosts), so a
//    group is offsets added to its owner's ring position and the first group can sit at
//    position 0 (rotation symmetry);
//  * TableGroups: any host-aware placement; explicit groups in rank space, and the first
//    group must be tried at every owner.
class RingGroups {
 public:
  explicit RingGroups(const Placement& pl) : n_(pl.n()), offsets_(pl.sd()) {
    // {0} + copy offsets, sorted, duplicates removed (a copy can land on the owner or two
    // copies on one node when N is small).
    for (int p = 0; p < pl.sd(); ++p) {
      auto& g = offsets_[p];
      g = pl.copy_offsets(p);
      g.push_back(0);
      std::sort(g.begin(), g.end());
      g.erase(std::unique(g.begin(), g.end()), g.end());
    }
  }
  int n() const { return n_; }
  int first_owners() const { return 1; }
  int group_size(int p, int) const { return static_cast<int>(offsets_[p].size()); }
  template <class F> void nodes(int p, int i, F f) const {
    for (int g : offsets_[p]) f((i + g) % n_);
  }
  template <class F> void nodes_reversed(int p, int i, F f) const {
    for (auto g = offsets_[p].rbegin(); g != offsets_[p].rend(); ++g) f((i + *g) % n_);
  }
  // Owners whose group for phase p contains node u: u - g.
  template <class F> void owners_touching(int p, int u, F f) const {
    for (int g : offsets_[p]) f(((u - g) % n_ + n_) % n_);
  }

 private:
  int n_;
  std::vector<std::vector<int>> offsets_;
};

class TableGroups {
 public:
  explicit TableGroups(const Placement& pl)
      : n_(pl.n()), groups_(pl.sd(), std::vector<std::vector<int>>(pl.n())),
        touching_(pl.sd(), std::vector<std::vector<int>>(pl.n())) {
    for (int p = 0; p < pl.sd(); ++p)
      for (int i = 0; i < n_; ++i) {
        auto& g = groups_[p][i];
        g = pl.holders(i, p);
        g.push_back(i);
        std::sort(g.begin(), g.end());
        g.erase(std::unique(g.begin(), g.end()), g.end());
        for (int u : g) touching_[p][u].push_back(i);
      }
  }
  int n() const { return n_; }
  int first_owners() const { return n_; }
  int group_size(int p, int i) const { return static_cast<int>(groups_[p][i].size()); }
  template <class F> void nodes(int p, int i, F f) const {
    for (int u : groups_[p][i]) f(u);
  }
  template <class F> void nodes_reversed(int p, int i, F f) const {
    for (auto u = groups_[p][i].rbegin(); u != groups_[p][i].rend(); ++u) f(*u);
  }
  template <class F> void owners_touching(int p, int u, F f) const {
    for (int i : touching_[p][u]) f(i);
  }

 private:
  int n_;
  std::vector<std::vector<std::vector<int>>> groups_;    // [phase][owner], sorted
  std::vector<std::vector<std::vector<int>>> touching_;  // [phase][node] -> owners
};

// Branch and bound over overlap-connected clusters covering exactly the phases in `mask`.
// The union is kept both as a list (to enumerate candidates) and as per-node multiplicities
// (to count a candidate's new nodes without building the merged set).
template <class Groups>
class ClusterSearch {
 public:
  ClusterSearch(const Groups& groups, PhaseMask mask, int bound)
      : groups_(groups), n_(groups.n()), mask_(mask), best_(bound), count_(n_, 0), pos_(n_, 0) {}

  // Returns true when a cluster smaller than the initial bound was found.
  bool run() {
    int first = __builtin_ctz(mask_);
    bool improved = false;
    // With shift invariance the first group sits at owner 0; otherwise at every owner.
    for (int owner = 0; owner < groups_.first_owners(); ++owner) {
      if (groups_.group_size(first, owner) >= best_) continue;
      place(first, owner);
      grow(PhaseMask{1} << first, improved);
      unplace(first, owner);
    }
    return improved;
  }
  int best() const { return best_; }
  const std::vector<Placed>& best_cluster() const { return best_cluster_; }
  std::uint64_t nodes() const { return nodes_; }

 private:
  int new_nodes(int q, int i) const {
    int fresh = 0;
    groups_.nodes(q, i, [&](int v) { fresh += count_[v] == 0; });
    return fresh;
  }
  void place(int q, int i) {
    groups_.nodes(q, i, [&](int v) {
      if (count_[v]++ == 0) {
        pos_[v] = static_cast<int>(union_.size());
        union_.push_back(v);
      }
    });
    current_.push_back({q, i});
  }
  void unplace(int q, int i) {
    // Reverse order: the nodes place() appended come off the end of union_ last-in first-out.
    groups_.nodes_reversed(q, i, [&](int v) {
      if (--count_[v] == 0) union_.pop_back();
    });
    current_.pop_back();
  }

  // Would owner i's group for phase q touch a node that was already in the union when q
  // was passed over (see grow)?
  bool touches_forbidden(int q, int i) const {
    bool hit = false;
    groups_.nodes(q, i, [&](int v) { hit = hit || (count_[v] > 0 && pos_[v] < limit_[q]); });
    return hit;
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
      // Owners whose group meets the allowed part of the union.
      std::vector<int> cand;
      for (int idx = limit_[q]; idx < size; ++idx)
        groups_.owners_touching(q, union_[idx], [&](int i) { cand.push_back(i); });
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

  const Groups& groups_;
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

// cfg is in the search's node space: ring positions (to_rank = ring order) or ranks.
template <class Groups>
Tolerance result_from(const Placement& pl, const Groups& groups, const std::vector<int>* to_rank,
                      const std::vector<Placed>& cfg, std::uint64_t nodes) {
  Tolerance t;
  t.victim.assign(pl.sd(), -1);
  std::vector<int> uni;
  auto rank = [&](int v) { return to_rank ? (*to_rank)[v] : v; };
  for (auto [p, i] : cfg) {
    groups.nodes(p, i, [&](int v) { uni.push_back(rank(v)); });
    t.victim[p] = rank(i);
  }
  std::sort(uni.begin(), uni.end());
  uni.erase(std::unique(uni.begin(), uni.end()), uni.end());
  t.killing_set = uni;
  t.tolerated = static_cast<int>(uni.size()) - 1;
  t.search_nodes = nodes;
  return t;
}

// Bottom-up over the sub-masks of `mask` (a sub-mask is numerically smaller than its
// superset, so plain increasing order visits parts before wholes).
template <class Groups>
Tolerance search_tolerance(const Placement& pl, const Groups& groups, const std::vector<int>* to_rank,
                           PhaseMask mask) {
  std::vector<int> opt(mask + 1, std::numeric_limits<int>::max());
  std::vector<std::vector<Placed>> cfg(mask + 1);
  std::uint64_t nodes = 0;
  for (PhaseMask sub = 1; sub <= mask; ++sub) {
    if ((sub & ~mask) != 0) continue;
    int best = std::numeric_limits<int>::max();
    std::vector<Placed> best_cfg;
    if (__builtin_popcount(sub) == 1) {
      // One phase: the smallest closed group (all equal when shift invariant).
      int p = __builtin_ctz(sub);
      for (int i = 0; i < groups.first_owners(); ++i)
        if (groups.group_size(p, i) < best) best = groups.group_size(p, i), best_cfg = {{p, i}};
    } else {
      // Bound from splits A|B: the two parts' best clusters placed anywhere realise at
      // most OPT(A) + OPT(B). The cluster search then finds any connected cluster strictly
      // smaller, and the bound prunes hard. The lowest phase stays in A so each split is
      // seen once.
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
      ClusterSearch<Groups> search(groups, sub, best);
      if (search.run()) {
        best = search.best();
        best_cfg = search.best_cluster();
      }
      nodes += search.nodes();
    }
    opt[sub] = best;
    cfg[sub] = best_cfg;
  }
  return result_from(pl, groups, to_rank, cfg[mask], nodes);
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
  if (pl.ring_invariant()) return search_tolerance(pl, RingGroups(pl), &pl.ring_order(), mask);
  return search_tolerance(pl, TableGroups(pl), nullptr, mask);
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
