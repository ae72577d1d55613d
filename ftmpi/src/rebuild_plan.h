// What every survivor of a REBUILD repair computes alike and each replacement process receives
// in its environment (FTMPI_REBUILD_PLAN): who the new processes are, the repaired world and the
// communicator state they join (see rebuild.h for the repair's steps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm.h"

namespace ftmpi {

struct RebuildPlan {
  std::uint32_t base = 0;    // first new process index; also names the hand-shake
  std::uint32_t count = 0;   // new processes
  std::uint32_t leader = 0;  // process index of the survivor that asked for them
  std::vector<std::uint32_t> world;  // MPI_COMM_WORLD rank -> process index, after the rebuild
  std::uint32_t context = 0;
  std::uint32_t coll_context = 1;
  std::int32_t comm_mode = 0, msg_mode = 0, coll_mode = 0;
  std::uint32_t sequence = 0;        // next agreement number on `context`
  CommTable::ContextMask used;       // context ids in use by the survivors

  // Text (it travels in an environment variable): lowercase hex of the plan's bytes in the
  // protocol library's codec (proto::WireWriter).
  std::string encode() const;
  // false, `out` untouched, for anything encode() did not produce: odd length, a non-hex
  // character, a short or long plan, a world larger than match::kMaxProcesses.
  static bool decode(const std::string& text, RebuildPlan* out);
  bool is_new(std::uint32_t proc) const { return proc >= base && proc < base + count; }
};

}  // namespace ftmpi
