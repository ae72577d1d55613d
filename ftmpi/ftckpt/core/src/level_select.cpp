#include "ftckpt/level_select.hpp"

#include <stdexcept>

#include "ftckpt/recovery_line.hpp"

namespace ftckpt {

bool xor_sources(const Placement& placement, const XorGroups& groups, std::int64_t k,
                 const std::vector<char>& dead, const std::vector<int>& lost, std::vector<int>* source) {
  if (!groups.enabled()) return false;
  for (int o : lost) {
    int h = surviving_holder(placement, o, k, dead);
    if (h >= 0) {
      (*source)[o] = h;  // a copy is cheaper than a rebuild
      continue;
    }
    int g = groups.group_of(o);
    if (g < 0) return false;
    for (int m : groups.members(g))
      if (m != o && dead[m]) return false;  // the rebuild needs every other member's image
    (*source)[o] = kSourceParity;
  }
  return true;
}

LevelChoice choose_level(const LevelQuery& q) {
  if (!q.placement) throw std::invalid_argument("choose_level: no placement");
  const Placement& placement = *q.placement;
  const int n = placement.n();
  if (static_cast<int>(q.dead.size()) != n || (!q.gap.empty() && static_cast<int>(q.gap.size()) != n))
    throw std::invalid_argument("choose_level: dead/gap need N entries");
  LevelChoice c;
  std::vector<int> base(n, kSourceNone);
  for (int r = 0; r < n; ++r) {
    if (!q.gap.empty() && q.gap[r]) continue;
    if (q.dead[r]) c.lost.push_back(r);
    else base[r] = r;
  }

  bool seen_complete = false;
  for (int age = 0; age < placement.sd() && c.level == 0; ++age) {
    const std::int64_t k = q.last_saved - age;
    if (k < 0) break;
    if (age < static_cast<int>(q.complete_by_age.size()) && !q.complete_by_age[age]) continue;
    std::vector<int> source = base;
    int level = 0;
    if (c.lost.empty()) {
      level = 1;
    } else {
      std::vector<int> missing;
      for (int o : c.lost) {
        source[o] = surviving_holder(placement, o, k, q.dead);
        if (source[o] < 0) missing.push_back(o);
      }
      if (missing.empty()) {
        level = 2;
      } else {
        if (!seen_complete) c.lost_at_newest = missing;
        source = base;
        if (q.groups && xor_sources(placement, *q.groups, k, q.dead, c.lost, &source)) level = 3;
      }
    }
    seen_complete = true;
    if (level) {
      c.level = level;
      c.iteration = k;
      c.source = std::move(source);
    }
  }
  if (q.newest_file >= 0 && q.newest_file > c.iteration) {
    c.level = 4;
    c.iteration = q.newest_file;
    c.source = base;
    for (int r = 0; r < n; ++r)
      if (q.gap.empty() || !q.gap[r]) c.source[r] = kSourceFile;
    c.lost_at_newest.clear();
  }
  if (c.level) c.lost_at_newest.clear();
  else c.source = base;
  return c;
}

}  // namespace ftckpt
