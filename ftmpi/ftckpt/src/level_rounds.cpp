// The level choice without the failure topology, for comparison only
// (FTCKPT_Test_level_search(1)): FTI's recovery as seed 001 describes it (its Algorithm 1).
// Each candidate (iteration, level) is tried in the order of preference - newest iteration
// first, lowest level first, level-4 files where their iteration fits - and validated with
// one allreduce round in which every survivor says what it holds at that level; the first
// candidate the round validates wins. The survivors do not use the placement formula or the
// failed set here: the rounds themselves reveal who holds what, which is exactly the
// knowledge the topology gives for free.
//
// A round is one MPI_Allreduce(MIN) of 2N ints (N: size of the candidate's epoch): per
// owner, the lowest current rank that can serve its image at this level (own image at level
// 1; also a held copy at 2 and 3), and per member whether it holds its own image and parity
// (level 3). Level 4: one MPI_Allreduce(MAX) of "some file I must read is missing". The local
// checks are metadata lookups; FTI additionally verifies checksums of what it found, which
// would make every failed round dearer still.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "ckpt_state.hpp"
#include "ftckpt/level_select.hpp"
#include "image.hpp"
#include "recovery_choice.hpp"

namespace ftckpt {

namespace {

struct Try {
  std::int64_t k;
  int level;
};

// One validation round for a memory level. On success `source` is filled (current ranks,
// kSourceParity for level-3 rebuilds).
int validate_memory(const Epoch& e, const Try& t, bool* valid, std::vector<int>* source) {
  const State& s = state();
  const int n = e.n, me = my_rank();
  std::vector<int> have(2 * static_cast<std::size_t>(n), INT_MAX), all(have.size(), INT_MAX);
  if (const int si = slot_of(t.k, e.id); si >= 0) {
    const Slot& slot = s.slots[static_cast<std::size_t>(si)];
    have[e.my_rank] = me;
    if (t.level >= 2)
      for (const auto& [owner, copy] : slot.held)
        if (static_cast<long long>(copy.size()) == slot.sizes[owner]) have[owner] = std::min(have[owner], me);
    if (t.level == 3 && !slot.parity.empty()) have[n + e.my_rank] = 0;
  }
  if (int rc = MPI_Allreduce(have.data(), all.data(), 2 * n, MPI_INT, MPI_MIN, s.comm); rc != MPI_SUCCESS)
    return rc;
  *valid = true;
  source->assign(n, -1);
  for (int o = 0; o < n && *valid; ++o) {
    if (e.gap_at_start[o]) continue;
    if (all[o] != INT_MAX) {
      (*source)[o] = e.now[o] >= 0 ? e.now[o] : all[o];  // a survivor serves itself
      continue;
    }
    const int g = t.level == 3 ? e.xor_groups.group_of(o) : -1;
    bool rebuildable = g >= 0;
    for (int m : g >= 0 ? e.xor_groups.members(g) : std::vector<int>{})
      rebuildable = rebuildable && (m == o || all[n + m] == 0);
    (*source)[o] = kSourceParity;
    *valid = rebuildable;
  }
  return MPI_SUCCESS;
}

int validate_files(const Epoch& e, const Try& t, bool* valid) {
  const State& s = state();
  int missing = 0, any = 0;
  for (int o = 0; o < e.n; ++o)
    if (!e.gap_at_start[o] && access(image_path(s.l4_dir, e.id, t.k, o).c_str(), R_OK) != 0) missing = 1;
  if (int rc = MPI_Allreduce(&missing, &any, 1, MPI_INT, MPI_MAX, s.comm); rc != MPI_SUCCESS) return rc;
  *valid = any == 0;
  return MPI_SUCCESS;
}

}  // namespace

int choose_by_rounds(Candidate* out, int* rounds) {
  const State& s = state();
  *rounds = 0;
  *out = Candidate();
  for (auto e = s.epochs.rbegin(); e != s.epochs.rend(); ++e) {
    if (e->foreign) continue;  // holds nothing of it; only used when everyone knows every epoch
    const std::int64_t last = newest_complete(e->id), file = newest_file_of(e->id);
    std::vector<Try> order;
    bool file_listed = false;
    for (int a = 0; a < s.sd && last - a >= 0; ++a) {
      const std::int64_t k = last - a;
      if (slot_of(k, e->id) < 0) continue;
      if (file > k && !file_listed) order.push_back({file, FTCKPT_LEVEL_FILES}), file_listed = true;
      order.push_back({k, FTCKPT_LEVEL_LOCAL});
      order.push_back({k, FTCKPT_LEVEL_COPIES});
      if (e->xor_groups.enabled()) order.push_back({k, FTCKPT_LEVEL_XOR});
    }
    if (file >= 0 && !file_listed) order.push_back({file, FTCKPT_LEVEL_FILES});

    for (const Try& t : order) {
      ++*rounds;
      bool valid = false;
      std::vector<int> source(e->n, -1);
      int rc = t.level == FTCKPT_LEVEL_FILES ? validate_files(*e, t, &valid) : validate_memory(*e, t, &valid, &source);
      if (rc != MPI_SUCCESS) return rc;
      if (!valid) continue;
      // The order makes the first valid round the right level: a level-2 round is reached
      // only when someone lacked its own image, a level-3 round only when someone had no copy.
      out->k = t.k;
      out->epoch = e->id;
      out->level = t.level;
      out->slot = slot_of(t.k, e->id);
      out->source = source;
      return MPI_SUCCESS;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace ftckpt
