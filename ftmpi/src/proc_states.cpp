#include "proc_states.h"

#include <mpi.h>

#include <algorithm>

namespace ftmpi {

void MembersView::build(const ProcStates& states, int my_rank, int size, coll::View* out) {
  out->my_rank = my_rank;
  out->comm_size = size;
  std::vector<int>& m = out->members;
  const std::size_t n = std::min(states.size(), static_cast<std::size_t>(size > 0 ? size : 0));
  m.clear();
  for (std::size_t r = 0; r < n; ++r) {
    if (states[r] != FTMPI_PROC_FAILED) m.push_back(static_cast<int>(r));
  }
}

}  // namespace ftmpi
