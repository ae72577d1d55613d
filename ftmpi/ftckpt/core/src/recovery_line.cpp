#include "ftckpt/recovery_line.hpp"

#include <algorithm>
#include <stdexcept>

namespace ftckpt {

int surviving_holder(const Placement& placement, int owner, std::int64_t k,
                     const std::vector<char>& is_failed) {
  for (int j = 1; j <= placement.df(); ++j) {
    int r = placement.receiver(owner, j, k);
    // A copy that landed on the owner itself (possible for small N) died with it.
    if (!is_failed[r]) return r;
  }
  return -1;
}

RecoveryLine find_recovery_line(const Placement& placement, std::int64_t last_saved,
                                const std::vector<int>& failed,
                                const std::vector<bool>& complete_by_age) {
  RecoveryLine line;
  line.failed = failed;
  std::sort(line.failed.begin(), line.failed.end());
  line.failed.erase(std::unique(line.failed.begin(), line.failed.end()), line.failed.end());

  std::vector<char> is_failed(placement.n(), 0);
  for (int f : line.failed) {
    if (f < 0 || f >= placement.n()) throw std::out_of_range("find_recovery_line: bad rank");
    is_failed[f] = 1;
  }
  line.holder.assign(line.failed.size(), -1);

  bool seen_complete = false;
  std::vector<int> holder(line.failed.size());
  // Newest first, as RLFFN: the most recent consistent global checkpoint loses least work.
  for (int age = 0; age < placement.sd(); ++age) {
    std::int64_t k = last_saved - age;
    if (k < 0) break;
    if (age < static_cast<int>(complete_by_age.size()) && !complete_by_age[age]) continue;
    std::vector<int> lost;
    for (std::size_t n = 0; n < line.failed.size(); ++n) {
      holder[n] = surviving_holder(placement, line.failed[n], k, is_failed);
      if (holder[n] < 0) lost.push_back(line.failed[n]);
    }
    if (lost.empty()) {
      line.iteration = k;
      line.holder = holder;
      line.lost_at_newest.clear();
      return line;
    }
    if (!seen_complete) line.lost_at_newest = lost;
    seen_complete = true;
  }
  return line;
}

}  // namespace ftckpt
