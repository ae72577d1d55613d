// mpirun's connection to ftmpid: the shared daemon if one answers on the well-known socket,
// otherwise a private daemon started from beside mpirun's own executable.
#pragma once

#include <sys/types.h>

#include <string>

#include "ftmpi_proto/frame.h"

namespace ftmpi::mpirun {

enum class [[nodiscard]] LinkStatus { ok, failed };

class DaemonLink {
public:
    DaemonLink() = default;
    ~DaemonLink();
    DaemonLink(const DaemonLink&) = delete;
    DaemonLink& operator=(const DaemonLink&) = delete;

    LinkStatus connect_or_start(std::string& why);

    int fd() const noexcept { return fd_; }
    proto::FrameDecoder& decoder() noexcept { return decoder_; }
    bool is_private() const noexcept { return private_pid_ > 0; }
    int daemon_pid() const noexcept { return daemon_pid_; }  // from its hello_ack

    // Closes the connection and, for a private daemon, waits briefly for it to exit so that
    // nothing of the job outlives mpirun.
    void close_and_reap();

private:
    LinkStatus try_connect(const std::string& socket_path, std::string& why);
    LinkStatus start_private(std::string& why);

    int fd_ = -1;
    int daemon_pid_ = 0;
    pid_t private_pid_ = -1;
    int watch_fd_ = -1;        // write end of the private daemon's --watch-fd pipe
    std::string private_dir_;  // removed after the private daemon has exited
    proto::FrameDecoder decoder_;
};

}  // namespace ftmpi::mpirun
