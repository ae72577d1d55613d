#include "group.h"

namespace ftmpi::coll::detail {

Status Group::make(const View& view, Group* out) {
  const std::vector<int>& m = view.members;
  if (m.empty() || view.comm_size <= 0 || m.back() >= view.comm_size || m.front() < 0) {
    return Status::invalid;
  }
  Group g;
  g.members_ = &m;
  g.size_ = static_cast<int>(m.size());
  // Members are ascending and distinct, so n of them ending at n-1 means exactly 0..n-1.
  g.dense_ = g.size_ == view.comm_size && m.back() == g.size_ - 1;
  g.me_ = g.vrank_of(view.my_rank);
  if (g.me_ < 0) return Status::invalid;
  *out = g;
  return Status::ok;
}

int Group::vrank_of(int comm_rank) const {
  if (dense_) return comm_rank >= 0 && comm_rank < size_ ? comm_rank : -1;
  auto it = std::lower_bound(members_->begin(), members_->end(), comm_rank);
  if (it == members_->end() || *it != comm_rank) return -1;
  return static_cast<int>(it - members_->begin());
}

}  // namespace ftmpi::coll::detail
