// A remote daemon's watch over its link to mpirun (issue 15 item 4): a heartbeat to mpirun every
// period, and self-fencing when mpirun falls silent longer than the timeout (a cut link, a frozen
// or lost mpirun host). Self-fencing is the daemon's promise that a cut-off host's processes
// never go on alone: the owner kills the job's ranks, removes its files and exits. A closed link
// is the owner's other path to the same end (faster: no timeout to wait for).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "event_loop.h"
#include "ftmpi_proto/heartbeat.h"

namespace ftmpi::daemon {

class HubLiveness {
public:
    using Send = std::function<void(std::vector<std::uint8_t> frame)>;
    using Lost = std::function<void(std::chrono::milliseconds silence)>;

    // `link_fd`: a dup of the link to mpirun, owned (closed) by this object, only polled.
    HubLiveness(EventLoop& loop, proto::HeartbeatConfig config, int link_fd, Send send, Lost lost);
    ~HubLiveness();
    HubLiveness(const HubLiveness&) = delete;
    HubLiveness& operator=(const HubLiveness&) = delete;

    // Anything from mpirun (a heartbeat or any other frame) proves it alive.
    void heard();

private:
    void arm();
    void tick();
    bool input_pending() const;

    EventLoop& loop_;
    proto::HeartbeatClock clock_;
    int link_fd_;
    Send send_;
    Lost lost_;
    std::uint64_t timer_ = 0;
    std::uint64_t seq_ = 0;
    bool lost_reported_ = false;
    bool heard_once_ = false;
};

}  // namespace ftmpi::daemon
