#include "host_table_feed.h"

#include <algorithm>

#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::mpirun {

proto::HostTableUpdate HostTableFeed::build(const std::vector<Spoke>& spokes,
                                            const std::vector<std::uint32_t>& host_of_process,
                                            const std::vector<std::uint32_t>& world_rank_of) {
    std::vector<const Spoke*> order;
    for (const Spoke& s : spokes) order.push_back(&s);
    std::sort(order.begin(), order.end(), [](const Spoke* a, const Spoke* b) { return a->host < b->host; });
    proto::HostTableUpdate table;
    for (const Spoke* s : order) {
        proto::JobHost h;
        h.name = s->host_name;
        h.state = s->lost ? proto::HostStateV::failed : proto::HostStateV::ok;
        h.daemon_pid = s->daemon_pid;
        for (std::size_t p = 0; p < host_of_process.size(); ++p)
            if (host_of_process[p] == s->host) h.ranks.push_back(p < world_rank_of.size() ? world_rank_of[p] : p);
        h.spares = s->lost ? 0 : s->spares;
        h.last_heard_ms = s->remote ? s->last_heard_ms : 0;
        table.hosts.push_back(std::move(h));
    }
    return table;
}

void HostTableFeed::tick(const std::vector<Spoke>& spokes, const std::vector<std::uint32_t>& host_of_process,
                         const std::vector<std::uint32_t>& world_rank_of, Clock::time_point now) {
    if (sink_ < 0) return;
    if (!dirty_ && last_sent_ && now - *last_sent_ < kRefresh) return;
    // The daemon takes it as it comes; a dead daemon shows up elsewhere (its spoke, or not at
    // all for a mirror: the tools then simply find nothing).
    if (proto::write_all(sink_, proto::encode(build(spokes, host_of_process, world_rank_of))) != proto::ProtoStatus::ok)
        sink_ = -1;
    dirty_ = false;
    last_sent_ = now;
}

void HostTableFeed::forward(const std::vector<std::uint8_t>& frame) {
    if (sink_ >= 0 && proto::write_all(sink_, frame) != proto::ProtoStatus::ok) sink_ = -1;
}

std::optional<HostTableFeed::Clock::time_point> HostTableFeed::next_deadline() const {
    if (sink_ < 0) return std::nullopt;
    if (dirty_ || !last_sent_) return Clock::now();
    return *last_sent_ + kRefresh;
}

}  // namespace ftmpi::mpirun
