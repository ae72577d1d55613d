// Algorithm selection thresholds. Every knob of the collectives layer is listed here and in
// collectives/README.md. Environment variables are read once, on first use; values are byte
// counts and accept a K, M or G suffix (powers of 1024). A malformed value keeps the default.
// The defaults below must equal the knob table's (knobs/include/ftmpi_knobs/knob_list.h;
// tests/unit/knobs checks it).
//
//   FTMPI_COLL_BCAST_LARGE           message bytes at or above which bcast uses scatter +
//                                    ring allgather instead of a binomial tree  (12288)
//   FTMPI_COLL_BCAST_PIPELINE        message bytes at or above which bcast uses a segmented,
//                                    pipelined chain                            (4M)
//   FTMPI_COLL_BCAST_SEGMENT         segment size of the pipelined chain        (128K)
//   FTMPI_COLL_ALLREDUCE_LARGE       message bytes at or above which a commutative allreduce
//                                    uses Rabenseifner (reduce-scatter + allgather) instead
//                                    of recursive doubling                     (2048)
//   FTMPI_COLL_ALLREDUCE_DIRECT      message bytes up to which such a long allreduce (from 3
//                                    members) posts each half at once: every member sends
//                                    block v to member v, which combines and sends it to all
//                                    (0: never)                                 (0)
//   FTMPI_COLL_REDUCE_SCATTER_LARGE  total bytes at or above which a commutative
//                                    reduce_scatter uses a ring instead of reduce + scatterv
//                                                                               (65536)
//   FTMPI_COLL_GATHER_LARGE          bytes per process at or above which gather is linear
//                                    instead of a binomial tree                 (16384)
//   FTMPI_COLL_SCATTER_LARGE         same for scatter                           (16384)
//   FTMPI_COLL_ALLGATHER_LARGE       total gathered bytes at or above which allgather uses a
//                                    ring instead of Bruck's algorithm          (65536)
//   FTMPI_COLL_BARRIER_FAN           members up to which barrier is a fan-in/fan-out through
//                                    the first member instead of dissemination; from 3
//                                    members                                    (8)
//   FTMPI_COLL_ALLREDUCE_FAN         members up to which a short allreduce (below
//                                    FTMPI_COLL_ALLREDUCE_LARGE) is a fan-in/fan-out through
//                                    the first member instead of recursive doubling; from
//                                    3 members                                  (8)
//   FTMPI_COLL_ALLTOALL_FAN          members up to which an alltoall of blocks up to 256 bytes
//                                    goes through the first member (fan-in/fan-out) instead
//                                    of every message posted at once; from 3 members  (8)
//   FTMPI_COLL_ALLGATHER_FAN         members up to which an allgather of blocks up to 256 bytes
//                                    goes through the first member (fan-in/fan-out) instead
//                                    of Bruck's algorithm; from 3 members       (8)
//   FTMPI_COLL_DIRECT_MEMBERS        members up to which barrier, a short allreduce, and an
//                                    allgather or alltoall of blocks up to 256 bytes message
//                                    every member directly, all at once, instead of the fans
//                                    above (n - 1 waits per operation among all members against
//                                    the fan's n: the last member to arrive finds everything
//                                    there; allreduce and allgather from 3 members) (4)
//   FTMPI_COLL_ALLGATHER_DIRECT      block bytes up to which an allgather of blocks over
//                                    256 bytes sends its block to every member at once and
//                                    waits once, instead of Bruck's algorithm or the ring,
//                                    while its n(n-1) blocks add up to 4 MiB at most
//                                    (0: never)                                 (0)
//   FTMPI_COLL_ALLTOALL_LARGE        bytes per peer at or above which alltoall(v) uses
//                                    pairwise exchange instead of posting everything at once
//                                                                               (32768)
//
//   FTMPI_OVERSUBSCRIBED             1 (mpirun sets it): ranks share cores, so bcast is a
//                                    binomial tree up to 512K and alltoall posts everything
//                                    at once up to 256K per peer unless the two variables
//                                    above are set: fewer waits, each a hand-over of a core
//
// The defaults start from MPICH's; tests/bench measures them on the target machine.
// Every participant of a collective must see the same values (the launcher forwards the
// environment), since the algorithm is chosen locally from the message size.
#pragma once

#include <cstddef>

namespace ftmpi::coll {

struct Tuning {
  std::size_t bcast_large = 12288;
  std::size_t bcast_pipeline = std::size_t{4} << 20;
  std::size_t bcast_segment = std::size_t{128} << 10;
  std::size_t allreduce_large = 2048;
  std::size_t allreduce_direct = 0;  // off unless ranks share cores
  std::size_t reduce_scatter_large = 65536;
  std::size_t gather_large = 16384;
  std::size_t scatter_large = 16384;
  std::size_t allgather_large = 65536;
  std::size_t alltoall_large = 32768;
  std::size_t allgather_direct = 0;  // off unless ranks share cores
  std::size_t barrier_fan = 8;    // a member count, not bytes
  std::size_t allreduce_fan = 8;  // a member count, not bytes
  std::size_t alltoall_fan = 8;   // a member count, not bytes
  std::size_t allgather_fan = 8;  // a member count, not bytes
  std::size_t direct_members = 4;  // a member count, not bytes
};

// The thresholds in force: the environment, read on the first call. With FTMPI_OVERSUBSCRIBED=1
// (mpirun sets it when a host runs more ranks than it has cores) bcast_large and alltoall_large
// default to oversubscribed_defaults()'s, unless their own variables are set.
const Tuning& tuning();
// The defaults of a job whose ranks share cores.
Tuning oversubscribed_defaults();

// Replaces the thresholds (tests, benchmarks). Not synchronised with running collectives:
// call it only while no collective is in progress.
void set_tuning(const Tuning& t);

}  // namespace ftmpi::coll
