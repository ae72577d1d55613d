// A daemon's part in a job on several hosts (issue 15): mpirun is the hub that joins the
// daemons (hub_messages.h). The daemon runs only its host's slice of the job, hands its local
// part of each PMIx fence to mpirun and completes the fence with everybody's data, and passes
// failures of its processes to mpirun and failures of other hosts' processes to its own.
#include "ftmpi/debug_log.h"
#include "job_supervisor.h"
#include "log.h"

namespace ftmpi::daemon {

void JobSupervisor::set_slice(std::uint64_t client, proto::JobSlice slice) {
    pending_slices_[client] = std::move(slice);
}

// PRRTE does the same (pmix_server_fencenb_fn -> grpcomm allgather): PMIx packs each server's
// local data as self-delimiting envelopes, so the concatenation of every server's blob is what
// the modex callback expects, and PMIx_Get of a remote rank's key is then served locally.
void JobSupervisor::forward_fence(Job& job, Upcall& u) {
    const std::uint32_t seq = job.fence_count[u.signature]++;
    proto::FenceContribution c;
    c.signature = u.signature;
    c.seq = seq;
    c.blob.assign(u.data.begin(), u.data.end());
    FTMPI_DLOG("startup", "ftmpid: job %s: fence %s#%u: local part (%zu bytes) to mpirun", job.id.c_str(),
               c.signature.c_str(), seq, c.blob.size());
    job.pending_fences.emplace(std::make_pair(u.signature, seq), std::move(u));
    send_to_client(job, proto::encode(c));
}

void JobSupervisor::fence_result(std::uint64_t client, proto::FenceResult result) {
    Job* job = job_for_client(client);
    if (job == nullptr) return;
    auto it = job->pending_fences.find({result.signature, result.seq});
    if (it == job->pending_fences.end()) {
        FTMPID_WARN("job %s: fence result for %s#%u, which is not pending", job->id.c_str(), result.signature.c_str(),
                    result.seq);
        return;
    }
    FTMPI_DLOG("startup", "ftmpid: job %s: fence %s#%u complete (%zu bytes)", job->id.c_str(),
               result.signature.c_str(), result.seq, result.data.size());
    // A participant died meanwhile: the survivors learn it as on one host.
    it->second.complete_with_data(result.partial ? PMIX_ERR_PARTIAL_SUCCESS : PMIX_SUCCESS,
                                  std::vector<char>(result.data.begin(), result.data.end()));
    job->pending_fences.erase(it);
}

void JobSupervisor::report_failure_to_hub(Job& job, const RankProc& rank) {
    proto::ProcsFailed m;
    m.ranks.push_back(rank.rank);
    FTMPI_DLOG("failure", "ftmpid: job %s: process %u failed; telling mpirun", job.id.c_str(), rank.rank);
    send_to_client(job, proto::encode(m));
}

void JobSupervisor::remote_procs_failed(std::uint64_t client, const proto::ProcsFailed& failed) {
    Job* job = job_for_client(client);
    if (job == nullptr || !job->slice || job->phase != JobPhase::running) return;
    std::vector<std::uint32_t> newly;
    for (std::uint32_t r : failed.ranks) {
        if (r >= job->ranks.size()) continue;
        RankProc& p = job->ranks[r];
        if (!p.remote || p.exited) continue;  // our own processes are reaped here, not relayed
        p.exited = true;
        p.failed = true;
        p.exit_time_ms = wall_clock_ms();
        newly.push_back(r);
    }
    bool local_alive = false;
    for (const RankProc& p : job->ranks) local_alive = local_alive || (!p.remote && !p.exited);
    if (!local_alive) return;
    FTMPI_DLOG("failure", "ftmpid: job %s: %zu process(es) of other hosts failed", job->id.c_str(), newly.size());
    for (std::uint32_t r : newly) {
        FTMPID_INFO("job %s: process %u on another host failed; telling this host's processes", job->id.c_str(), r);
        (void)pmix_.notify_proc_aborted(job->pmix_nspace, r, job->event_seal);
    }
}

}  // namespace ftmpi::daemon
