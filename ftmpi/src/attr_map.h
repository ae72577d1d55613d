// The attributes cached on one object (a communicator, a datatype): keyval -> value and when it
// was set, so that deleting them all runs the callbacks the last set first (MPI-2.2 8.7.1 for
// MPI_COMM_SELF at MPI_Finalize; the same order everywhere). The rules live in attributes.h.
#pragma once

#include <cstdint>
#include <map>

namespace ftmpi {

struct CachedAttribute {
  void* value = nullptr;
  std::uint64_t set_order = 0;
};
using AttributeMap = std::map<int, CachedAttribute>;

}  // namespace ftmpi
