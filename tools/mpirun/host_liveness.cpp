#include "host_liveness.h"

#include "ftmpi_proto/host_messages.h"

namespace ftmpi::mpirun {

std::vector<std::size_t> HostLiveness::tick(TimePoint now, const Send& send, const Pending& pending) {
    std::vector<std::size_t> lost;
    for (auto& [spoke, clock] : clocks_) {
        clock.looked(now);
        if (clock.expired(now)) {
            if (!pending || !pending(spoke)) lost.push_back(spoke);
            continue;
        }
        if (clock.send_due(now)) {
            proto::Heartbeat hb;
            hb.seq = ++seq_;
            // A failed write is a closed link: the poll loop sees it as such.
            (void)send(spoke, proto::encode(hb));
            clock.sent(now);
        }
    }
    for (std::size_t s : lost) clocks_.erase(s);
    return lost;
}

std::optional<HostLiveness::TimePoint> HostLiveness::next_deadline() const {
    std::optional<TimePoint> first;
    for (const auto& [spoke, clock] : clocks_) {
        const TimePoint d = clock.next_deadline();
        if (!first || d < *first) first = d;
    }
    return first;
}

std::chrono::milliseconds HostLiveness::silence(std::size_t spoke, TimePoint now) const {
    auto it = clocks_.find(spoke);
    return it == clocks_.end() ? std::chrono::milliseconds(0) : it->second.silence(now);
}

}  // namespace ftmpi::mpirun
