// How a job ends: reaping its processes, the exit rules (daemon/README.md), SIGTERM then
// SIGKILL, the last output, and removing everything it left (shared memory, PMIx namespace).
#include <ftmpi/shm_segments.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "ftmpi/debug_log.h"
#include "job_supervisor.h"
#include "log.h"

namespace ftmpi::daemon {

namespace {

constexpr auto kKillGrace = std::chrono::milliseconds(500);   // SIGTERM -> SIGKILL
constexpr auto kDrainGrace = std::chrono::milliseconds(1000); // last output after all exited

// Signals the whole process group first, so that whatever a rank forked dies with it.
void signal_rank(const RankProc& r, int sig) {
    if (r.pid <= 0) return;
    if (kill(-r.pid, sig) != 0 && !r.exited) kill(r.pid, sig);
}

}  // namespace

JobSupervisor::~JobSupervisor() {
    // Last resort if the daemon stops with jobs alive: nothing of theirs may survive it.
    for (auto& [id, job] : jobs_)
        for (auto& r : job->ranks) signal_rank(r, SIGKILL);
}

// A killed rank cannot remove its shared-memory segments (libfabric's shm region, our rings
// and bulk slots), PIDs are recycled, and a later rank that lands on a stale region of its own
// PID hangs. Removing them at reap time, before the PID can be handed out again, keeps
// /dev/shm clean; the transport's shm_segments is the one function that knows their names.
void remove_shm_regions(pid_t pid) { (void)ftmpi::shm_segments::remove_of_process(pid); }

void JobSupervisor::reap_children() {
    for (;;) {
        int status = 0;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno == EINTR) continue;
        if (pid <= 0) return;
        if (spare_job_.count(pid) != 0) {  // a hot spare that never held a rank: no failure
            remove_shm_regions(pid);
            (void)reap_spare(pid, status);
            continue;
        }
        auto it = job_of_pid_.find(pid);
        if (it == job_of_pid_.end()) continue;
        std::string job_id = it->second;
        job_of_pid_.erase(it);
        Job* job = job_by_id(job_id);
        RankProc* rank = job != nullptr ? job->find_pid(pid) : nullptr;
        if (rank == nullptr || rank->exited) continue;
        rank->exited = true;
        FTMPI_DLOG("failure", "ftmpid: reaped process %u (pid %d)", rank->rank, static_cast<int>(pid));
        close_stdin(*rank);
        remove_shm_regions(pid);
        rank->wait_status = status;
        rank->exit_time_ms = wall_clock_ms();
        on_rank_exit(*job, *rank);
    }
}

void JobSupervisor::on_rank_exit(Job& job, RankProc& rank) {
    // Relay what the rank wrote before it died, so its output precedes its exit report.
    pump(job, rank, proto::OutputStream::out, 1 << 20);
    pump(job, rank, proto::OutputStream::err, 1 << 20);
    rank.failed = rank_failed(rank);
    if (rank.failed && rank.finalized && !job.aborts_on_failure()) {
        // It finished MPI and then exited badly: nothing for the survivors to repair, but the
        // job must not report success.
        if (!job.finalized_error_code) job.finalized_error_code = failure_exit_code(rank);
        FTMPID_INFO("job %s: %s after MPI_Finalize", job.id.c_str(), describe_failure(rank).c_str());
        rank.failed = false;
    }
    bool continues = false;
    if (job.phase == JobPhase::running && rank.failed) {
        FTMPID_INFO("job %s: %s", job.id.c_str(), describe_failure(rank).c_str());
        if (job.aborts_on_failure()) {
            proto::JobEnded end;
            end.exit_code = failure_exit_code(rank);
            end.reason = proto::JobEndReason::rank_failed;
            end.message = describe_failure(rank);
            send_to_client(job, proto::encode(describe_exit(rank, false)));
            start_kill(job, std::move(end));
            return;
        }
        if (!job.first_failure_code) job.first_failure_code = failure_exit_code(rank);
        continues = job.others_alive(rank.rank);
        // The other hosts first: their survivors hear of it through mpirun, two more hops,
        // so the report leaves before this host's PMIx event is prepared.
        if (continues && job.slice) report_failure_to_hub(job, rank);
        if (continues) (void)pmix_.notify_proc_aborted(job.pmix_nspace, rank.rank, job.event_seal);
    } else if (job.phase == JobPhase::killing) {
        rank.failed = false;  // we killed it; the job's outcome already says why
    }
    send_to_client(job, proto::encode(describe_exit(rank, continues)));
    maybe_finish(job);
}

void JobSupervisor::start_kill(Job& job, proto::JobEnded outcome) {
    if (job.phase == JobPhase::killing) return;
    job.phase = JobPhase::killing;
    job.outcome = std::move(outcome);
    end_spares(job);
    for (const auto& r : job.ranks)
        if (!r.exited) signal_rank(r, SIGTERM);
    std::string id = job.id;
    job.kill_timer = loop_.add_timer(kKillGrace, [this, id] { escalate_kill(id); });
    maybe_finish(job);
}

void JobSupervisor::escalate_kill(const std::string& job_id) {
    Job* job = job_by_id(job_id);
    if (job == nullptr) return;
    job->kill_timer = 0;
    for (const auto& r : job->ranks) signal_rank(r, SIGKILL);
}

void JobSupervisor::maybe_finish(Job& job) {
    if (!job.all_exited()) return;
    if (job.slice && job.phase == JobPhase::running && !job.released) {
        // Several hosts: this host stays in the job (REBUILD may place replacements here, SPEC
        // 5.1) until mpirun sees every host idle and releases it. Once per process count: a
        // notice that crossed a placement is told apart by mpirun with that count.
        std::uint32_t local = 0;
        for (const RankProc& r : job.ranks) local += r.remote ? 0 : 1;
        if (job.idle_reported == local + 1) return;
        job.idle_reported = local + 1;
        FTMPI_DLOG("startup", "ftmpid: job %s: this host's %u process(es) have exited; idle", job.id.c_str(), local);
        proto::HostIdle idle;
        idle.processes = local;
        send_to_client(job, proto::encode(idle));
        return;  // its spares stay: a replacement may still come here
    }
    if (!job.spares.empty()) return end_spares(job);  // their reaping comes back here
    FTMPI_DLOG("startup", "ftmpid: job %s: every rank has exited", job.id.c_str());
    if (!job.pipes_open()) return finish(job.id);
    if (job.drain_timer == 0) {
        // Something the ranks forked may still hold their pipes; do not wait for it forever.
        std::string id = job.id;
        job.drain_timer = loop_.add_timer(kDrainGrace, [this, id] { finish(id); });
    }
}

void JobSupervisor::finish(const std::string& job_id) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return;
    std::unique_ptr<Job> job = std::move(it->second);
    jobs_.erase(it);
    if (job->kill_timer != 0) loop_.cancel_timer(job->kill_timer);
    if (job->drain_timer != 0) loop_.cancel_timer(job->drain_timer);
    for (auto& r : job->ranks) {
        signal_rank(r, SIGKILL);  // leftovers in the ranks' process groups
        close_pipe(r, proto::OutputStream::out);
        close_pipe(r, proto::OutputStream::err);
        close_stdin(r);
        job_of_pid_.erase(r.pid);
    }
    end_spares(*job);  // none is left unless the drain timer ran out; spare_job_ reaps them
    fail_pending_requests(job->id);
    // Fences still waiting for other hosts: nobody is left to wait for them.
    for (auto& [key, fence] : job->pending_fences) fence.complete(PMIX_ERR_COMM_FAILURE);
    job->pending_fences.clear();
    proto::JobEnded end;
    if (job->outcome) {
        end = *job->outcome;
    } else {
        end.exit_code = completed_exit_code(*job);
        end.reason = proto::JobEndReason::completed;
    }
    FTMPID_INFO("job %s ended: exit code %d%s%s", job->id.c_str(), end.exit_code, end.message.empty() ? "" : ", ",
                end.message.c_str());
    if (job->client != 0) {
        control_.send(job->client, proto::encode(end));
        control_.close_after_flush(job->client);
    }
    if (!job->mirror) pmix_.deregister_job(job->pmix_nspace);
    if (on_job_finished_) on_job_finished_();
}

void JobSupervisor::shutdown_all() {
    std::vector<std::string> ids;
    for (auto& [id, job] : jobs_) ids.push_back(id);
    for (const auto& id : ids) {
        Job* job = job_by_id(id);
        if (job == nullptr) continue;
        proto::JobEnded end;
        end.exit_code = 1;
        end.reason = proto::JobEndReason::daemon_shutdown;
        end.message = "the daemon is shutting down";
        start_kill(*job, std::move(end));
    }
}

}  // namespace ftmpi::daemon
