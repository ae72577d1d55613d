// Host-aware partner choice (placement.hpp): formula (1) along a ring that visits the hosts
// round-robin, each copy moved to the next ring position on a fitting host.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "ftckpt/placement.hpp"

namespace ftckpt {

namespace {

// Ring position -> rank: the first rank of every host (hosts in order of their lowest
// rank), then the second, and so on; a host that ran out of ranks is skipped.
std::vector<int> round_robin_ring(const std::vector<int>& host_of, int hosts) {
  std::vector<std::vector<int>> ranks_of(hosts);
  for (int r = 0; r < static_cast<int>(host_of.size()); ++r) ranks_of[host_of[r]].push_back(r);
  std::vector<int> ring;
  for (std::size_t t = 0; ring.size() < host_of.size(); ++t)
    for (const auto& ranks : ranks_of)
      if (t < ranks.size()) ring.push_back(ranks[t]);
  return ring;
}

}  // namespace

Placement::Placement(int n, int df, int sd, const std::vector<int>& host_of_rank)
    : Placement(n, df, sd) {
  if (static_cast<int>(host_of_rank.size()) != n)
    throw std::invalid_argument("host map must have one entry per process");
  // Renumber hosts in order of their lowest rank, so any labels give the same placement.
  std::map<int, int> number;
  std::vector<int> host_of(n);
  for (int r = 0; r < n; ++r) {
    auto it = number.emplace(host_of_rank[r], static_cast<int>(number.size())).first;
    host_of[r] = it->second;
  }
  if (number.size() < 2) return;  // one host: formula (1) unchanged
  hosts_ = static_cast<int>(number.size());
  host_of_ = std::move(host_of);
  build_host_table();
}

void Placement::build_host_table() {
  ring_ = round_robin_ring(host_of_, hosts_);
  std::vector<int> pos(n_);
  for (int v = 0; v < n_; ++v) pos[ring_[v]] = v;
  const auto formula = offsets_;  // formula (1) offsets, now read along the ring
  table_.assign(sd_, std::vector<int>(static_cast<std::size_t>(n_) * df_));
  held_.assign(sd_, std::vector<std::vector<HeldCopy>>(n_));
  std::vector<char> host_used(hosts_), rank_used(n_);
  for (int p = 0; p < sd_; ++p) {
    for (int v = 0; v < n_; ++v) {
      const int owner = ring_[v];
      const int own_host = host_of_[owner];
      std::vector<int> chosen;
      for (int j = 1; j <= df_; ++j) {
        const int start = (v + formula[p][j - 1]) % n_;
        auto fits = [&](int r, int level) {
          if (host_of_[r] == own_host) return false;
          if (level <= 2 && rank_used[r]) return false;
          if (level <= 1 && host_used[host_of_[r]]) return false;
          return true;
        };
        int pick = -1;
        for (int level = 1; level <= 3 && pick < 0; ++level)
          for (int step = 0; step < n_ && pick < 0; ++step)
            if (fits(ring_[(start + step) % n_], level)) pick = ring_[(start + step) % n_];
        chosen.push_back(pick);  // level 3 always fits: another host exists
        rank_used[pick] = 1;
        host_used[host_of_[pick]] = 1;
        table_[p][static_cast<std::size_t>(owner) * df_ + (j - 1)] = pick;
      }
      for (int r : chosen) rank_used[r] = 0, host_used[host_of_[r]] = 0;
    }
    // The inverse, ordered by copy number then owner (as the formula's copies_held_by).
    for (int j = 1; j <= df_; ++j)
      for (int owner = 0; owner < n_; ++owner)
        held_[p][table_[p][static_cast<std::size_t>(owner) * df_ + (j - 1)]].push_back({owner, j});
  }
  // Shift invariance along the ring: every owner's copy j at the same offset as position 0's.
  ring_invariant_ = true;
  for (int p = 0; p < sd_; ++p) {
    for (int j = 1; j <= df_; ++j) {
      const int d = (pos[table_[p][static_cast<std::size_t>(ring_[0]) * df_ + (j - 1)]]) % n_;
      offsets_[p][j - 1] = d;
      for (int v = 1; v < n_ && ring_invariant_; ++v) {
        const int at = pos[table_[p][static_cast<std::size_t>(ring_[v]) * df_ + (j - 1)]];
        ring_invariant_ = (at - v + n_) % n_ == d;
      }
    }
  }
}

}  // namespace ftckpt
