// Runs jobs: launch through PMIx + fork/exec, output relay, exit tracking, the exit rules, and
// killing. Called only from the event loop (control frames, SIGCHLD, PMIx upcalls, timers).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "control_server.h"
#include "core_binder.h"
#include "event_loop.h"
#include "ftmpi_proto/host_messages.h"
#include "job.h"
#include "pmix_host.h"
#include "upcall_queue.h"

namespace ftmpi::daemon {

// FTMPI_SPARES in a job's environment (0 when absent); the largest process index a spare gets.
std::uint32_t spares_requested(const std::vector<std::string>& env);
constexpr std::uint32_t kMaxSpareIndex = 65535;  // PMIx local ranks are 16 bits

class JobSupervisor {
public:
    JobSupervisor(EventLoop& loop, PmixHost& pmix, const CoreBinder& binder, ControlServer& control,
                  const sigset_t& blocked_signals, bool bind_cores);
    ~JobSupervisor();

    void launch(std::uint64_t client, proto::LaunchJob spec);
    // Several hosts (job_hub_link.cpp): the slice that the next launch on `client` runs, the
    // fence data mpirun gathered, and failures of processes on other hosts.
    void set_slice(std::uint64_t client, proto::JobSlice slice);
    // mpirun's word that every host of the job is idle: this host's part ends now.
    void release(std::uint64_t client);
    void fence_result(std::uint64_t client, proto::FenceResult result);
    void remote_procs_failed(std::uint64_t client, const proto::ProcsFailed& failed);
    // A whole host of the job was lost (host_messages.h): one event for all its processes.
    void host_failed(std::uint64_t client, const proto::HostFailed& lost);
    // REBUILD across hosts (job_respawn.cpp): mpirun's placement of new processes, its answer
    // to our spawn request, and direct-modex requests/replies relayed through it.
    void spawn_place(std::uint64_t client, const proto::SpawnPlace& m);
    void spare_indices(std::uint64_t client, const proto::SpareIndices& m);
    void spawn_done(std::uint64_t client, const proto::SpawnDone& m);
    void modex_request(std::uint64_t client, const proto::ModexRequest& m);
    void modex_reply(std::uint64_t client, const proto::ModexReply& m);
    // mpirun's stdin for rank 0 (job_stdin.cpp). Never blocks the loop.
    void stdin_data(std::uint64_t client, const proto::StdinChunk& chunk);
    void kill_request(std::uint64_t client, proto::KillReason reason);
    void client_gone(std::uint64_t client);
    void client_drained(std::uint64_t client);
    void reap_children();  // after SIGCHLD
    void handle_upcall(Upcall& u);
    void shutdown_all();   // the daemon is stopping: kill every job

    std::size_t job_count() const noexcept { return jobs_.size(); }

    // State table for the tools (job_state.cpp). A report is a datagram from a rank; `sender`
    // is the pid the kernel vouches for, which must be that rank's or in its process group.
    void set_monitor_socket(std::string path) { monitor_socket_ = std::move(path); }
    void handle_report(const std::uint8_t* data, std::size_t n, pid_t sender);
    // Several hosts: a remote daemon passes the reports it accepted to mpirun; mpirun's local
    // daemon takes them (comm_report_relay) for the job of that mpirun.
    void set_forward_reports(bool on) { forward_reports_ = on; }
    void relay_report(std::uint64_t client, const proto::CommReportRelay& m);
    void snapshot(std::vector<proto::JobInfo>& out, bool with_cpu) const;
    // mpirun's host table for the job this client launched (kept for the tools); false when
    // the client runs no job here.
    bool set_host_table(std::uint64_t client, std::vector<proto::JobHost> hosts);
    // A job of this client that runs no process here (job_mirror), for the tools; false when
    // the client runs a job here already or the id is taken.
    bool mirror(std::uint64_t client, const proto::JobMirror& m);
    // Called after a job has ended and been removed.
    void set_on_job_finished(std::function<void()> f) { on_job_finished_ = std::move(f); }

private:
    Job* job_by_id(const std::string& id);
    void apply_report(Job& job, proto::CommReport rep);  // a checked report into the job's table
    Job* job_by_nspace(const std::string& nspace);  // PMIx upcalls name the secret namespace
    Job* job_for_client(std::uint64_t client);
    void send_to_client(Job& job, std::vector<std::uint8_t> frame);
    void refuse_launch(std::uint64_t client, int exit_code, const std::string& why);
    std::vector<std::string> build_env(const Job& job, const RankProc& rank,
                                       const std::vector<std::string>& pmix_env) const;
    // Sends the local part of a fence of a job on several hosts to mpirun and keeps the upcall
    // until fence_result brings everybody's data.
    void forward_fence(Job& job, Upcall& u);
    // Tells mpirun that a local process failed while the job goes on (it tells the others).
    void report_failure_to_hub(Job& job, const RankProc& rank);
    // Marks other hosts' processes exited and failed; returns those newly marked, or nothing
    // when no process of this host is left to tell.
    std::vector<std::uint32_t> mark_remote_failed(Job& job, const std::vector<std::uint32_t>& ranks);
    // Several hosts (job_respawn.cpp): a spawn or direct-modex upcall goes to mpirun and waits.
    void forward_spawn(Job& job, Upcall& u);
    void forward_modex(Job& job, Upcall& u);
    void modex_answer(Upcall& u);
    void fail_pending_requests(const std::string& job_id);

    // fork/exec of one process of the job (launch and REBUILD replacements).
    Status start_process(Job& job, RankProc& rank, const std::vector<std::string>& pmix_env,
                         const std::vector<std::string>& extra_env, std::string& why);
    void spawn_replacements(Upcall& u);

    // Hot spares (job_spares.cpp). start_spares tops the job up to spares_wanted on the next
    // free process indices; assign_spare hands the spare on `index` the rank (false: none
    // there, start a process instead); spares_after_spawn moves the next index past a
    // rebuild's and schedules the top-up; reap_spare is true when `pid` was a spare.
    // Binding (job_binding.cpp): the core for one more process of `job` (-1: none), the
    // --report-bindings line and FTMPI_DEBUG line once it runs, and binding a running spare.
    int core_for_new_process(const Job& job, std::uint32_t not_yet_listed) const;
    void report_binding(Job& job, const RankProc& rank);
    void bind_taken_spare(Job& job, RankProc& rank);  // rank: in job.ranks already
    void start_spares(Job& job);
    Status start_spare(Job& job, std::uint32_t index, std::string& why);
    bool assign_spare(Job& job, std::uint32_t index, std::uint32_t world_rank, const std::vector<std::string>& env);
    // The spare on process index `into.rank` becomes `into` (pid, pipes; the caller watches
    // its pipes once `into` is in job.ranks); false: no spare there or it could not be told.
    bool take_spare(Job& job, RankProc& into, const std::vector<std::string>& env);
    // Registers with PMIx the new processes from index `base` (one per entry of `envs`) that
    // run here and that no waiting spare takes, before any spare hears its rank (job_spares.cpp
    // says why); registered[i] says which were.
    Status register_before_spares(Job& job, std::uint32_t base, const std::function<bool(std::uint32_t)>& here,
                                  std::vector<std::vector<std::string>>& envs, std::vector<bool>& registered,
                                  std::string& why);
    void spares_after_spawn(Job& job, std::uint32_t base, std::uint32_t count);
    void retire_spares_below(Job& job, std::uint32_t index);
    void retire_spare(Job& job, std::uint32_t index, const char* why);
    // Several hosts (job_spares_hub.cpp): mpirun names the indices this host's spares sit on.
    void start_spares_at(const std::string& job_id, const std::vector<std::uint32_t>& indices);
    void end_spares(Job& job);  // the job is ending: kill them, start no more
    bool reap_spare(pid_t pid, int status);
    void on_rank_exit(Job& job, RankProc& rank);
    void start_kill(Job& job, proto::JobEnded outcome);
    void escalate_kill(const std::string& job_id);
    void maybe_finish(Job& job);
    void finish(const std::string& job_id);

    // Output relay (job_output.cpp).
    void watch_pipes(Job& job, RankProc& rank);
    void on_pipe_readable(const std::string& job_id, std::uint32_t rank, proto::OutputStream stream);
    // Reads what is available (at most `max_reads` reads); closes the pipe at EOF.
    void pump(Job& job, RankProc& rank, proto::OutputStream stream, int max_reads);
    void close_pipe(RankProc& rank, proto::OutputStream stream);
    void pause_output(Job& job);
    void flush_stdin(RankProc& rank);
    void close_stdin(RankProc& rank);
    void resume_output(Job& job);

    EventLoop& loop_;
    PmixHost& pmix_;
    const CoreBinder& binder_;
    ControlServer& control_;
    sigset_t blocked_signals_;
    bool bind_cores_;
    std::string hostname_;
    std::uint64_t next_job_seq_ = 1;
    std::unordered_map<std::string, std::unique_ptr<Job>> jobs_;
    std::unordered_map<std::uint64_t, proto::JobSlice> pending_slices_;
    // Upcalls waiting for mpirun (several hosts), by our request number, with their job's id.
    std::uint32_t next_request_ = 1;
    std::unordered_map<std::uint32_t, std::pair<std::string, Upcall>> pending_spawns_;
    std::unordered_map<std::uint32_t, std::pair<std::string, Upcall>> pending_modex_;
    std::unordered_map<pid_t, std::string> job_of_pid_;
    std::unordered_map<pid_t, std::string> spare_job_;  // a waiting spare's pid -> its job, until reaped
    std::function<void()> on_job_finished_;
    std::string monitor_socket_;
    bool forward_reports_ = false;
};

}  // namespace ftmpi::daemon
