// Reads the thresholds listed in tuning.h from the environment, once.
#include "ftmpi/coll/tuning.h"

#include "ftmpi_knobs/knobs.h"

namespace ftmpi::coll {
namespace {

// Names, defaults and the accepted syntax ("65536", "64K", "4M", "1G") are in the one knob
// table (knobs/include/ftmpi_knobs/knob_list.h); a malformed value keeps the default there.
std::size_t read_size(knobs::Id id) { return static_cast<std::size_t>(knobs::integer(id)); }

Tuning from_environment() {
  using knobs::Id;
  Tuning t;
  t.bcast_large = read_size(Id::coll_bcast_large);
  t.bcast_pipeline = read_size(Id::coll_bcast_pipeline);
  t.bcast_segment = read_size(Id::coll_bcast_segment);
  t.allreduce_large = read_size(Id::coll_allreduce_large);
  t.reduce_scatter_large = read_size(Id::coll_reduce_scatter_large);
  t.gather_large = read_size(Id::coll_gather_large);
  t.scatter_large = read_size(Id::coll_scatter_large);
  t.allgather_large = read_size(Id::coll_allgather_large);
  t.alltoall_large = read_size(Id::coll_alltoall_large);
  t.allgather_direct = read_size(Id::coll_allgather_direct);
  t.allreduce_direct = read_size(Id::coll_allreduce_direct);
  t.barrier_fan = read_size(Id::coll_barrier_fan);
  t.allreduce_fan = read_size(Id::coll_allreduce_fan);
  t.alltoall_fan = read_size(Id::coll_alltoall_fan);
  t.allgather_fan = read_size(Id::coll_allgather_fan);
  t.direct_members = read_size(Id::coll_direct_members);
  if (t.bcast_segment == 0) t.bcast_segment = Tuning{}.bcast_segment;  // 0 would never end
  if (knobs::flag(Id::oversubscribed)) {
    // Ranks share cores: every wait of an algorithm is a hand-over of a core, which costs more
    // than moving the bytes twice. Measured at 8 ranks on 2 cores (README, "Nonblocking
    // collectives"): a 64 KiB bcast as scatter + ring made ~64 context switches per operation,
    // as a binomial tree 8; alltoall of 32 KiB blocks pairwise ~98, all at once ~16.
    // Allgather and a long allreduce all at once (FTMPI_COLL_ALLGATHER_DIRECT/ALLREDUCE_DIRECT)
    // are not switched on here: faster once a job has run ~30 of them (64 KiB at 8 ranks: 344
    // against 444 us, 215 against 269), but 5-15 times slower before that (docs/MEASUREMENTS.md).
    const Tuning crowded = oversubscribed_defaults();
    if (!knobs::get_if_set(Id::coll_bcast_large)) t.bcast_large = crowded.bcast_large;
    if (!knobs::get_if_set(Id::coll_alltoall_large)) t.alltoall_large = crowded.alltoall_large;
  }
  return t;
}

// Function-local static: initialised once, thread-safely, on first use.
Tuning& current() {
  static Tuning t = from_environment();
  return t;
}

}  // namespace

const Tuning& tuning() { return current(); }

Tuning oversubscribed_defaults() {
  Tuning t;
  t.bcast_large = std::size_t{512} << 10;
  t.alltoall_large = std::size_t{256} << 10;
  return t;
}

void set_tuning(const Tuning& t) {
  current() = t;
  if (current().bcast_segment == 0) current().bcast_segment = Tuning{}.bcast_segment;
}

}  // namespace ftmpi::coll
