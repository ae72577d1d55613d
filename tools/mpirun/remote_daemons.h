// The daemons of a job on other hosts (issue 15): mpirun starts one `ftmpid --remote` per
// remote host through the launcher (ssh, srun, --launcher-exec), writes the job's secret into
// the launcher's standard input, and accepts the TCP links the daemons open back to it. Every
// link proves the secret (proto::authenticate) before a frame is read; the listener closes as
// soon as every expected daemon is in, so nothing can join later.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemon_link.h"
#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/job_auth.h"

namespace ftmpi::mpirun {

// Builds the launcher's argv that runs `words` (joined by spaces, run by /bin/sh) on `host`.
using LauncherArgv = std::function<std::vector<std::string>(const std::string& host,
                                                            const std::vector<std::string>& words)>;

struct RemoteHost {
    std::uint32_t host_index = 0;  // index in the job's host list (the daemon's --host-index)
    std::string name;              // as the user named it (what the launcher is given)
};

struct RemoteLink {
    std::uint32_t host_index = 0;
    int fd = -1;                   // blocking; authenticated
    std::string hostname;          // the daemon's real host name (DaemonHello)
    std::int32_t pid = 0;          // the daemon's pid on its host (DaemonHello)
    std::string net_addr;          // the daemon's local address of this link
    std::unique_ptr<proto::FrameDecoder> decoder;
};

struct RemoteOptions {
    std::string listen_addr;       // IPv4 that the daemons can reach
    int connect_timeout_ms = 30000;
    int heartbeat_period_ms = 0;   // passed on when set (host-failure detection)
    int heartbeat_timeout_ms = 0;
    int interrupt_fd = -1;         // readable (mpirun's signalfd): give up at once
};

class RemoteDaemons {
public:
    RemoteDaemons() = default;
    ~RemoteDaemons();
    RemoteDaemons(const RemoteDaemons&) = delete;
    RemoteDaemons& operator=(const RemoteDaemons&) = delete;

    // Opens the listener and starts every daemon through the launcher; does not wait.
    LinkStatus launch(const std::vector<RemoteHost>& hosts, const LauncherArgv& launcher, const RemoteOptions& opts,
                      std::string& why);
    // Waits until every daemon is connected and authenticated, a launcher exits first, the
    // timeout passes or interrupt_fd becomes readable (then `why` says so).
    LinkStatus wait_connected(std::string& why);

    std::vector<RemoteLink>& links() noexcept { return links_; }

    // Closes the links (each daemon then ends its part and exits) and reaps the launchers,
    // ending those that do not exit within a few seconds.
    void close_and_reap();

private:
    struct Launcher {
        std::uint32_t host_index = 0;
        std::string name;
        pid_t pid = -1;
        bool connected = false;
    };
    LinkStatus spawn_launcher(Launcher& l, const std::vector<std::string>& argv, const std::string& secret_line,
                              std::string& why);
    // One pending connection: handshake, then the daemon's hello. False: dropped (logged).
    bool admit(int fd, const proto::JobSecret& secret, std::string& why);

    int listen_fd_ = -1;
    RemoteOptions opts_;
    proto::JobSecret secret_;
    std::vector<Launcher> launchers_;
    std::vector<RemoteLink> links_;
};

}  // namespace ftmpi::mpirun
