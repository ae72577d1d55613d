// The job supervisor's front: finding jobs, answering their launcher, kill requests, and the
// PMIx upcalls of running processes. Its other themes live beside it (no behaviour differs):
// job_launch.cpp (environment, launch, fork, REBUILD's started replacements) and
// job_ending.cpp (reaping, the exit rules, kill escalation, clean-up).
#include "job_supervisor.h"

#include <cstdlib>

#include "ftmpi/debug_log.h"
#include "ftmpi_proto/tcp_nodelay.h"
#include "log.h"

namespace ftmpi::daemon {

JobSupervisor::JobSupervisor(EventLoop& loop, PmixHost& pmix, const CoreBinder& binder, ControlServer& control,
                             const sigset_t& blocked_signals, bool bind_cores)
    : loop_(loop), pmix_(pmix), binder_(binder), control_(control), blocked_signals_(blocked_signals),
      bind_cores_(bind_cores) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    hostname_ = host;
}

Job* JobSupervisor::job_by_id(const std::string& id) {
    auto it = jobs_.find(id);
    return it == jobs_.end() ? nullptr : it->second.get();
}

Job* JobSupervisor::job_by_nspace(const std::string& nspace) {
    for (auto& [id, job] : jobs_)
        if (job->pmix_nspace == nspace) return job.get();
    return nullptr;
}

Job* JobSupervisor::job_for_client(std::uint64_t client) {
    for (auto& [id, job] : jobs_)
        if (job->client == client) return job.get();
    return nullptr;
}

void JobSupervisor::send_to_client(Job& job, std::vector<std::uint8_t> frame) {
    if (job.client != 0) control_.send(job.client, std::move(frame));
}

void JobSupervisor::refuse_launch(std::uint64_t client, int exit_code, const std::string& why) {
    FTMPID_WARN("launch refused: %s", why.c_str());
    proto::JobEnded end;
    end.exit_code = exit_code;
    end.reason = proto::JobEndReason::launch_failed;
    end.message = why;
    control_.send(client, proto::encode(end));
    control_.close_after_flush(client);
}

void JobSupervisor::kill_request(std::uint64_t client, proto::KillReason reason) {
    Job* job = job_for_client(client);
    if (job == nullptr) return;
    proto::JobEnded end;
    end.exit_code = 1;
    end.reason = proto::JobEndReason::killed;
    end.message = reason == proto::KillReason::timeout       ? "killed: time limit reached"
                  : reason == proto::KillReason::user_signal ? "killed: launcher interrupted"
                                                             : "killed on request";
    start_kill(*job, std::move(end));
}

void JobSupervisor::client_gone(std::uint64_t client) {
    pending_slices_.erase(client);
    Job* job = job_for_client(client);
    if (job == nullptr) return;
    if (job->mirror) {  // nothing runs here: the entry goes with its mpirun
        jobs_.erase(job->id);
        if (on_job_finished_) on_job_finished_();
        return;
    }
    job->client = 0;
    // Nobody can receive the output or the result any more: end the job rather than let it run
    // unsupervised.
    proto::JobEnded end;
    end.exit_code = 1;
    end.reason = proto::JobEndReason::killed;
    end.message = "launcher disconnected";
    FTMPID_INFO("job %s: launcher disconnected, killing the job", job->id.c_str());
    start_kill(*job, std::move(end));
}

void JobSupervisor::handle_upcall(Upcall& u) {
    Job* job = job_by_nspace(u.nspace);
    RankProc* rank = (job != nullptr && u.rank < job->ranks.size()) ? &job->ranks[u.rank] : nullptr;
    switch (u.kind) {
        case UpcallKind::client_connected:
            if (rank != nullptr) rank->connected = true;
            if (rank == nullptr && job != nullptr) {  // a hot spare on a future process index
                if (auto s = job->spares.find(u.rank); s != job->spares.end()) {
                    s->second.connected = true;
                    return u.complete(PMIX_SUCCESS);
                }
            }
            (void)proto::disable_nagle_on_tcp_sockets();  // in case the listener did not pass it on
            u.complete(rank != nullptr ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND);
            return;
        case UpcallKind::client_finalized:
            if (rank != nullptr) rank->finalized = true;
            u.complete(PMIX_SUCCESS);
            return;
        case UpcallKind::fence:
            if (job != nullptr && job->slice) return forward_fence(*job, u);
            // One host: the data PMIx collected locally is already everybody's data.
            u.complete_with_data(PMIX_SUCCESS, std::move(u.data));
            return;
        case UpcallKind::direct_modex:
            if (job != nullptr && job->slice) return forward_modex(*job, u);
            u.complete(PMIX_ERR_NOT_FOUND);  // no remote processes exist
            return;
        case UpcallKind::modex_answer:
            return modex_answer(u);
        case UpcallKind::notify_event:
            // Already answered on PMIx's thread (pmix_module.cpp); a client's event never
            // changes the daemon's view of the job: failures are what the daemon itself reaps.
            FTMPID_DEBUG("job %s rank %u sent event %d; not forwarded", job != nullptr ? job->id.c_str() : "?",
                         u.rank, u.status);
            return;
        case UpcallKind::spawn:
            if (job != nullptr && job->slice && job->phase == JobPhase::running) return forward_spawn(*job, u);
            spawn_replacements(u);
            return;
        case UpcallKind::abort:
            u.complete(PMIX_SUCCESS);
            if (job == nullptr || job->phase != JobPhase::running) return;
            FTMPID_INFO("job %s: rank %u called abort(%d): %s", job->id.c_str(), u.rank, u.status, u.message.c_str());
            proto::AbortRequested ab;
            ab.rank = u.rank;
            ab.code = u.status;
            ab.message = u.message;
            send_to_client(*job, proto::encode(ab));
            proto::JobEnded end;
            end.exit_code = u.status;
            end.reason = proto::JobEndReason::aborted;
            end.message = "rank " + std::to_string(u.rank) + " called MPI_Abort with code " + std::to_string(u.status);
            start_kill(*job, std::move(end));
            return;
    }
    u.complete(PMIX_ERR_NOT_SUPPORTED);
}

}  // namespace ftmpi::daemon
