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
//   daemon -> mpirun   failures_trapped     once per job: launched in ABORT mode, a rank here
//                                           left ABORT mode (FTMPI_Comm_set_mode; its
//                                           `traps_failures` report, state.h), so a host loss
//                                           is declared like in the other modes, not fatal
//
// REBUILD across hosts: a process asks its daemon for replacements (PMIx spawn); the daemon
// does not start them itself but asks mpirun, which knows every host's load:
//   daemon -> mpirun   spawn_request        (base, count, the FTMPI_ entries of their environment)
//   mpirun -> daemons  spawn_place          every open daemon learns where each new process runs
//                                           (least loaded surviving host first); the chosen ones
//                                           start theirs, the others record them as remote
//   daemon -> mpirun   spawn_started        a chosen daemon's result
//   mpirun -> daemon   spawn_done           to the requester's daemon once all answered: the
//                                           PMIx spawn completes
// A replacement publishes its address without a fence, so a process on another host gets it by
// PMIx direct modex, which the daemons forward through mpirun:
//   daemon -> mpirun -> owner's daemon   modex_request (rank)
//   owner's daemon -> mpirun -> daemon   modex_reply   (PMIx's packed data of that rank)
// mpirun fills in `origin_host` when it relays, so each answer finds its way back.
//
// Hot spares across hosts (issue 17 item 5): mpirun alone decides which process index each
// spare sits on and on which host (tools/mpirun/spare_hub.h); a daemon starts and owns the
// spares it is told to keep and hands one its rank when a spawn_place puts that index on it:
//   mpirun -> daemon   spare_indices        start a spare on each of these process indices,
//                                           after delay_ms (a top-up waits for the repair)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

inline constexpr std::uint16_t kHeartbeatType = 0x0320;
inline constexpr std::uint16_t kHostFailedType = 0x0321;
inline constexpr std::uint16_t kSpawnRequestType = 0x0322;
inline constexpr std::uint16_t kSpawnPlaceType = 0x0323;
inline constexpr std::uint16_t kSpawnStartedType = 0x0324;
inline constexpr std::uint16_t kSpawnDoneType = 0x0325;
inline constexpr std::uint16_t kModexRequestType = 0x0326;
inline constexpr std::uint16_t kModexReplyType = 0x0327;
inline constexpr std::uint16_t kSpareIndicesType = 0x0328;
inline constexpr std::uint16_t kFailuresTrappedType = 0x0329;

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

struct SpawnRequest {
    static constexpr std::uint16_t kType = kSpawnRequestType;
    std::uint32_t origin_host = 0;  // set by mpirun: the requester's host
    std::uint32_t request = 0;      // the requester daemon's number for it
    std::uint32_t requester = 0;    // process index that asked
    std::uint32_t base = 0;         // first new process index
    std::uint32_t count = 0;
    std::vector<std::string> env;   // FTMPI_* entries for the new processes
};

struct SpawnPlace {
    static constexpr std::uint16_t kType = kSpawnPlaceType;
    std::uint32_t origin_host = 0;
    std::uint32_t request = 0;
    std::uint32_t base = 0;
    std::vector<std::uint32_t> host_of_new;  // index i: the host of process base + i
    std::vector<std::string> env;
};

struct SpawnStarted {
    static constexpr std::uint16_t kType = kSpawnStartedType;
    std::uint32_t origin_host = 0;
    std::uint32_t request = 0;
    bool ok = false;
    std::string message;  // why not
};

struct SpawnDone {
    static constexpr std::uint16_t kType = kSpawnDoneType;
    std::uint32_t request = 0;
    bool ok = false;
};

struct ModexRequest {
    static constexpr std::uint16_t kType = kModexRequestType;
    std::uint32_t origin_host = 0;
    std::uint32_t request = 0;
    std::uint32_t rank = 0;  // whose data
};

inline constexpr std::int32_t kModexNotFound = -46;  // PMIX_ERR_NOT_FOUND (mpirun has no pmix.h)

struct ModexReply {
    static constexpr std::uint16_t kType = kModexReplyType;
    std::uint32_t origin_host = 0;
    std::uint32_t request = 0;
    std::int32_t status = 0;  // a pmix_status_t
    std::string data;         // PMIx's packed data, opaque
};

struct SpareIndices {
    static constexpr std::uint16_t kType = kSpareIndicesType;
    std::uint32_t delay_ms = 0;             // start them this much later (at most 60 s)
    std::vector<std::uint32_t> indices;     // process indices, sorted, each named once
};

// A job launched in ABORT mode whose application switched a communicator out of it.
struct FailuresTrapped {
    static constexpr std::uint16_t kType = kFailuresTrappedType;
    std::uint32_t rank = 0;  // the process that switched first on that host (for the log)
};

std::vector<std::uint8_t> encode(const Heartbeat& m);
std::vector<std::uint8_t> encode(const HostFailed& m);
std::vector<std::uint8_t> encode(const SpawnRequest& m);
std::vector<std::uint8_t> encode(const SpawnPlace& m);
std::vector<std::uint8_t> encode(const SpawnStarted& m);
std::vector<std::uint8_t> encode(const SpawnDone& m);
std::vector<std::uint8_t> encode(const ModexRequest& m);
std::vector<std::uint8_t> encode(const ModexReply& m);
std::vector<std::uint8_t> encode(const SpareIndices& m);
std::vector<std::uint8_t> encode(const FailuresTrapped& m);
// Fill `out` only on ok; wrong_type for another message; malformed for a bad field.
ProtoStatus decode(const Frame& f, Heartbeat& out);
ProtoStatus decode(const Frame& f, HostFailed& out);
ProtoStatus decode(const Frame& f, SpawnRequest& out);
ProtoStatus decode(const Frame& f, SpawnPlace& out);
ProtoStatus decode(const Frame& f, SpawnStarted& out);
ProtoStatus decode(const Frame& f, SpawnDone& out);
ProtoStatus decode(const Frame& f, ModexRequest& out);
ProtoStatus decode(const Frame& f, ModexReply& out);
ProtoStatus decode(const Frame& f, SpareIndices& out);
ProtoStatus decode(const Frame& f, FailuresTrapped& out);

}  // namespace ftmpi::proto
