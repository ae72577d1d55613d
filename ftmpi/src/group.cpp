#include "group.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace ftmpi {
namespace {

int rank_of(const std::vector<std::uint32_t>& procs, std::uint32_t proc) {
  auto it = std::find(procs.begin(), procs.end(), proc);
  return it == procs.end() ? MPI_UNDEFINED : static_cast<int>(it - procs.begin());
}

std::unordered_set<std::uint32_t> members(const Group& g) {
  return std::unordered_set<std::uint32_t>(g.procs.begin(), g.procs.end());
}

// Marks ranks as they are named, so that duplicates and out-of-range ranks are caught with the
// offending index in the message.
Err check_rank_list(const Group& g, int n, const int* ranks, std::vector<char>* named) {
  if (n < 0) return fail(Err::arg, "n = %d is negative", n);
  if (n > g.size()) return fail(Err::arg, "n = %d exceeds the group size %d", n, g.size());
  if (n > 0 && ranks == nullptr) return fail(Err::arg, "ranks array is NULL");
  named->assign(g.procs.size(), 0);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= g.size()) {
      return fail(Err::rank, "ranks[%d] = %d outside 0..%d of the group", i, r, g.size() - 1);
    }
    if ((*named)[static_cast<std::size_t>(r)]) {
      return fail(Err::rank, "ranks[%d] = %d appears twice", i, r);
    }
    (*named)[static_cast<std::size_t>(r)] = 1;
  }
  return Err::ok;
}

}  // namespace

GroupTable::GroupTable() : groups_(2) {
  groups_[MPI_GROUP_EMPTY] = std::make_unique<Group>();
  groups_[MPI_GROUP_EMPTY]->predefined = true;
}

Err GroupTable::lookup(MPI_Group handle, const Group** out) const {
  if (handle <= 0 || static_cast<std::size_t>(handle) >= groups_.size() ||
      !groups_[static_cast<std::size_t>(handle)]) {
    if (handle == MPI_GROUP_NULL) return fail(Err::group, "group is MPI_GROUP_NULL");
    return fail(Err::group, "group handle %d is not a valid group", handle);
  }
  *out = groups_[static_cast<std::size_t>(handle)].get();
  return Err::ok;
}

MPI_Group GroupTable::create(std::vector<std::uint32_t> procs, std::uint32_t my_proc) {
  if (procs.empty()) return MPI_GROUP_EMPTY;
  auto g = std::make_unique<Group>();
  g->my_rank = rank_of(procs, my_proc);
  g->procs = std::move(procs);
  g->my_proc = my_proc;
  g->refs = 1;
  MPI_Group h;
  if (!free_slots_.empty()) {
    h = free_slots_.back();
    free_slots_.pop_back();
  } else {
    h = static_cast<MPI_Group>(groups_.size());
    groups_.emplace_back();
  }
  groups_[static_cast<std::size_t>(h)] = std::move(g);
  return h;
}

void GroupTable::retain(MPI_Group handle) {
  const Group* g = nullptr;
  if (lookup(handle, &g) == Err::ok && !g->predefined) {
    ++groups_[static_cast<std::size_t>(handle)]->refs;
  }
}

Err GroupTable::release(MPI_Group handle) {
  const Group* g = nullptr;
  if (Err e = lookup(handle, &g); e != Err::ok) return e;
  if (g->predefined) return Err::ok;
  auto& slot = groups_[static_cast<std::size_t>(handle)];
  if (--slot->refs > 0) return Err::ok;
  slot.reset();
  free_slots_.push_back(handle);
  return Err::ok;
}

std::size_t GroupTable::live() const {
  std::size_t n = 0;
  for (const auto& g : groups_) n += g && !g->predefined ? 1 : 0;
  return n;
}

GroupTable& groups() {
  static GroupTable table;
  return table;
}

MPI_Group make_group(const std::vector<std::uint32_t>& procs, std::uint32_t my_proc) {
  return groups().create(procs, my_proc);
}

std::vector<std::uint32_t> group_union(const Group& a, const Group& b) {
  std::vector<std::uint32_t> out = a.procs;
  auto in_a = members(a);
  for (std::uint32_t p : b.procs) {
    if (in_a.insert(p).second) out.push_back(p);
  }
  return out;
}

std::vector<std::uint32_t> group_intersection(const Group& a, const Group& b) {
  std::vector<std::uint32_t> out;
  const auto in_b = members(b);
  for (std::uint32_t p : a.procs) {
    if (in_b.count(p) != 0) out.push_back(p);
  }
  return out;
}

std::vector<std::uint32_t> group_difference(const Group& a, const Group& b) {
  std::vector<std::uint32_t> out;
  const auto in_b = members(b);
  for (std::uint32_t p : a.procs) {
    if (in_b.count(p) == 0) out.push_back(p);
  }
  return out;
}

int group_compare(const Group& a, const Group& b) {
  if (a.procs == b.procs) return MPI_IDENT;
  if (a.procs.size() != b.procs.size()) return MPI_UNEQUAL;
  std::vector<std::uint32_t> x = a.procs, y = b.procs;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
}

Err group_incl(const Group& g, int n, const int* ranks, std::vector<std::uint32_t>* out) {
  std::vector<char> named;
  if (Err e = check_rank_list(g, n, ranks, &named); e != Err::ok) return e;
  out->clear();
  for (int i = 0; i < n; ++i) out->push_back(g.procs[static_cast<std::size_t>(ranks[i])]);
  return Err::ok;
}

Err group_excl(const Group& g, int n, const int* ranks, std::vector<std::uint32_t>* out) {
  std::vector<char> named;
  if (Err e = check_rank_list(g, n, ranks, &named); e != Err::ok) return e;
  out->clear();
  for (std::size_t r = 0; r < g.procs.size(); ++r) {
    if (!named[r]) out->push_back(g.procs[r]);
  }
  return Err::ok;
}

Err group_range_ranks(const Group& g, int n, const int (*ranges)[3], std::vector<int>* out) {
  if (n < 0) return fail(Err::arg, "n = %d is negative", n);
  if (n > 0 && ranges == nullptr) return fail(Err::arg, "ranges array is NULL");
  out->clear();
  std::vector<char> named(g.procs.size(), 0);
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) return fail(Err::arg, "ranges[%d] has stride 0", i);
    if (first < 0 || first >= g.size() || last < 0 || last >= g.size()) {
      return fail(Err::rank, "ranges[%d] = (%d, %d, %d) leaves 0..%d of the group", i, first,
                  last, stride, g.size() - 1);
    }
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
      return fail(Err::arg, "ranges[%d] = (%d, %d, %d) runs away from its last rank", i, first,
                  last, stride);
    }
    // Step in long long: first + stride may pass INT_MAX before the loop test stops it.
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (named[static_cast<std::size_t>(r)]) {
        return fail(Err::rank, "rank %lld is named twice (ranges[%d])", r, i);
      }
      named[static_cast<std::size_t>(r)] = 1;
      out->push_back(static_cast<int>(r));
    }
  }
  return Err::ok;
}

Err group_translate(const Group& a, int n, const int* ranks, const Group& b, int* out) {
  if (n < 0) return fail(Err::arg, "n = %d is negative", n);
  if (n > 0 && (ranks == nullptr || out == nullptr)) return fail(Err::arg, "rank array is NULL");
  std::unordered_map<std::uint32_t, int> rank_in_b;
  for (std::size_t r = 0; r < b.procs.size(); ++r) rank_in_b.emplace(b.procs[r], static_cast<int>(r));
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r == MPI_PROC_NULL) continue;
    if (r < 0 || r >= a.size()) {
      return fail(Err::rank, "ranks1[%d] = %d outside 0..%d of group1", i, r, a.size() - 1);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (ranks[i] == MPI_PROC_NULL) {
      out[i] = MPI_PROC_NULL;
      continue;
    }
    auto it = rank_in_b.find(a.procs[static_cast<std::size_t>(ranks[i])]);
    out[i] = it == rank_in_b.end() ? MPI_UNDEFINED : it->second;
  }
  return Err::ok;
}

}  // namespace ftmpi
