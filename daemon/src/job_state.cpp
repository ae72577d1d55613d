// The tools' state table: communicator reports from the ranks, merged with what the daemon
// itself knows about its processes (a rank that died is FAILED in every communicator at once,
// before any survivor has noticed).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <fstream>

#include "job_supervisor.h"
#include "log.h"

namespace ftmpi::daemon {

namespace {

constexpr std::size_t kMaxCommsPerJob = 4096;
constexpr std::uint32_t kMaxRanks = 65535;  // as for a launch

std::uint64_t cpu_ms_of(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return 0;
    auto close = line.rfind(')');
    if (close == std::string::npos) return 0;
    // Fields after the command: state(3) ... utime(14) stime(15).
    unsigned long long utime = 0, stime = 0;
    if (std::sscanf(line.c_str() + close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                    &stime) != 2)
        return 0;
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? (utime + stime) * 1000ull / static_cast<unsigned long long>(hz) : 0;
}

int exit_code_of(const RankProc& r) {
    if (!r.exited) return 0;
    if (WIFSIGNALED(r.wait_status)) return 128 + WTERMSIG(r.wait_status);
    return WIFEXITED(r.wait_status) ? WEXITSTATUS(r.wait_status) : 0;
}

}  // namespace

void JobSupervisor::handle_report(const std::uint8_t* data, std::size_t n, pid_t sender) {
    proto::CommReport rep;
    if (proto::ProtoStatus st = proto::decode_report(data, n, rep); st != proto::ProtoStatus::ok) {
        FTMPID_WARN("dropping malformed communicator report from pid %d: %s", static_cast<int>(sender),
                    proto::to_string(st));
        return;
    }
    Job* job = job_by_id(rep.jobid);
    if (job == nullptr || rep.reporter >= job->ranks.size()) {
        FTMPID_DEBUG("dropping communicator report for unknown job/rank %s/%u", rep.jobid.c_str(), rep.reporter);
        return;
    }
    RankProc& who = job->ranks[rep.reporter];
    if (who.pid <= 0 || (sender != who.pid && getpgid(sender) != who.pid)) {
        FTMPID_WARN("dropping communicator report for %s rank %u from pid %d: not that rank", rep.jobid.c_str(),
                    rep.reporter, static_cast<int>(sender));
        return;
    }
    if (rep.kind == proto::ReportKind::finalized) {
        // The rank itself, not a process it forked: only the rank calls MPI_Finalize.
        if (sender == who.pid && !who.exited) who.finalized = true;
        return;  // a fact about this host's process: nothing for the tools, nothing to relay
    }
    if (rep.kind == proto::ReportKind::traps_failures) {
        if (job->failures_trapped) return;
        FTMPID_INFO("job %s: rank %u left ABORT mode: deaths are reported, not fatal", job->id.c_str(), rep.reporter);
        job->failures_trapped = true;  // how this host's deaths end; nothing for the tools
        // Several hosts: mpirun judges a lost host (this daemon cannot: it may be the lost one),
        // so it must know too. Once per host; it may arrive after a host loss it concerns, which
        // is why mpirun lets the daemons decide one it heard no trap for (job_outcome.cpp).
        if (job->slice && job->spec.comm_mode == proto::CommMode::abort) {
            proto::FailuresTrapped m;
            m.rank = rep.reporter;
            send_to_client(*job, proto::encode(m));
        }
        return;
    }
    // A remote daemon passes it on: the tools run on mpirun's host (host_table.h).
    if (forward_reports_ && job->slice) {
        proto::CommReportRelay relay;
        relay.report.assign(reinterpret_cast<const char*>(data), n);
        send_to_client(*job, proto::encode(relay));
    }
    apply_report(*job, std::move(rep));
}

void JobSupervisor::relay_report(std::uint64_t client, const proto::CommReportRelay& m) {
    proto::CommReport rep;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(m.report.data());
    if (proto::decode_report(bytes, m.report.size(), rep) != proto::ProtoStatus::ok) return;
    Job* job = job_for_client(client);
    // Only the job this mpirun runs; a process of another host is a placeholder here.
    if (job == nullptr || rep.jobid != job->id || !(job->slice || job->mirror)) return;
    std::uint32_t highest = rep.reporter;
    for (const auto& p : rep.comm.procs) highest = std::max(highest, p.world_rank);
    if (highest >= kMaxRanks) return;
    // A mirror learns the processes from the reports; a job that runs here knows them all
    // (mpirun's placements reach it before the new processes can report).
    while (job->mirror && job->ranks.size() <= highest) {
        RankProc other;
        other.rank = other.world_rank = static_cast<std::uint32_t>(job->ranks.size());
        other.remote = true;
        job->ranks.push_back(other);
    }
    if (rep.reporter >= job->ranks.size() || !job->ranks[rep.reporter].remote) return;  // ours report here
    apply_report(*job, std::move(rep));
}

void JobSupervisor::apply_report(Job& job_ref, proto::CommReport rep) {
    Job* job = &job_ref;
    const auto key = std::make_pair(rep.comm.key_context, rep.comm.leader);
    // Handled where they arrive, never relayed.
    if (rep.kind == proto::ReportKind::finalized || rep.kind == proto::ReportKind::traps_failures) return;
    if (rep.kind == proto::ReportKind::freed) {
        auto it = job->comms.find(key);
        if (it == job->comms.end()) return;
        it->second.holders.erase(rep.reporter);
        if (it->second.holders.empty()) job->comms.erase(it);
        return;
    }
    for (const auto& p : rep.comm.procs) {
        if (p.world_rank >= job->ranks.size()) {
            FTMPID_WARN("dropping communicator report for %s: world rank %u out of range", rep.jobid.c_str(),
                        p.world_rank);
            return;
        }
    }
    auto it = job->comms.find(key);
    if (it == job->comms.end()) {
        if (job->comms.size() >= kMaxCommsPerJob) return;
        it = job->comms.emplace(key, CommEntry{}).first;
    }
    it->second.info = std::move(rep.comm);
    it->second.holders.insert(rep.reporter);
}

bool JobSupervisor::set_host_table(std::uint64_t client, std::vector<proto::JobHost> hosts) {
    Job* job = job_for_client(client);
    if (job == nullptr) return false;
    job->host_table = std::move(hosts);
    return true;
}

bool JobSupervisor::mirror(std::uint64_t client, const proto::JobMirror& m) {
    if (job_for_client(client) != nullptr || job_by_id(m.jobid) != nullptr) return false;
    auto job = std::make_unique<Job>();
    job->id = m.jobid;
    job->client = client;
    job->mirror = true;
    job->start_ms = wall_clock_ms();
    job->spec.argv = {m.program};
    job->spec.nprocs = m.nprocs;
    job->spec.comm_mode = m.comm_mode;
    job->spec.msg_mode = m.msg_mode;
    jobs_.emplace(m.jobid, std::move(job));
    return true;
}

void JobSupervisor::snapshot(std::vector<proto::JobInfo>& out, bool with_cpu) const {
    std::vector<const Job*> sorted;
    for (const auto& [id, job] : jobs_) sorted.push_back(job.get());
    std::sort(sorted.begin(), sorted.end(), [](const Job* a, const Job* b) {
        return a->start_ms != b->start_ms ? a->start_ms < b->start_ms : a->id < b->id;
    });
    for (const Job* job : sorted) {
        proto::JobInfo j;
        j.id = job->id;
        j.program = job->spec.argv.empty() ? std::string() : job->spec.argv[0];
        j.nprocs = job->spec.nprocs;
        j.comm_mode = static_cast<proto::CommModeV>(job->spec.comm_mode);
        j.msg_mode = static_cast<proto::MsgModeV>(job->spec.msg_mode);
        j.start_ms = job->start_ms;
        for (const RankProc& r : job->ranks) {
            if (r.remote) continue;  // its own daemon shows it
            proto::ProcInfo p;
            p.rank = r.world_rank;
            p.pid = r.pid;
            p.host = hostname_;
            p.state = r.exited ? (r.failed ? proto::RunStateV::failed : proto::RunStateV::exited)
                      : r.finalized ? proto::RunStateV::finalized
                      : r.connected ? proto::RunStateV::running
                                    : proto::RunStateV::starting;
            p.exit_code = exit_code_of(r);
            if (with_cpu && !r.exited && r.pid > 0) p.cpu_ms = cpu_ms_of(r.pid);
            j.procs.push_back(std::move(p));
        }
        for (const auto& [key, entry] : job->comms) {
            proto::CommInfo c = entry.info;
            bool unnoticed_death = false;
            for (auto& p : c.procs) {
                const RankProc& r = job->ranks[p.world_rank];
                const bool dead = r.exited && (r.failed || !r.finalized);
                if (dead && (p.state == proto::ProcStateV::ok || p.state == proto::ProcStateV::joining)) {
                    p.state = proto::ProcStateV::failed;
                    unnoticed_death = true;
                }
            }
            if (unnoticed_death && (c.state == proto::CommStateV::ok || c.state == proto::CommStateV::recovered))
                c.state = proto::CommStateV::detected;
            j.comms.push_back(std::move(c));
        }
        j.hosts = job->host_table;
        if (j.hosts.empty() && !job->mirror) {  // one host: nobody pushes a table, this daemon is the table
            proto::JobHost h;
            h.name = hostname_;
            h.daemon_pid = getpid();
            for (const RankProc& r : job->ranks) h.ranks.push_back(r.world_rank);
            h.spares = static_cast<std::uint32_t>(job->spares.size());
            j.hosts.push_back(std::move(h));
        }
        out.push_back(std::move(j));
    }
}

}  // namespace ftmpi::daemon
