// Reads the thresholds listed in tuning.h from the environment, once.
#include "ftmpi/coll/tuning.h"

#include <cerrno>
#include <cstdlib>

namespace ftmpi::coll {
namespace {

// "65536", "64K", "4M", "1G" (powers of 1024). Anything else leaves *value unchanged, so a
// typo falls back to the documented default instead of disabling an algorithm.
void read_size(const char* name, std::size_t* value) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *text == '-') return;
  unsigned shift = 0;
  switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    default: return;
  }
  if (*end != '\0') return;
  if (shift > 0 && v > (~0ULL >> shift)) return;
  *value = static_cast<std::size_t>(v << shift);
}

Tuning from_environment() {
  Tuning t;
  read_size("FTMPI_COLL_BCAST_LARGE", &t.bcast_large);
  read_size("FTMPI_COLL_BCAST_PIPELINE", &t.bcast_pipeline);
  read_size("FTMPI_COLL_BCAST_SEGMENT", &t.bcast_segment);
  read_size("FTMPI_COLL_ALLREDUCE_LARGE", &t.allreduce_large);
  read_size("FTMPI_COLL_REDUCE_SCATTER_LARGE", &t.reduce_scatter_large);
  read_size("FTMPI_COLL_GATHER_LARGE", &t.gather_large);
  read_size("FTMPI_COLL_SCATTER_LARGE", &t.scatter_large);
  read_size("FTMPI_COLL_ALLGATHER_LARGE", &t.allgather_large);
  read_size("FTMPI_COLL_ALLTOALL_LARGE", &t.alltoall_large);
  if (t.bcast_segment == 0) t.bcast_segment = Tuning{}.bcast_segment;  // 0 would never end
  return t;
}

// Function-local static: initialised once, thread-safely, on first use.
Tuning& current() {
  static Tuning t = from_environment();
  return t;
}

}  // namespace

const Tuning& tuning() { return current(); }

void set_tuning(const Tuning& t) {
  current() = t;
  if (current().bcast_segment == 0) current().bcast_segment = Tuning{}.bcast_segment;
}

}  // namespace ftmpi::coll
