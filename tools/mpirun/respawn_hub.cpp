#include "respawn_hub.h"

#include <limits>

#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::mpirun {

namespace {

bool live(const Spoke& s) { return s.open && !s.ended; }

void send(Spoke& s, const std::vector<std::uint8_t>& frame) {
    if (live(s)) (void)proto::write_all(s.fd, frame);  // a broken link shows up as a lost host
}

}  // namespace

std::vector<std::uint32_t> RespawnHub::place(const std::vector<Spoke>& spokes, std::uint32_t count,
                                             const std::vector<std::uint32_t>& chosen) {
    std::vector<std::uint32_t> load(spokes.size());
    for (std::size_t i = 0; i < spokes.size(); ++i) load[i] = spokes[i].ranks_alive;
    // Processes whose host is decided already load their hosts first.
    for (std::size_t n = 0; n < chosen.size() && n < count; ++n)
        for (std::size_t i = 0; i < spokes.size(); ++i) load[i] += spokes[i].host == chosen[n] ? 1 : 0;
    std::vector<std::uint32_t> hosts;
    for (std::uint32_t n = 0; n < count; ++n) {
        if (n < chosen.size() && chosen[n] != kNoHost) {
            hosts.push_back(chosen[n]);
            continue;
        }
        std::size_t best = spokes.size();
        for (std::size_t i = 0; i < spokes.size(); ++i) {
            if (!live(spokes[i])) continue;
            if (best == spokes.size() || load[i] < load[best] ||
                (load[i] == load[best] && spokes[i].host < spokes[best].host))
                best = i;
        }
        if (best == spokes.size()) return {};
        ++load[best];
        hosts.push_back(spokes[best].host);
    }
    return hosts;
}

void RespawnHub::spawn_request(std::vector<Spoke>& spokes, std::size_t from, proto::SpawnRequest m,
                               std::vector<std::uint32_t>& host_of_rank, const std::vector<std::uint32_t>& chosen) {
    m.origin_host = spokes[from].host;
    proto::SpawnPlace place_msg;
    place_msg.origin_host = m.origin_host;
    place_msg.request = m.request;
    place_msg.base = m.base;
    place_msg.env = m.env;
    place_msg.host_of_new = m.base >= host_of_rank.size() ? place(spokes, m.count, chosen) : std::vector<std::uint32_t>{};
    if (place_msg.host_of_new.empty()) {  // nobody left to start them, or indices already taken
        proto::SpawnDone no;
        no.request = m.request;
        send(spokes[from], proto::encode(no));
        return;
    }
    // Indices an interrupted rebuild skipped belong to no host.
    host_of_rank.resize(m.base, std::numeric_limits<std::uint32_t>::max());
    host_of_rank.insert(host_of_rank.end(), place_msg.host_of_new.begin(), place_msg.host_of_new.end());
    Pending p;
    p.origin = from;
    p.request = m.request;
    for (std::uint32_t h : place_msg.host_of_new) {
        for (std::size_t i = 0; i < spokes.size(); ++i) {
            if (spokes[i].host != h) continue;
            ++spokes[i].ranks_alive;
            spokes[i].idle = false;
            p.awaiting.insert(i);
        }
    }
    const auto frame = proto::encode(place_msg);
    for (Spoke& s : spokes) send(s, frame);  // everybody learns where the new processes run
    pending_[{m.origin_host, m.request}] = std::move(p);
}

void RespawnHub::spawn_started(std::vector<Spoke>& spokes, std::size_t from, const proto::SpawnStarted& m) {
    auto it = pending_.find({m.origin_host, m.request});
    if (it == pending_.end()) return;
    it->second.awaiting.erase(from);
    it->second.ok = it->second.ok && m.ok;
    finish_if_answered(spokes, it);
}

void RespawnHub::host_lost(std::vector<Spoke>& spokes, std::size_t lost) {
    for (auto it = pending_.begin(); it != pending_.end();) {
        auto next = std::next(it);
        if (it->second.awaiting.erase(lost) > 0) it->second.ok = false;
        if (it->second.origin == lost) {
            pending_.erase(it);  // nobody to tell
        } else {
            finish_if_answered(spokes, it);
        }
        it = next;
    }
}

void RespawnHub::finish_if_answered(std::vector<Spoke>& spokes,
                                    std::map<std::pair<std::uint32_t, std::uint32_t>, Pending>::iterator it) {
    if (!it->second.awaiting.empty()) return;
    proto::SpawnDone done;
    done.request = it->second.request;
    done.ok = it->second.ok;
    send(spokes[it->second.origin], proto::encode(done));
    pending_.erase(it);
}

void RespawnHub::modex_request(std::vector<Spoke>& spokes, std::size_t from, proto::ModexRequest m,
                               const std::vector<std::uint32_t>& host_of_rank) {
    m.origin_host = spokes[from].host;
    if (m.rank < host_of_rank.size()) {
        for (Spoke& s : spokes) {
            if (s.host == host_of_rank[m.rank] && live(s)) return send(s, proto::encode(m));
        }
    }
    proto::ModexReply no;  // no such process, or its host is gone
    no.origin_host = m.origin_host;
    no.request = m.request;
    no.status = proto::kModexNotFound;
    send(spokes[from], proto::encode(no));
}

void RespawnHub::modex_reply(std::vector<Spoke>& spokes, const proto::ModexReply& m) {
    for (Spoke& s : spokes)
        if (s.host == m.origin_host) return send(s, proto::encode(m));
}

}  // namespace ftmpi::mpirun
