// mpirun's main loop once connected: launch, relay output, report failures, enforce --timeout,
// turn Ctrl-C/SIGTERM into a kill request, and compute the exit code.
#pragma once

#include "daemon_link.h"
#include "ftmpi_proto/messages.h"
#include "output_relay.h"

namespace ftmpi::mpirun {

class JobMonitor {
public:
    // Blocks SIGINT/SIGTERM/SIGHUP at once (into a signalfd), so that a Ctrl-C while the
    // daemon is still being reached is not lost but kills the job once it exists.
    JobMonitor(DaemonLink& link, double timeout_s);
    ~JobMonitor();
    JobMonitor(const JobMonitor&) = delete;
    JobMonitor& operator=(const JobMonitor&) = delete;

    // Returns mpirun's exit code. Never waits forever: a silent or dead daemon is reported.
    int run(const proto::LaunchJob& launch);

    // Exit code used when --timeout expires (like timeout(1)).
    static constexpr int kTimeoutExitCode = 124;

private:
    // Returns true when the job is over and `exit_code` is final.
    bool handle_frame(const proto::Frame& f, int& exit_code);
    void request_kill(proto::KillReason reason, int exit_code);

    DaemonLink& link_;
    double timeout_s_;
    proto::CommMode comm_mode_ = proto::CommMode::abort;
    OutputRelay* relay_ = nullptr;
    bool killing_ = false;
    int forced_exit_ = -1;  // set when mpirun itself ended the job (timeout, signal)
    int sigfd_ = -1;
};

}  // namespace ftmpi::mpirun
