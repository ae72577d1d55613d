// signalfd set-up and draining.
#include "signal_source.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

namespace ftmpi::daemon {

bool SignalSource::open() {
    sigemptyset(&mask_);
    for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&mask_, s);
    if (pthread_sigmask(SIG_BLOCK, &mask_, nullptr) != 0) return false;
    // A client that vanishes must show up as EPIPE on write, not kill the daemon.
    signal(SIGPIPE, SIG_IGN);
    fd_ = signalfd(-1, &mask_, SFD_NONBLOCK | SFD_CLOEXEC);
    return fd_ >= 0;
}

SignalSource::~SignalSource() {
    if (fd_ >= 0) close(fd_);
}

std::vector<int> SignalSource::read_pending() {
    std::vector<int> out;
    signalfd_siginfo si{};
    for (;;) {
        ssize_t n = read(fd_, &si, sizeof si);
        if (n == static_cast<ssize_t>(sizeof si)) {
            out.push_back(static_cast<int>(si.ssi_signo));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        break;  // EAGAIN: drained
    }
    return out;
}

}  // namespace ftmpi::daemon
