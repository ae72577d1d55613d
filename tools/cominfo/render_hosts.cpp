#include "render_hosts.h"

#include <algorithm>
#include <cstdio>

namespace ftmpi::tools {

const proto::ProcInfo* proc_of(const proto::JobInfo& job, std::uint32_t wr) {
    if (wr < job.procs.size() && job.procs[wr].rank == wr) return &job.procs[wr];
    for (const auto& p : job.procs)
        if (p.rank == wr) return &p;
    return nullptr;
}

std::string host_of_rank(const proto::JobInfo& job, std::uint32_t wr) {
    // A replacement may run elsewhere than its predecessor: the newest table entry wins, and a
    // host that failed only keeps ranks nobody took over.
    std::string found;
    for (const auto& h : job.hosts)
        if (std::find(h.ranks.begin(), h.ranks.end(), wr) != h.ranks.end())
            if (found.empty() || h.state == proto::HostStateV::ok) found = h.name;
    if (!found.empty()) return found;
    const proto::ProcInfo* p = proc_of(job, wr);
    return p ? p->host : std::string();
}

std::string rank_ranges(std::vector<std::uint32_t> ranks) {
    if (ranks.empty()) return "-";
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::string out;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
        if (!out.empty()) out += ",";
        out += std::to_string(ranks[i]);
        if (j > i) out += "-" + std::to_string(ranks[j]);
        i = j + 1;
    }
    return out;
}

std::int64_t heartbeat_age_ms(const proto::JobHost& h, std::uint64_t now_ms) {
    if (h.last_heard_ms == 0) return -1;
    return now_ms > h.last_heard_ms ? static_cast<std::int64_t>(now_ms - h.last_heard_ms) : 0;
}

std::vector<Line> job_host_lines(const proto::JobInfo& job, std::uint64_t now_ms, std::size_t width) {
    std::vector<Line> out;
    for (const auto& h : job.hosts) {
        const std::int64_t age = heartbeat_age_ms(h, now_ms);
        const std::string beat = age < 0 ? "mpirun's host" : "heartbeat " + std::to_string(age) + " ms ago";
        char buf[512];
        std::snprintf(buf, sizeof buf, "    host %s  %s  daemon pid %d  ranks %s  spares %u  %s",
                      sanitize(h.name).c_str(), h.state == proto::HostStateV::ok ? "ok" : "FAILED", h.daemon_pid,
                      rank_ranges(h.ranks).c_str(), h.spares, beat.c_str());
        out.push_back({{fit(buf, width), h.state == proto::HostStateV::ok ? Color::normal : Color::proc_failed}});
    }
    return out;
}

std::vector<Line> job_hosts_summary(const proto::JobInfo& job, std::size_t width) {
    if (job.hosts.size() < 2) return {};
    Line l{{"  hosts:", Color::normal}};
    for (const auto& h : job.hosts) {
        const bool ok = h.state == proto::HostStateV::ok;
        l.push_back({"  " + sanitize(h.name) + (ok ? "" : " FAILED") + " [" + rank_ranges(h.ranks) + "]",
                     ok ? Color::normal : Color::proc_failed});
    }
    // Cut to the width as one text when it is too long (colours then lost: rare, wide jobs).
    if (plain(l).size() > width) return {{{fit(plain(l), width), Color::normal}}};
    return {l};
}

}  // namespace ftmpi::tools
