#include "host_failure.h"

namespace ftmpi::mpirun {

std::vector<std::uint32_t> ranks_on_host(std::uint32_t host, const std::vector<std::uint32_t>& host_of_rank) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t r = 0; r < host_of_rank.size(); ++r)
        if (host_of_rank[r] == host) out.push_back(r);
    return out;
}

std::string format_host_loss(const proto::HostFailed& m, proto::CommMode mode, long long silence_ms,
                             AbortLeft left) {
    std::string s = "ftmpi: host " + m.hostname + " lost (" + proto::to_string(m.cause);
    if (m.cause == proto::HostLoss::heartbeat_timeout) s += ": nothing heard for " + std::to_string(silence_ms) + " ms";
    s += "): ";
    if (m.ranks.empty()) {
        s += "it ran no rank of the job";
    } else {
        s += m.ranks.size() == 1 ? "rank " : "ranks ";
        for (std::size_t i = 0; i < m.ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(m.ranks[i]);
        s += " failed";
    }
    switch (mode) {
        case proto::CommMode::abort:
            if (left == AbortLeft::yes)
                return s + "; the job continues (ABORT left by the application: each communicator repairs by its own mode)\n";
            if (left == AbortLeft::maybe)
                return s + "; ABORT mode: the job ends unless every surviving host's processes left it\n";
            return s + "; ABORT mode: ending the job\n";
        case proto::CommMode::shrink: return s + "; the job continues (SHRINK: survivors renumbered without them)\n";
        case proto::CommMode::blank: return s + "; the job continues (BLANK: their ranks are left as gaps)\n";
        case proto::CommMode::rebuild:
            return s + "; the job continues (REBUILD: replacements start on the surviving hosts at the repair)\n";
        case proto::CommMode::rebuild_append:
            return s + "; the job continues (REBUILD_APPEND: replacements are appended at the repair)\n";
        case proto::CommMode::ulfm: return s + "; the job continues (ULFM: the application revokes, shrinks and agrees)\n";
        default: return s + "\n";
    }
}

}  // namespace ftmpi::mpirun
