// The datagram socket on which ranks report their communicators (ftmpi/src/monitor.cpp). It
// lives in the daemon's private directory (mode 0600); the kernel attaches each sender's pid
// (SO_PASSCRED), which the job supervisor checks against the rank the report claims to be.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include "daemon_status.h"
#include "event_loop.h"

namespace ftmpi::daemon {

class MonitorSocket {
public:
    using Handler = std::function<void(const std::uint8_t* data, std::size_t n, pid_t sender)>;
    MonitorSocket(EventLoop& loop, Handler h) : loop_(loop), handler_(std::move(h)) {}
    ~MonitorSocket();
    Status open(const std::string& path, std::string& why);
    const std::string& path() const noexcept { return path_; }
    // Hands every datagram already queued to the handler. Called before children are reaped: a
    // rank's last record (it is finalizing) must be read before its exit is judged.
    void drain();

private:
    void on_readable() { (void)receive(256); }  // a budget, so one busy job cannot starve the loop
    int receive(int budget);  // how many datagrams were taken off the queue
    EventLoop& loop_;
    Handler handler_;
    std::string path_;
    int fd_ = -1;
};

}  // namespace ftmpi::daemon
