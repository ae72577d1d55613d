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

void JobSupervisor::release(std::uint64_t client) {
    Job* job = job_for_client(client);
    if (job == nullptr || job->released) return;
    job->released = true;
    maybe_finish(*job);  // ends it once this host's processes have exited (they have: idle)
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
    const std::vector<std::uint32_t> newly = mark_remote_failed(*job, failed.ranks);
    if (newly.empty()) return;
    FTMPI_DLOG("failure", "ftmpid: job %s: %zu process(es) of other hosts failed", job->id.c_str(), newly.size());
    FTMPID_INFO("job %s: %zu process(es) on another host failed (first %u); telling this host's processes",
                job->id.c_str(), newly.size(), newly[0]);
    (void)pmix_.notify_procs_aborted(job->pmix_nspace, newly, job->event_seal);
}

// A whole host was lost (mpirun saw its link close or fall silent): every process it ran is
// failed, and this host's processes hear it in ONE event, so they repair once.
void JobSupervisor::host_failed(std::uint64_t client, const proto::HostFailed& lost) {
    Job* job = job_for_client(client);
    if (job == nullptr || !job->slice || job->phase != JobPhase::running) return;
    if (lost.host_index == job->slice->host_index) {
        // mpirun believes this host is gone (it stopped hearing us): whatever we do now, the
        // others have given our ranks up. Never go on alone: end our part (self-fencing).
        FTMPID_WARN("job %s: mpirun declared this host (%s) lost; killing its ranks", job->id.c_str(),
                    lost.hostname.c_str());
        proto::JobEnded end;
        end.exit_code = 1;
        end.reason = proto::JobEndReason::killed;
        end.message = "this host was declared lost";
        return start_kill(*job, std::move(end));
    }
    const std::vector<std::uint32_t> newly = mark_remote_failed(*job, lost.ranks);
    FTMPID_INFO("job %s: host %s lost (%s): %zu process(es) failed", job->id.c_str(), lost.hostname.c_str(),
                proto::to_string(lost.cause), newly.size());
    if (newly.empty()) return;
    // Launched in ABORT mode, and mpirun had heard of no rank leaving it (perhaps one just did,
    // its daemon's failures_trapped still on the way): mpirun lets each daemon decide. Our
    // ranks' `traps_failures` records were read just before (Daemon::on_hub_frame); without
    // one, this host's processes are all still in ABORT mode and the job ends, as on one host.
    if (job->aborts_on_failure()) {
        proto::JobEnded end;
        end.exit_code = 1;
        end.reason = proto::JobEndReason::rank_failed;
        end.message = "host " + lost.hostname + " lost";
        return start_kill(*job, std::move(end));
    }
    (void)pmix_.notify_procs_aborted(job->pmix_nspace, newly, job->event_seal);
}

std::vector<std::uint32_t> JobSupervisor::mark_remote_failed(Job& job, const std::vector<std::uint32_t>& ranks) {
    std::vector<std::uint32_t> newly;
    for (std::uint32_t r : ranks) {
        if (r >= job.ranks.size()) continue;
        RankProc& p = job.ranks[r];
        if (!p.remote || p.exited) continue;  // our own processes are reaped here, not relayed
        p.exited = true;
        p.failed = true;
        p.exit_time_ms = wall_clock_ms();
        newly.push_back(r);
    }
    bool local_alive = false;
    for (const RankProc& p : job.ranks) local_alive = local_alive || (!p.remote && !p.exited);
    if (!local_alive) newly.clear();  // nobody here to tell
    return newly;
}

}  // namespace ftmpi::daemon
