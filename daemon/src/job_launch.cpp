// Starting a job's processes: each rank's environment, the launch (PMIx registration, fork
// and exec through rank_launcher.h) and REBUILD's started replacements (a spawn upcall).
#include <unistd.h>

#include <cstdlib>
#include <unordered_map>

#include "ftmpi/debug_log.h"
#include "ftmpi_proto/auth_token.h"
#include "job_supervisor.h"
#include "log.h"
#include "rank_launcher.h"

namespace ftmpi::daemon {

namespace {

constexpr std::uint32_t kMaxRanks = 65535;  // PMIx local ranks are 16 bits

bool is_reserved_env(const std::string& entry) {
    // Another launcher's PMIx variables would point the client at the wrong server. MCA
    // settings are the user's tuning and pass through.
    if (entry.compare(0, 5, "PMIX_") == 0 && entry.compare(0, 9, "PMIX_MCA_") != 0) return true;
    for (const char* name : {"FTMPI_JOBID=", "FTMPI_NPROCS=", "FTMPI_RANK=", "FTMPI_LOCAL_RANK=",
                             "FTMPI_COMM_MODE=", "FTMPI_MSG_MODE=", "FTMPI_MONITOR_SOCKET=",
                             "FTMPI_EVENT_SEAL=", "FTMPI_NET_ADDR=", "FTMPI_NHOSTS="}) {
        if (entry.compare(0, std::char_traits<char>::length(name), name) == 0) return true;
    }
    return false;
}

}  // namespace

std::vector<std::string> JobSupervisor::build_env(const Job& job, const RankProc& rank,
                                                  const std::vector<std::string>& pmix_env) const {
    std::vector<std::string> env;
    std::unordered_map<std::string, std::size_t> index;
    auto set = [&](const std::string& entry) {
        std::string name = entry.substr(0, entry.find('='));
        auto it = index.find(name);
        if (it != index.end()) {
            env[it->second] = entry;
        } else {
            index.emplace(name, env.size());
            env.push_back(entry);
        }
    };
    for (const auto& e : job.spec.env)
        if (e.find('=') != std::string::npos && !is_reserved_env(e)) set(e);
    // The InfiniPath library that libfabric's psm provider pulls in installs handlers for
    // SIGSEGV, SIGTERM and others from a load-time constructor and exits 1 from them, so a rank
    // killed by a signal was reported as "exited with status 1" (issue 16 item 6). Vendor
    // handlers stay out unless the user asks (FTMPI_VENDOR_BACKTRACE=1) or set these already.
    if (index.count("FTMPI_VENDOR_BACKTRACE") == 0 || env[index["FTMPI_VENDOR_BACKTRACE"]] != "FTMPI_VENDOR_BACKTRACE=1") {
        for (const char* quiet : {"IPATH_NO_BACKTRACE", "HFI_NO_BACKTRACE"})
            if (index.count(quiet) == 0) set(std::string(quiet) + "=1");
    }
    set("FTMPI_JOBID=" + job.id);
    set("FTMPI_NPROCS=" + std::to_string(job.spec.nprocs));
    set("FTMPI_RANK=" + std::to_string(rank.rank));
    set("FTMPI_LOCAL_RANK=" + std::to_string(rank.local_rank));
    if (job.slice) {
        // The transport opens libfabric (tcp) for peers on other hosts, bound to this address.
        set("FTMPI_NET_ADDR=" + job.slice->net_addr);
        set("FTMPI_NHOSTS=" + std::to_string(job.slice->host_names.size()));
    }
    set(std::string("FTMPI_COMM_MODE=") + proto::to_string(job.spec.comm_mode));
    set(std::string("FTMPI_MSG_MODE=") + proto::to_string(job.spec.msg_mode));
    if (!monitor_socket_.empty()) set("FTMPI_MONITOR_SOCKET=" + monitor_socket_);
    set("FTMPI_EVENT_SEAL=" + job.event_seal);
    for (const auto& e : pmix_env) set(e);
    return env;
}

void JobSupervisor::launch(std::uint64_t client, proto::LaunchJob spec) {
    if (job_for_client(client) != nullptr) return refuse_launch(client, 1, "this connection already runs a job");
    if (spec.argv.empty()) return refuse_launch(client, 1, "no program given");
    if (spec.nprocs == 0 || spec.nprocs > kMaxRanks)
        return refuse_launch(client, 1, "number of processes must be between 1 and 65535");
    if (spec.cwd.empty()) spec.cwd = "/";
    // A job on several hosts: mpirun sent this host's slice just before (hub_messages.h).
    std::optional<proto::JobSlice> slice;
    if (auto it = pending_slices_.find(client); it != pending_slices_.end()) {
        slice = std::move(it->second);
        pending_slices_.erase(it);
        if (slice->host_of_rank.size() != spec.nprocs)
            return refuse_launch(client, 1, "the job's placement does not match its process count");
        if (job_by_id(slice->jobid) != nullptr) return refuse_launch(client, 1, "job " + slice->jobid + " exists");
    }
    std::string why;
    std::string exe = resolve_executable(spec.argv[0], spec.env, spec.cwd, why);
    if (exe.empty()) return refuse_launch(client, 127, why);

    auto owned = std::make_unique<Job>();
    Job& job = *owned;
    job.client = client;
    job.start_ms = wall_clock_ms();
    job.spec = std::move(spec);
    if (slice) {
        // Every daemon of the job registers the same namespace and seal, made by mpirun.
        job.id = slice->jobid;
        job.pmix_nspace = slice->nspace;
        job.event_seal = slice->event_seal;
    } else {
        job.id = "ftmpi-" + std::to_string(getpid()) + "-" + std::to_string(next_job_seq_++);
        std::string nspace_secret;
        if (proto::token_generate(job.event_seal) != proto::ProtoStatus::ok ||
            proto::token_generate(nspace_secret) != proto::ProtoStatus::ok)
            return refuse_launch(client, 1, "cannot generate the job's secrets");
        job.pmix_nspace = job.id + "-" + nspace_secret.substr(0, 32);
    }
    const JobMap map = slice ? JobMap{slice->host_names, slice->host_of_rank, slice->host_index}
                             : JobMap::one_host(hostname_, job.spec.nprocs);
    job.slice = std::move(slice);
    FTMPI_DLOG("startup", "ftmpid: job %s: registering %u ranks with PMIx", job.id.c_str(), job.spec.nprocs);
    if (pmix_.register_job(job.pmix_nspace, map, why) != Status::ok) return refuse_launch(client, 1, why);
    const std::vector<std::uint32_t> local_rank = map.local_ranks();
    jobs_.emplace(job.id, std::move(owned));
    FTMPID_INFO("job %s: %u x %s (comm mode %s, msg mode %s)", job.id.c_str(), job.spec.nprocs, exe.c_str(),
                proto::to_string(job.spec.comm_mode), proto::to_string(job.spec.msg_mode));

    job.exe = exe;
    job.ranks.resize(job.spec.nprocs);
    proto::JobStarted started;
    started.jobid = job.id;
    for (std::uint32_t r = 0; r < job.spec.nprocs; ++r) {
        job.ranks[r].rank = r;
        job.ranks[r].world_rank = r;
        job.ranks[r].local_rank = local_rank[r];
        if (map.host_of_rank[r] != map.my_host) {
            job.ranks[r].remote = true;  // another daemon's
            continue;
        }
        std::vector<std::string> pmix_env;
        // A launcher killed mid-launch must stop the launch, not find it finished later.
        Status st = control_.peer_gone(client) ? Status::spawn_failed : Status::ok;
        if (st != Status::ok) why = "the launcher is gone";
        if (st == Status::ok) st = pmix_.prepare_client(job.pmix_nspace, r, getuid(), getgid(), pmix_env, why);
        if (st == Status::ok) st = start_process(job, job.ranks[r], pmix_env, {}, why);
        if (st != Status::ok) {
            // Ranks already started are killed; the ones never started count as exited.
            for (std::uint32_t k = r; k < job.spec.nprocs; ++k) job.ranks[k].exited = !job.ranks[k].remote;
            proto::JobEnded end;
            end.exit_code = 1;
            end.reason = proto::JobEndReason::launch_failed;
            end.message = "cannot start rank " + std::to_string(r) + ": " + why;
            FTMPID_WARN("job %s: %s", job.id.c_str(), end.message.c_str());
            start_kill(job, std::move(end));
            return;
        }
        started.pids.push_back(job.ranks[r].pid);
    }
    FTMPI_DLOG("startup", "ftmpid: job %s: %u ranks forked", job.id.c_str(), job.spec.nprocs);
    send_to_client(job, proto::encode(started));
    for (const RankProc& r : job.ranks)
        if (!r.remote) report_binding(job, r);
    // Hot spares (job_spares.cpp). Several hosts: mpirun names their indices (spare_indices).
    job.next_spare_index = job.spec.nprocs;
    job.spares_wanted = spares_requested(job.spec.env);
    if (!job.slice) start_spares(job);
}

Status JobSupervisor::start_process(Job& job, RankProc& rank, const std::vector<std::string>& pmix_env,
                                    const std::vector<std::string>& extra_env, std::string& why) {
    RankLaunchPlan plan;
    plan.executable = job.exe;
    plan.argv = job.spec.argv;
    plan.env = build_env(job, rank, pmix_env);
    plan.env.insert(plan.env.end(), extra_env.begin(), extra_env.end());
    plan.cwd = job.spec.cwd;
    plan.unblock = blocked_signals_;
    const int core = core_for_new_process(job, 0);
    plan.bind = core >= 0 && binder_.cpu_set_for(static_cast<std::uint32_t>(core), plan.cpus);
    plan.stdin_pipe = job.spec.forward_stdin && rank.rank == 0;
    SpawnedRank spawned;
    if (Status st = spawn_rank(plan, spawned, why); st != Status::ok) return st;
    rank.pid = spawned.pid;
    rank.core = plan.bind ? core : -1;
    rank.out_fd = spawned.out_fd;
    rank.err_fd = spawned.err_fd;
    rank.in_fd = spawned.in_fd;
    job_of_pid_[rank.pid] = job.id;
    watch_pipes(job, rank);
    return Status::ok;
}

// REBUILD: replacement processes for a job, asked for by one of its processes through PMIx
// spawn. They get the process indices base, base+1, ... (the library agreed on them); an index
// skipped by an earlier, interrupted rebuild stays a never-started slot. All are registered
// with PMIx before any is forked, so they can look each other up at once.
void JobSupervisor::spawn_replacements(Upcall& u) {
    Job* job = job_by_nspace(u.nspace);
    if (job == nullptr || job->phase != JobPhase::running || u.rank >= job->ranks.size())
        return u.complete_spawn(PMIX_ERR_NOT_FOUND, "");
    if (!u.has_base || u.count == 0 || u.base < job->ranks.size() ||
        std::uint64_t{u.base} + u.count > kMaxRanks) {
        FTMPID_WARN("job %s: rank %u asked for a malformed spawn (base %u, count %u)", job->id.c_str(), u.rank,
                    u.base, u.count);
        return u.complete_spawn(PMIX_ERR_BAD_PARAM, "");
    }
    while (job->ranks.size() < u.base) {
        RankProc never;
        never.rank = static_cast<std::uint32_t>(job->ranks.size());
        never.world_rank = never.rank;
        never.exited = true;
        job->ranks.push_back(never);
    }
    std::vector<std::string> extra;
    const std::vector<std::uint32_t> replaces = proto::replaced_ranks(u.env);  // the ranks they take (display)
    for (const auto& e : u.env) {
        if (e.compare(0, 6, "FTMPI_") != 0 || is_reserved_env(e)) continue;
        extra.push_back(e);
    }
    std::vector<std::vector<std::string>> pmix_envs(u.count);
    std::vector<bool> from_spare(u.count, false);
    std::vector<bool> registered;
    std::string why;
    retire_spares_below(*job, u.base);
    Status st = register_before_spares(*job, u.base, [](std::uint32_t) { return true; }, pmix_envs, registered, why);
    for (std::uint32_t i = 0; i < u.count && st == Status::ok; ++i) {
        const std::uint32_t world_rank = i < replaces.size() ? replaces[i] : u.base + i;
        from_spare[i] = assign_spare(*job, u.base + i, world_rank, extra);  // hot spare: no start
        if (from_spare[i]) continue;
        RankProc p;
        p.rank = u.base + i;
        p.world_rank = world_rank;
        p.local_rank = p.rank;
        if (job->slice) {
            p.local_rank = 0;
            for (const RankProc& q : job->ranks) p.local_rank += q.remote ? 0 : 1;
        }
        job->ranks.push_back(p);
        // A spare that could not be told (assign_spare failed) leaves its index to a new process.
        if (!registered[i]) st = pmix_.prepare_client(job->pmix_nspace, p.rank, getuid(), getgid(), pmix_envs[i], why);
    }
    for (std::uint32_t i = 0; i < u.count && st == Status::ok; ++i) {
        if (from_spare[i]) continue;
        st = start_process(*job, job->ranks[u.base + i], pmix_envs[i], extra, why);
        if (st == Status::ok) report_binding(*job, job->ranks[u.base + i]);
    }
    if (st != Status::ok) {
        FTMPID_WARN("job %s: cannot start replacement processes: %s", job->id.c_str(), why.c_str());
        // Those not started count as exited without having joined; the survivors see them fail.
        for (std::uint32_t i = 0; i < u.count; ++i) {
            RankProc& p = job->ranks[u.base + i];
            if (p.pid <= 0) {
                p.exited = true;
                (void)pmix_.notify_proc_aborted(job->pmix_nspace, p.rank, job->event_seal);
            }
        }
        return u.complete_spawn(PMIX_ERR_SYS_OTHER, "");
    }
    FTMPID_INFO("job %s: rank %u started %u replacement(s) from process index %u", job->id.c_str(), u.rank, u.count,
                u.base);
    u.complete_spawn(PMIX_SUCCESS, job->pmix_nspace);
    spares_after_spawn(*job, u.base, u.count);
}

}  // namespace ftmpi::daemon
