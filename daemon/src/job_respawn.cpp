// REBUILD across hosts (issue 15 item 4; messages in host_messages.h). In a job on several
// hosts a daemon does not start the replacements its ranks ask for: mpirun knows every host's
// load and whether it still lives, so it places them (least loaded surviving host first) and
// tells every daemon where each new process runs. The chosen daemons register and start theirs;
// the others record them as processes of another host, so that their failure can be relayed
// and their data fetched. A replacement publishes its address without a fence; a process on
// another host gets it through PMIx direct modex, which the daemons forward through mpirun.
#include <unistd.h>

#include <cstdlib>

#include "ftmpi/debug_log.h"
#include "job_supervisor.h"
#include "log.h"

namespace ftmpi::daemon {

namespace {

constexpr std::uint32_t kMaxRanks = 65535;  // PMIx local ranks are 16 bits
static_assert(proto::kModexNotFound == PMIX_ERR_NOT_FOUND, "mpirun's not-found status must be PMIx's");

}  // namespace

// The spawn upcall of a job on several hosts: checked here, placed by mpirun.
void JobSupervisor::forward_spawn(Job& job, Upcall& u) {
    if (!u.has_base || u.count == 0 || u.base < job.ranks.size() || std::uint64_t{u.base} + u.count > kMaxRanks) {
        FTMPID_WARN("job %s: rank %u asked for a malformed spawn (base %u, count %u)", job.id.c_str(), u.rank, u.base,
                    u.count);
        return u.complete_spawn(PMIX_ERR_BAD_PARAM, "");
    }
    proto::SpawnRequest m;
    m.request = next_request_++;
    m.requester = u.rank;
    m.base = u.base;
    m.count = u.count;
    for (const auto& e : u.env)
        if (e.compare(0, 6, "FTMPI_") == 0) m.env.push_back(e);  // the rest is the job's own
    FTMPID_INFO("job %s: rank %u asks for %u replacement(s) from index %u; mpirun places them", job.id.c_str(),
                u.rank, u.count, u.base);
    pending_spawns_.emplace(m.request, std::make_pair(job.id, std::move(u)));
    send_to_client(job, proto::encode(m));
}

void JobSupervisor::spawn_place(std::uint64_t client, const proto::SpawnPlace& m) {
    Job* job = job_for_client(client);
    if (job == nullptr || !job->slice) return;
    const std::uint32_t me = job->slice->host_index;
    const std::uint32_t count = static_cast<std::uint32_t>(m.host_of_new.size());
    if (m.base < job->ranks.size()) {
        FTMPID_WARN("job %s: placement of processes %u.. that exist already; ignored", job->id.c_str(), m.base);
        return;
    }
    while (job->ranks.size() < m.base) {  // indices skipped by an interrupted rebuild
        RankProc never;
        never.rank = never.world_rank = static_cast<std::uint32_t>(job->ranks.size());
        never.remote = true;
        never.exited = true;
        job->ranks.push_back(never);
    }
    retire_spares_below(*job, m.base);  // indices skipped: nobody will ask for them
    const std::vector<std::uint32_t> replaces = proto::replaced_ranks(m.env);
    std::uint32_t local_count = 0;
    for (const RankProc& q : job->ranks) local_count += q.remote ? 0 : 1;
    bool mine = false;
    for (std::uint32_t i = 0; i < count; ++i) {
        RankProc p;
        p.rank = m.base + i;
        p.world_rank = i < replaces.size() ? replaces[i] : p.rank;
        p.remote = m.host_of_new[i] != me;
        p.local_rank = p.remote ? 0 : local_count++;
        mine = mine || !p.remote;
        job->ranks.push_back(p);
    }
    // A spare of this host whose index mpirun put elsewhere (it thought the spare gone) retires.
    for (std::uint32_t i = 0; i < count; ++i)
        if (job->ranks[m.base + i].remote) retire_spare(*job, m.base + i, "runs on another host");
    if (job->phase != JobPhase::running) return;
    if (!mine) return;
    // A hot spare on the index takes the rank with one write (job_spares_hub.cpp); the others
    // are registered before any is forked, so that they can look each other up at once, and
    // before any spare hears its rank (register_before_spares).
    std::vector<std::vector<std::string>> pmix_envs(count);
    std::vector<bool> registered;
    std::string why;
    Status st = register_before_spares(
        *job, m.base, [job](std::uint32_t index) { return !job->ranks[index].remote; }, pmix_envs, registered, why);
    std::vector<bool> from_spare(count, false);
    for (std::uint32_t i = 0; i < count && st == Status::ok; ++i) {
        RankProc& p = job->ranks[m.base + i];
        if (!p.remote && take_spare(*job, p, m.env)) {
            from_spare[i] = true;
            bind_taken_spare(*job, p);
            watch_pipes(*job, p);
        }
    }
    // A spare that could not be told (take_spare failed) leaves its index to a new process.
    for (std::uint32_t i = 0; i < count && st == Status::ok; ++i)
        if (!job->ranks[m.base + i].remote && !from_spare[i] && !registered[i])
            st = pmix_.prepare_client(job->pmix_nspace, m.base + i, getuid(), getgid(), pmix_envs[i], why);
    for (std::uint32_t i = 0; i < count && st == Status::ok; ++i)
        if (!job->ranks[m.base + i].remote && !from_spare[i]) {
            st = start_process(*job, job->ranks[m.base + i], pmix_envs[i], m.env, why);
            if (st == Status::ok) report_binding(*job, job->ranks[m.base + i]);
        }
    proto::SpawnStarted done;
    done.origin_host = m.origin_host;
    done.request = m.request;
    done.ok = st == Status::ok;
    if (st != Status::ok) {
        done.message = why;
        FTMPID_WARN("job %s: cannot start replacement processes: %s", job->id.c_str(), why.c_str());
        for (std::uint32_t i = 0; i < count; ++i) {
            RankProc& p = job->ranks[m.base + i];
            if (!p.remote && p.pid <= 0) p.exited = true;  // the survivors see it fail (REBUILD gives up on it)
        }
        send_to_client(*job, proto::encode(done));
        return maybe_finish(*job);  // none may be left here: idle again
    } else {
        FTMPID_INFO("job %s: started replacement(s) from process index %u on this host", job->id.c_str(), m.base);
    }
    send_to_client(*job, proto::encode(done));
}

void JobSupervisor::spawn_done(std::uint64_t client, const proto::SpawnDone& m) {
    auto it = pending_spawns_.find(m.request);
    if (it == pending_spawns_.end()) return;
    Job* job = job_by_id(it->second.first);
    Upcall u = std::move(it->second.second);
    pending_spawns_.erase(it);
    if (job == nullptr || job->client != client) return u.complete_spawn(PMIX_ERR_NOT_FOUND, "");
    u.complete_spawn(m.ok ? PMIX_SUCCESS : PMIX_ERR_SYS_OTHER, m.ok ? job->pmix_nspace : std::string());
}

// PMIx asks for the data of a process it does not serve: the process's own daemon has it.
void JobSupervisor::forward_modex(Job& job, Upcall& u) {
    proto::ModexRequest m;
    m.request = next_request_++;
    m.rank = u.rank;
    pending_modex_.emplace(m.request, std::make_pair(job.id, std::move(u)));
    send_to_client(job, proto::encode(m));
}

// Another host wants one of our processes' data: PMIx hands it over (waiting until the process
// committed it) on its own thread, which comes back here as a modex_answer upcall.
void JobSupervisor::modex_request(std::uint64_t client, const proto::ModexRequest& m) {
    Job* job = job_for_client(client);
    if (job == nullptr || m.rank >= job->ranks.size() || job->ranks[m.rank].remote) {
        proto::ModexReply no;
        no.origin_host = m.origin_host;
        no.request = m.request;
        no.status = PMIX_ERR_NOT_FOUND;
        control_.send(client, proto::encode(no));
        return;
    }
    pmix_.request_local_modex(job->pmix_nspace, m.rank, m.request, m.origin_host);
}

void JobSupervisor::modex_answer(Upcall& u) {
    Job* job = job_by_nspace(u.nspace);
    if (job == nullptr) return;
    proto::ModexReply r;
    r.origin_host = u.count;  // see PmixHost::request_local_modex
    r.request = u.base;
    r.status = u.status;
    r.data.assign(u.data.begin(), u.data.end());
    send_to_client(*job, proto::encode(r));
}

void JobSupervisor::modex_reply(std::uint64_t client, const proto::ModexReply& m) {
    (void)client;
    auto it = pending_modex_.find(m.request);
    if (it == pending_modex_.end()) return;
    Upcall u = std::move(it->second.second);
    pending_modex_.erase(it);
    u.complete_with_data(m.status, std::vector<char>(m.data.begin(), m.data.end()));
}

// The job ends: nobody will answer what is still pending.
void JobSupervisor::fail_pending_requests(const std::string& job_id) {
    for (auto it = pending_spawns_.begin(); it != pending_spawns_.end();) {
        if (it->second.first != job_id) {
            ++it;
            continue;
        }
        it->second.second.complete_spawn(PMIX_ERR_COMM_FAILURE, "");
        it = pending_spawns_.erase(it);
    }
    for (auto it = pending_modex_.begin(); it != pending_modex_.end();) {
        if (it->second.first != job_id) {
            ++it;
            continue;
        }
        it->second.second.complete(PMIX_ERR_COMM_FAILURE);
        it = pending_modex_.erase(it);
    }
}

}  // namespace ftmpi::daemon
