// One daemon of the job as mpirun's monitor sees it: the local daemon over its Unix socket
// (DaemonLink) or a remote one over its authenticated TCP link (RemoteDaemons). A job on one
// host has one spoke; a job on several hosts one per host that runs ranks (hub_messages.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/messages.h"

namespace ftmpi::mpirun {

struct Spoke {
    int fd = -1;                           // owned by whoever made it (DaemonLink, RemoteDaemons)
    proto::FrameDecoder* decoder = nullptr;
    std::uint32_t host = 0;                // index in the job's host list
    std::string host_name;                 // real host name (the daemon's hostname)
    bool open = true;                      // false once its connection closed
    bool remote = false;                   // a TCP link to another host: watched by heartbeats
    std::int32_t daemon_pid = 0;           // on its host (hello_ack / daemon_hello)
    bool lost = false;                     // mpirun declared the host lost (link closed or silent)
    std::uint64_t last_heard_ms = 0;       // wall clock of its last frame (remote links)
    // Every process placed here has exited (host_idle with the count mpirun placed here): the
    // daemon stays for replacements until mpirun releases the job.
    bool idle = false;
    std::optional<proto::JobEnded> ended;  // its job_ended, once received
    // Rank accounting for the exit rules over all hosts and for the fences.
    std::uint32_t ranks_alive = 0;         // placed here and not yet reported exited
    std::uint32_t ranks_ok = 0;            // exited without failing
    std::uint32_t ranks_failed = 0;
    std::uint32_t spares = 0;              // hot spares kept there (written by SpareHub only)
};

}  // namespace ftmpi::mpirun
