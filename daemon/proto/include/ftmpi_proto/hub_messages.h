// Messages of a job on several hosts (issue 15): mpirun is the hub, every daemon of the job is
// a spoke (the local one over its Unix control socket, remote ones over an authenticated TCP
// link they opened back to mpirun). There are no daemon-to-daemon connections.
//
// Conversation (after proto::authenticate on a TCP link; after hello on the Unix socket):
//   remote daemon -> daemon_hello(host index)          (TCP links only: which host this is)
//   mpirun -> job_slice, launch_job                     (every daemon: the same job, its slice)
//   daemon -> output_chunk*, rank_exited*, abort_requested?, job_started, job_ended (as on one host)
//   daemon -> fence_contribution (PMIx fence upcall)    mpirun -> fence_result to every daemon
//   daemon -> procs_failed (a local rank failed, job goes on)  mpirun -> procs_failed to the others
//   mpirun -> stdin_chunk (rank 0's daemon only), kill_job (every daemon)
//   daemon -> host_idle (every process it started has exited; it stays for replacements)
//   mpirun -> job_release (every host is idle: the job is over, end your part)
// Types 0x0300-0x031f are the runtime's (0x0320-0x033f: heartbeats and host failure).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

inline constexpr std::uint16_t kDaemonHelloType = 0x0300;
inline constexpr std::uint16_t kJobSliceType = 0x0302;
inline constexpr std::uint16_t kFenceContributionType = 0x0303;
inline constexpr std::uint16_t kFenceResultType = 0x0304;
inline constexpr std::uint16_t kProcsFailedType = 0x0305;
inline constexpr std::uint16_t kStdinChunkType = 0x0306;
inline constexpr std::uint16_t kHostIdleType = 0x0307;
inline constexpr std::uint16_t kJobReleaseType = 0x0308;

// First frame of a remote daemon after the handshake.
struct DaemonHello {
    static constexpr std::uint16_t kType = kDaemonHelloType;
    std::uint32_t host_index = 0;  // from its --host-index
    std::string hostname;
    std::int32_t pid = 0;
    std::string net_addr;          // local IPv4 address of its link to mpirun
};

// What a daemon needs beyond launch_job to run its part of a job on several hosts. Sent just
// before launch_job on the same connection; a launch without it is a one-host job.
struct JobSlice {
    static constexpr std::uint16_t kType = kJobSliceType;
    std::string jobid;                       // FTMPI_JOBID, the same on every host
    std::string nspace;                      // PMIx namespace = jobid + "-" + 32 secret hex digits
    std::string event_seal;                  // 64 hex digits (FTMPI_EVENT_SEAL)
    std::uint32_t host_index = 0;            // this daemon's host in `host_names`
    std::vector<std::string> host_names;     // real host names (hostname(1) of each host)
    std::vector<std::uint32_t> host_of_rank; // index = rank; size = nprocs
    std::string net_addr;                    // FTMPI_NET_ADDR for this host's ranks
};

// A daemon's local part of a PMIx fence with data collection. `signature` names the
// participants ("*" = the whole job, else the sorted ranks); `seq` counts this daemon's fences
// with that signature, so the n-th contribution of every daemon belongs to one fence.
struct FenceContribution {
    static constexpr std::uint16_t kType = kFenceContributionType;
    std::string signature;
    std::uint32_t seq = 0;
    std::string blob;  // PMIx's packed local data, opaque
};

// mpirun's answer once every daemon with a live participant contributed: the concatenation of
// their blobs (PMIx unpacks one envelope after another). `partial`: a participant died meanwhile.
struct FenceResult {
    static constexpr std::uint16_t kType = kFenceResultType;
    std::string signature;
    std::uint32_t seq = 0;
    bool partial = false;
    std::string data;
};

// Process indices (PMIx ranks) that failed while the job goes on. Daemon -> mpirun for its own
// ranks; mpirun -> every other daemon, which tells its local ranks in one sealed PMIx event.
struct ProcsFailed {
    static constexpr std::uint16_t kType = kProcsFailedType;
    std::vector<std::uint32_t> ranks;
};

// mpirun's standard input for rank 0; eof closes rank 0's stdin.
struct StdinChunk {
    static constexpr std::uint16_t kType = kStdinChunkType;
    std::string bytes;
    bool eof = false;
};

// A daemon of a job on several hosts does not end its part when its processes have all exited:
// it still lives and may take REBUILD replacements (least loaded host first). It tells mpirun
// it is idle, with how many processes of the job it has been given in all (its first ones and
// replacements), so that mpirun can tell a current notice from one that crossed a placement.
struct HostIdle {
    static constexpr std::uint16_t kType = kHostIdleType;
    std::uint32_t processes = 0;
};

// mpirun -> every daemon, once every daemon is idle (or gone) and no placement is pending: the
// job is over; each daemon ends its part as on one host (job_ended, then it closes).
struct JobRelease {
    static constexpr std::uint16_t kType = kJobReleaseType;
};

std::vector<std::uint8_t> encode(const DaemonHello& m);
std::vector<std::uint8_t> encode(const JobSlice& m);
std::vector<std::uint8_t> encode(const FenceContribution& m);
std::vector<std::uint8_t> encode(const FenceResult& m);
std::vector<std::uint8_t> encode(const ProcsFailed& m);
std::vector<std::uint8_t> encode(const StdinChunk& m);
std::vector<std::uint8_t> encode(const HostIdle& m);
std::vector<std::uint8_t> encode(const JobRelease& m);

// Fill `out` only on ok; wrong_type for another message; malformed for inconsistent fields
// (a slice whose host index or rank placement names no host).
ProtoStatus decode(const Frame& f, DaemonHello& out);
ProtoStatus decode(const Frame& f, JobSlice& out);
ProtoStatus decode(const Frame& f, FenceContribution& out);
ProtoStatus decode(const Frame& f, FenceResult& out);
ProtoStatus decode(const Frame& f, ProcsFailed& out);
ProtoStatus decode(const Frame& f, StdinChunk& out);
ProtoStatus decode(const Frame& f, HostIdle& out);
ProtoStatus decode(const Frame& f, JobRelease& out);

}  // namespace ftmpi::proto
