// Where a job's processes run: the core each is bound to (bind_policy.h decides; this file
// counts what is already bound and applies the decision to a hot spare that takes a rank).
#include <dirent.h>
#include <sched.h>

#include <cstdlib>

#include "bind_policy.h"
#include "ftmpi/debug_log.h"
#include "job_supervisor.h"
#include "log.h"

namespace ftmpi::daemon {

namespace {

// Every thread of a running process (a spare has the PMIx client's thread besides its own).
bool set_affinity_of_all_threads(pid_t pid, const cpu_set_t& cpus) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return false;
    bool ok = true;
    while (dirent* e = readdir(d)) {
        const long tid = std::strtol(e->d_name, nullptr, 10);
        if (tid > 0 && sched_setaffinity(static_cast<pid_t>(tid), sizeof cpus, &cpus) != 0) ok = false;
    }
    closedir(d);
    return ok;
}

}  // namespace

int JobSupervisor::core_for_new_process(const Job& job, std::uint32_t not_yet_listed) const {
    const BindPolicy policy = bind_cores_ ? job_bind_policy(job.spec.env, BindPolicy::automatic) : BindPolicy::none;
    if (policy == BindPolicy::none || binder_.ncores() <= 0) return -1;
    // Cores in use by the live processes of every job of this daemon (a shared daemon runs
    // several): two jobs of one rank each get a core each.
    std::vector<std::uint32_t> busy(static_cast<std::size_t>(binder_.ncores()), 0);
    for (const auto& [id, other] : jobs_)
        for (const RankProc& r : other->ranks)
            if (!r.remote && !r.exited && r.pid > 0 && r.core >= 0 && static_cast<std::size_t>(r.core) < busy.size())
                ++busy[static_cast<std::size_t>(r.core)];
    std::uint32_t local = not_yet_listed;
    for (const RankProc& r : job.ranks) local += (!r.remote && !r.exited) ? 1 : 0;
    return choose_core(policy, local, busy);
}

void JobSupervisor::report_binding(Job& job, const RankProc& rank) {
    const BindPolicy policy = bind_cores_ ? job_bind_policy(job.spec.env, BindPolicy::automatic) : BindPolicy::none;
    std::uint32_t local = 0;
    for (const RankProc& r : job.ranks) local += (!r.remote && !r.exited) ? 1 : 0;
    const std::string cpus = rank.core >= 0 ? binder_.cpu_list(static_cast<std::uint32_t>(rank.core)) : "";
    const std::string line = describe_binding(rank.world_rank, static_cast<long>(rank.pid), hostname_, rank.core, cpus,
                                              policy, local, static_cast<std::uint32_t>(std::max(0, binder_.ncores())));
    // "ftmpi: rank ..." -> "ftmpid: rank ..." in the debug log.
    FTMPI_DLOG("bind", "ftmpid: %.*s", static_cast<int>(line.size() - 8), line.c_str() + 7);
    if (!job_reports_bindings(job.spec.env)) return;
    // As the process's own first stderr line: its pipe is read only after this.
    proto::OutputChunk chunk;
    chunk.rank = rank.world_rank;
    chunk.stream = proto::OutputStream::err;
    chunk.bytes = line;
    send_to_client(job, proto::encode(chunk));
}

void JobSupervisor::bind_taken_spare(Job& job, RankProc& rank) {
    // A spare waits unbound (it uses no CPU); holding a rank, it is placed like any process.
    const int core = core_for_new_process(job, 0);
    cpu_set_t cpus;
    if (core >= 0 && binder_.cpu_set_for(static_cast<std::uint32_t>(core), cpus)) {
        if (set_affinity_of_all_threads(rank.pid, cpus)) rank.core = core;
        else FTMPID_WARN("job %s: cannot bind the spare taking rank %u to core %d", job.id.c_str(), rank.world_rank, core);
    }
    report_binding(job, rank);
}

}  // namespace ftmpi::daemon
