// Hot spares of a job on several hosts, mpirun's part (issue 17 item 5; the daemons' part:
// daemon/src/job_spares_hub.cpp, message spare_indices in ftmpi_proto/host_messages.h).
//
// A spare waits inside MPI_Init as a PMIx client on a process index the survivors have not
// handed out yet; a REBUILD gives the replacements the next indices in order, so the spare on
// exactly that index takes the rank with one pipe write. The indices are the job's, not one
// host's, so mpirun is the ONE owner of "which spare sits on which index, on which host":
//   - start: spare j sits on index nprocs + j, on the j-th host of the job in host order,
//     round robin (as --map-by node places ranks);
//   - claim: a spawn of indices [base, base+count) takes the spare of each index whose host
//     is alive (its host is chosen for that process); spares below base were skipped: they retire;
//   - top_up: new spares on new indices (the next unused ones) up to K, each on the live host
//     with the fewest spares (ties: the next host round robin), started after a delay so that
//     the repair keeps the cores;
//   - host_lost: the lost host's spares are gone with it (never a rank failure: they are not in
//     the job's process table); their indices, which the next repair asks for, are given to
//     spares on live hosts at once.
// A spare that dies while its host lives is restarted on its index by its own daemon.
// Spoke::spares (the host table's count) is written here only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "spoke.h"

namespace ftmpi::mpirun {

class SpareHub {
public:
    static constexpr std::uint32_t kNoHost = std::numeric_limits<std::uint32_t>::max();
    static constexpr std::uint32_t kTopUpDelayMs = 100;  // as on one host (job_spares.cpp)

    void start(std::vector<Spoke>& spokes, std::uint32_t wanted, std::uint32_t first_index);
    // Index i of the result: the host of the spare that takes process base + i, else kNoHost.
    std::vector<std::uint32_t> claim(std::vector<Spoke>& spokes, std::uint32_t base, std::uint32_t count);
    void top_up(std::vector<Spoke>& spokes, std::uint32_t delay_ms);
    void host_lost(std::vector<Spoke>& spokes, std::size_t lost);

    std::uint32_t wanted() const noexcept { return wanted_; }
    const std::map<std::uint32_t, std::size_t>& table() const noexcept { return spoke_of_; }

private:
    // The live spoke with the fewest spares, ties broken round robin; spokes.size(): none.
    std::size_t pick(const std::vector<Spoke>& spokes);
    void give(std::vector<Spoke>& spokes, const std::map<std::size_t, std::vector<std::uint32_t>>& by_spoke,
              std::uint32_t delay_ms);
    void recount(std::vector<Spoke>& spokes) const;

    std::map<std::uint32_t, std::size_t> spoke_of_;  // spare's process index -> its spoke
    std::uint32_t wanted_ = 0;
    std::uint32_t next_index_ = 0;  // lowest index no process and no spare has had
    std::vector<std::size_t> order_;  // spoke indices in host order (set by start)
    std::size_t cursor_ = 0;          // round robin: a position in order_
};

}  // namespace ftmpi::mpirun
