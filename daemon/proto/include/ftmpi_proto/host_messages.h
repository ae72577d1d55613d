// Messages of host liveness and host failure between mpirun (the hub) and the daemons of a job
// on several hosts (issue 15 item 4). Types 0x0320-0x033f (the runtime's hub messages are
// 0x0300-0x031f, hub_messages.h).
//
//   mpirun <-> daemon  heartbeat            every period on a link that sent nothing else
//                                           (heartbeat.h: both ends watch the silence)
//   mpirun -> daemons  host_failed          a host was lost (its link closed or fell silent):
//                                           every rank it ran, in ONE message to every
//                                           surviving daemon, which tells its local ranks in
//                                           ONE sealed PMIx event (PmixHost::notify_procs_aborted)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

inline constexpr std::uint16_t kHeartbeatType = 0x0320;
inline constexpr std::uint16_t kHostFailedType = 0x0321;

struct Heartbeat {
    static constexpr std::uint16_t kType = kHeartbeatType;
    std::uint64_t seq = 0;  // counts the sender's heartbeats on this link (for logs)
};

enum class HostLoss : std::uint8_t {
    link_closed,        // its connection to mpirun closed or failed (a killed host: fast)
    heartbeat_timeout,  // nothing heard for longer than the heartbeat timeout
    count_
};
const char* to_string(HostLoss c) noexcept;

struct HostFailed {
    static constexpr std::uint16_t kType = kHostFailedType;
    std::uint32_t host_index = 0;       // in the job's host list (JobSlice::host_names)
    std::string hostname;
    HostLoss cause = HostLoss::link_closed;
    std::vector<std::uint32_t> ranks;   // process indices (PMIx ranks) that ran there, sorted
};

std::vector<std::uint8_t> encode(const Heartbeat& m);
std::vector<std::uint8_t> encode(const HostFailed& m);
// Fill `out` only on ok; wrong_type for another message; malformed for a bad field.
ProtoStatus decode(const Frame& f, Heartbeat& out);
ProtoStatus decode(const Frame& f, HostFailed& out);

}  // namespace ftmpi::proto
