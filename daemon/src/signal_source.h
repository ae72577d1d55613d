// SIGCHLD/SIGTERM/SIGINT/SIGHUP as readable records on a signalfd, so that signals are handled
// as ordinary events in the loop and nothing runs inside a signal handler.
#pragma once

#include <csignal>
#include <vector>

namespace ftmpi::daemon {

class SignalSource {
public:
    // Blocks the signals in the calling thread. Call before any thread is created (PMIx starts
    // its progress thread in PMIx_server_init) so that every thread inherits the mask and the
    // signals can only arrive through the signalfd.
    bool open();
    ~SignalSource();

    int fd() const noexcept { return fd_; }
    // Drains the descriptor; returns the signal numbers read.
    std::vector<int> read_pending();
    // The mask children must undo before exec (a blocked mask survives exec).
    const sigset_t& blocked() const noexcept { return mask_; }

private:
    int fd_ = -1;
    sigset_t mask_{};
};

}  // namespace ftmpi::daemon
