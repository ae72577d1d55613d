// The shared part of communicator construction (comm_child.h).
#include "comm_child.h"

#include <algorithm>

namespace ftmpi {

std::unique_ptr<Comm> child_comm(const Comm& parent, std::uint32_t context, bool inter) {
  auto c = std::make_unique<Comm>();
  c->inter = inter;
  c->context = context;
  c->coll_context = context + 1;
  c->errhandler = parent.errhandler;
  c->comm_mode = parent.comm_mode;
  c->msg_mode = parent.msg_mode;
  c->coll_mode = parent.coll_mode;
  return c;
}

std::vector<int> rank_index(const std::vector<std::uint32_t>& procs, std::size_t nprocs) {
  std::size_t n = nprocs;
  for (std::uint32_t p : procs) n = std::max<std::size_t>(n, std::size_t{p} + 1);
  std::vector<int> out(n, -1);
  for (std::size_t r = 0; r < procs.size(); ++r) out[procs[r]] = static_cast<int>(r);
  return out;
}

}  // namespace ftmpi
