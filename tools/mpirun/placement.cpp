// Which rank runs on which host (--map-by slot|node), as Open MPI and Hydra place them.
#include <algorithm>
#include <cstdint>

#include "host_plan.h"

namespace ftmpi::mpirun {

std::optional<std::uint32_t> Placement::local_index() const {
    for (std::uint32_t i = 0; i < hosts.size(); ++i)
        if (hosts[i].local) return i;
    return std::nullopt;
}

bool Placement::has_remote() const {
    for (const Host& h : hosts)
        if (!h.local) return true;
    return false;
}

std::vector<std::uint32_t> Placement::ranks_of(std::uint32_t index) const {
    std::vector<std::uint32_t> ranks;
    for (std::uint32_t r = 0; r < host_of_rank.size(); ++r)
        if (host_of_rank[r] == index) ranks.push_back(r);
    return ranks;
}

namespace {

// One pass over the hosts places at most one "round" of ranks: `slot` gives each host its
// slots in turn, `node` gives each host with a free slot one rank in turn. Oversubscription
// repeats the passes; that is the wrap-around.
void place_slot(const std::vector<Host>& hosts, std::uint32_t nprocs, std::vector<std::uint32_t>& host_of) {
    while (host_of.size() < nprocs) {
        for (std::uint32_t h = 0; h < hosts.size() && host_of.size() < nprocs; ++h)
            for (std::uint32_t s = 0; s < hosts[h].slots && host_of.size() < nprocs; ++s) host_of.push_back(h);
    }
}

void place_node(const std::vector<Host>& hosts, std::uint32_t nprocs, std::vector<std::uint32_t>& host_of) {
    std::vector<std::uint32_t> used(hosts.size(), 0);
    std::uint64_t total_slots = 0;
    for (const Host& h : hosts) total_slots += h.slots;
    // Every pass over the hosts fills at most one slot per host; once all slots are taken, the
    // counters restart (the next round of oversubscription).
    std::uint64_t placed_in_round = 0;
    while (host_of.size() < nprocs) {
        for (std::uint32_t h = 0; h < hosts.size() && host_of.size() < nprocs; ++h) {
            if (used[h] >= hosts[h].slots) continue;
            ++used[h];
            host_of.push_back(h);
            if (++placed_in_round == total_slots) {
                placed_in_round = 0;
                std::fill(used.begin(), used.end(), 0);
                break;  // a new round starts from the first host again
            }
        }
    }
}

}  // namespace

Placement place_ranks(std::vector<Host> hosts, std::uint32_t nprocs, MapBy map_by) {
    if (hosts.empty()) hosts.push_back(Host{"localhost", nprocs > 0 ? nprocs : 1, true});
    for (Host& h : hosts)
        if (h.slots == 0) h.slots = 1;
    std::vector<std::uint32_t> host_of;
    host_of.reserve(nprocs);
    if (map_by == MapBy::slot) place_slot(hosts, nprocs, host_of);
    else place_node(hosts, nprocs, host_of);

    // Keep only the hosts that received ranks (one daemon each), renumbered in listed order.
    std::vector<std::uint32_t> new_index(hosts.size(), UINT32_MAX);
    for (std::uint32_t h : host_of) new_index[h] = 0;
    Placement plan;
    for (std::uint32_t h = 0; h < hosts.size(); ++h) {
        if (new_index[h] == UINT32_MAX) continue;
        new_index[h] = static_cast<std::uint32_t>(plan.hosts.size());
        plan.hosts.push_back(std::move(hosts[h]));
    }
    plan.host_of_rank.reserve(host_of.size());
    for (std::uint32_t h : host_of) plan.host_of_rank.push_back(new_index[h]);
    return plan;
}

bool oversubscribed(const Placement& plan, std::uint32_t local_cpus) {
    std::vector<std::uint32_t> ranks(plan.hosts.size(), 0);
    for (std::uint32_t h : plan.host_of_rank) ++ranks[h];
    for (std::size_t i = 0; i < plan.hosts.size(); ++i) {
        const std::uint32_t cores = plan.hosts[i].local ? local_cpus : plan.hosts[i].slots;
        if (cores > 0 && ranks[i] > cores) return true;
    }
    return false;
}

std::string describe_placement(const Placement& plan) {
    std::string out = "ftmpi: " + std::to_string(plan.host_of_rank.size()) + " ranks on " +
                      std::to_string(plan.hosts.size()) + (plan.hosts.size() == 1 ? " host\n" : " hosts\n");
    for (std::uint32_t i = 0; i < plan.hosts.size(); ++i) {
        const Host& h = plan.hosts[i];
        std::string ranks;
        const std::vector<std::uint32_t> mine = plan.ranks_of(i);
        for (std::size_t k = 0; k < mine.size();) {
            std::size_t run = k;
            while (run + 1 < mine.size() && mine[run + 1] == mine[run] + 1) ++run;
            if (!ranks.empty()) ranks += ",";
            ranks += std::to_string(mine[k]);
            if (run > k) ranks += "-" + std::to_string(mine[run]);
            k = run + 1;
        }
        out += "  host " + std::to_string(i) + " " + h.name + (h.local ? " (this machine)" : "") + ": slots " +
               std::to_string(h.slots) + ", ranks " + ranks + "\n";
    }
    return out;
}

}  // namespace ftmpi::mpirun
