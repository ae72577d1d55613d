#include "spare_hub.h"

#include <algorithm>

#include "ftmpi/debug_log.h"
#include "ftmpi_proto/host_messages.h"
#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::mpirun {

namespace {

bool live(const Spoke& s) { return s.open && !s.ended && !s.lost; }

constexpr std::uint32_t kMaxIndex = 65535;  // PMIx local ranks are 16 bits

}  // namespace

void SpareHub::start(std::vector<Spoke>& spokes, std::uint32_t wanted, std::uint32_t first_index) {
    wanted_ = wanted;
    next_index_ = first_index;
    cursor_ = 0;
    // Host order, as the ranks' list (the spokes are not in it: mpirun's own host comes last).
    order_.resize(spokes.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return spokes[a].host < spokes[b].host; });
    if (wanted_ == 0 || spokes.empty()) return;
    // Spare j on the j-th host, round robin.
    std::map<std::size_t, std::vector<std::uint32_t>> by_spoke;
    for (std::uint32_t j = 0; j < wanted_ && next_index_ < kMaxIndex; ++j) {
        const std::size_t s = order_[j % order_.size()];
        if (!live(spokes[s])) continue;
        spoke_of_[next_index_] = s;
        by_spoke[s].push_back(next_index_++);
    }
    cursor_ = wanted_ % order_.size();
    give(spokes, by_spoke, 0);
}

std::vector<std::uint32_t> SpareHub::claim(std::vector<Spoke>& spokes, std::uint32_t base, std::uint32_t count) {
    std::vector<std::uint32_t> host(count, kNoHost);
    // Skipped indices (an interrupted rebuild): their daemons retire them on the spawn_place.
    while (!spoke_of_.empty() && spoke_of_.begin()->first < base) spoke_of_.erase(spoke_of_.begin());
    for (std::uint32_t i = 0; i < count; ++i) {
        auto it = spoke_of_.find(base + i);
        if (it == spoke_of_.end()) continue;
        if (live(spokes[it->second])) host[i] = spokes[it->second].host;
        spoke_of_.erase(it);
    }
    next_index_ = std::max<std::uint32_t>(next_index_, std::min<std::uint32_t>(base + count, kMaxIndex));
    recount(spokes);
    return host;
}

void SpareHub::top_up(std::vector<Spoke>& spokes, std::uint32_t delay_ms) {
    std::map<std::size_t, std::vector<std::uint32_t>> by_spoke;
    while (spoke_of_.size() < wanted_ && next_index_ < kMaxIndex) {
        const std::size_t s = pick(spokes);
        if (s == spokes.size()) break;
        spoke_of_[next_index_] = s;
        by_spoke[s].push_back(next_index_++);
    }
    give(spokes, by_spoke, delay_ms);
}

void SpareHub::host_lost(std::vector<Spoke>& spokes, std::size_t lost) {
    std::vector<std::uint32_t> orphans;
    for (const auto& [index, s] : spoke_of_)
        if (s == lost) orphans.push_back(index);
    for (std::uint32_t index : orphans) spoke_of_.erase(index);
    // The same indices: the survivors' next repair asks for exactly these.
    std::map<std::size_t, std::vector<std::uint32_t>> by_spoke;
    for (std::uint32_t index : orphans) {
        const std::size_t s = pick(spokes);
        if (s == spokes.size()) break;
        spoke_of_[index] = s;
        by_spoke[s].push_back(index);
    }
    if (!orphans.empty())
        FTMPI_DLOG("failure", "mpirun: host %u lost %zu hot spare(s); their indices move to live hosts",
                   spokes[lost].host, orphans.size());
    give(spokes, by_spoke, 0);
}

std::size_t SpareHub::pick(const std::vector<Spoke>& spokes) {
    std::vector<std::uint32_t> count(spokes.size(), 0);
    for (const auto& [index, s] : spoke_of_) ++count[s];
    std::size_t best = spokes.size(), at = 0;
    for (std::size_t k = 0; k < order_.size(); ++k) {
        const std::size_t pos = (cursor_ + k) % order_.size(), i = order_[pos];
        if (live(spokes[i]) && (best == spokes.size() || count[i] < count[best])) best = i, at = pos;
    }
    if (best < spokes.size()) cursor_ = (at + 1) % order_.size();
    return best;
}

void SpareHub::give(std::vector<Spoke>& spokes, const std::map<std::size_t, std::vector<std::uint32_t>>& by_spoke,
                    std::uint32_t delay_ms) {
    for (const auto& [s, indices] : by_spoke) {
        proto::SpareIndices m;
        m.delay_ms = delay_ms;
        m.indices = indices;  // ascending: handed out in order
        std::sort(m.indices.begin(), m.indices.end());
        // A broken link shows up as a lost host, which moves these indices again.
        if (spokes[s].fd >= 0) (void)proto::write_all(spokes[s].fd, proto::encode(m));
    }
    recount(spokes);
}

void SpareHub::recount(std::vector<Spoke>& spokes) const {
    for (Spoke& s : spokes) s.spares = 0;
    for (const auto& [index, s] : spoke_of_) ++spokes[s].spares;
}

}  // namespace ftmpi::mpirun
