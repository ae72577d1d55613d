#include "group.h"

namespace ftmpi::coll::detail {

int Group::sparse_vrank_of(int comm_rank) const {
  auto it = std::lower_bound(members_->begin(), members_->end(), comm_rank);
  if (it == members_->end() || *it != comm_rank) return -1;
  return static_cast<int>(it - members_->begin());
}

}  // namespace ftmpi::coll::detail
