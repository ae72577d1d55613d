// mpirun's watch over the remote daemons of a job on several hosts (issue 15 item 4): one
// HeartbeatClock per TCP link. mpirun sends a heartbeat on each link every period; anything a
// daemon sends counts as a sign of life; a link silent longer than the timeout means the host
// is lost (a cut link or a frozen host: a killed host shows up sooner, as a closed connection).
// The local daemon (Unix socket on mpirun's own host) is not watched: if mpirun's host is
// lost, so is mpirun.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "ftmpi_proto/heartbeat.h"

namespace ftmpi::mpirun {

class HostLiveness {
public:
    using Clock = proto::HeartbeatClock::Clock;
    using TimePoint = proto::HeartbeatClock::TimePoint;
    // Writes one frame to a spoke; false when the link is broken.
    using Send = std::function<bool(std::size_t spoke, const std::vector<std::uint8_t>& frame)>;
    // Whether bytes from a spoke wait unread in its socket.
    using Pending = std::function<bool(std::size_t spoke)>;

    explicit HostLiveness(proto::HeartbeatConfig config) : config_(config) {}

    void watch(std::size_t spoke, TimePoint now) { clocks_.insert_or_assign(spoke, proto::HeartbeatClock(config_, now)); }
    void forget(std::size_t spoke) { clocks_.erase(spoke); }
    void heard(std::size_t spoke, TimePoint now) {
        if (auto it = clocks_.find(spoke); it != clocks_.end()) it->second.heard(now);
    }
    // Sends the heartbeats that are due and returns the spokes silent beyond the timeout
    // (they are forgotten: each is reported once). A spoke with bytes `pending` is not silent:
    // when mpirun itself got no CPU for longer than the timeout (a loaded machine), the
    // daemon's heartbeats of that time wait unread in the socket; the caller reads them (heard)
    // before anything is declared, so mpirun's own absence never counts as the daemon's.
    std::vector<std::size_t> tick(TimePoint now, const Send& send, const Pending& pending = nullptr);
    // When tick should run next (in the past while an expired spoke's bytes wait to be read);
    // none when nothing is watched.
    std::optional<TimePoint> next_deadline() const;
    // How long `spoke` has been silent (0 when not watched).
    std::chrono::milliseconds silence(std::size_t spoke, TimePoint now) const;
    const proto::HeartbeatConfig& config() const { return config_; }

private:
    proto::HeartbeatConfig config_;
    std::map<std::size_t, proto::HeartbeatClock> clocks_;
    std::uint64_t seq_ = 0;
};

}  // namespace ftmpi::mpirun
