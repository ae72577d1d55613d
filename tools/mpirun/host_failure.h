// What mpirun does with a lost host of a job on several hosts (issue 15 item 4): every process
// that host ran is declared failed at once, in ONE host_failed message to every surviving
// daemon (each tells its ranks in ONE sealed PMIx event, so the application repairs once), and
// the user reads one line naming the host, the cause and the ranks. ABORT mode ends the job,
// unless the application left it (FTMPI_Comm_set_mode): then the job goes on as in the others.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/host_messages.h"
#include "ftmpi_proto/modes.h"

namespace ftmpi::mpirun {

// The process indices placed on `host` (host_of_rank: index = process index), sorted.
std::vector<std::uint32_t> ranks_on_host(std::uint32_t host, const std::vector<std::uint32_t>& host_of_rank);

// A job launched in ABORT mode: has its application left it (FTMPI_Comm_set_mode)? `maybe`:
// mpirun heard of no rank that did, but one may just have; the surviving daemons decide.
enum class AbortLeft { no, yes, maybe };

// "ftmpi: host NAME lost (CAUSE): ranks 2, 5 failed; the job continues (SHRINK: ...)\n", or
// "...; ABORT mode: ending the job\n". `silence_ms` is said for a heartbeat timeout; `left`
// matters in ABORT mode only.
std::string format_host_loss(const proto::HostFailed& m, proto::CommMode mode, long long silence_ms,
                             AbortLeft left = AbortLeft::no);

}  // namespace ftmpi::mpirun
