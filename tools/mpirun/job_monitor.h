// mpirun's main loop once the daemons are reached: launch, relay output, report failures,
// enforce --timeout, turn Ctrl-C/SIGTERM into a kill request, and compute the exit code.
//
// It serves a set of daemon links (spoke.h): one for a job on one host (exactly the path
// and messages of before), one per host for a job on several hosts, where mpirun is also the
// hub that relays fences (fence_hub.h) and failures between the daemons and combines their
// results into one exit code by the rules of daemon/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fence_hub.h"
#include "ftmpi_proto/host_messages.h"
#include "host_liveness.h"
#include "host_table_feed.h"
#include "respawn_hub.h"
#include "spare_hub.h"
#include "ftmpi_proto/hub_messages.h"
#include "ftmpi_proto/messages.h"
#include "output_relay.h"
#include "spoke.h"

namespace ftmpi::mpirun {

class JobMonitor {
public:
    // Blocks SIGINT/SIGTERM/SIGHUP at once (into a signalfd), so that a Ctrl-C while the
    // daemons are still being reached is not lost but kills the job once it exists.
    explicit JobMonitor(double timeout_s);
    ~JobMonitor();
    JobMonitor(const JobMonitor&) = delete;
    JobMonitor& operator=(const JobMonitor&) = delete;

    // One host: returns mpirun's exit code. Never waits forever: a silent or dead daemon is reported.
    int run(Spoke spoke, const proto::LaunchJob& launch);
    // Several hosts: slices[i] goes to spokes[i] before the launch.
    int run(std::vector<Spoke> spokes, const std::vector<proto::JobSlice>& slices, const proto::LaunchJob& launch);

    // Several hosts: heartbeats on the remote links (host_liveness.h). Call before run().
    void set_heartbeat(proto::HeartbeatConfig config) { liveness_.emplace(config); }

    // Several hosts: where the host table for the tools goes (the local daemon's connection:
    // the job's own when ranks run here, else a job_mirror one). Call before run().
    void set_host_table_sink(int fd) { table_.set_sink(fd); }

    // Several hosts: K hot spares spread over the hosts (spare_hub.h). Call before run().
    void set_spares(std::uint32_t k) noexcept { spares_wanted_ = k; }

    // The signalfd: readable when mpirun was interrupted (RemoteDaemons gives up on it).
    int signal_fd() const noexcept { return sigfd_; }

    // Exit code used when --timeout expires (like timeout(1)).
    static constexpr int kTimeoutExitCode = 124;

private:
    int run_loop(const proto::LaunchJob& launch);
    // Returns true when the job is over and `exit_code` is final.
    bool handle_frame(std::size_t from, const proto::Frame& f, int& exit_code);
    bool on_job_ended(std::size_t from, const proto::JobEnded& m, int& exit_code);
    bool on_spoke_lost(std::size_t from, int& exit_code);
    // Several hosts: a host's link closed or fell silent. Its ranks are declared failed to the
    // other daemons in one host_failed (ABORT mode, unless the application left it: the job
    // ends). True when the job is over.
    bool on_host_lost(std::size_t from, proto::HostLoss cause, long long silence_ms, int& exit_code);
    void on_rank_exited(std::size_t from, const proto::RankExited& m);
    void relay_procs_failed(std::size_t from, const proto::Frame& f);
    void on_host_idle(std::size_t from, const proto::Frame& f);
    // Several hosts: every daemon idle or gone and no placement pending: job_release to all.
    void release_if_idle();
    void on_spawn_request(std::size_t from, proto::SpawnRequest m);
    void request_kill(proto::KillReason reason, int exit_code);
    void kill_others(std::size_t except);
    // launch.forward_stdin: mpirun's stdin, read as it comes, goes to rank 0's daemon.
    void forward_stdin();
    // Several hosts: the job's exit code once every daemon has ended (README exit rules).
    int combined_exit_code() const;
    bool several_hosts() const noexcept { return hub_.has_value(); }

    double timeout_s_;
    proto::CommMode comm_mode_ = proto::CommMode::abort;
    // Several hosts, launched in ABORT mode: a daemon said a rank left it (failures_trapped):
    // a lost host is then declared and survived as in the other modes (job_outcome.cpp).
    bool failures_trapped_ = false;
    std::vector<Spoke> spokes_;
    std::optional<FenceHub> hub_;
    std::optional<HostLiveness> liveness_;
    RespawnHub respawn_;
    SpareHub spares_;
    std::uint32_t spares_wanted_ = 0;
    std::vector<std::uint32_t> host_of_rank_;  // several hosts: the placement (index = rank)
    std::vector<std::uint32_t> world_rank_of_;  // index = process; a replacement shows the rank it took
    HostTableFeed table_;
    bool released_ = false;
    OutputRelay* relay_ = nullptr;
    bool killing_ = false;
    int forced_exit_ = -1;  // set when mpirun itself ended the job (timeout, signal)
    // Several hosts: the first daemon result that decides the job (a failure in ABORT mode,
    // MPI_Abort, a launch failure), and the first rank failure (exit code when none survives).
    std::optional<proto::JobEnded> decided_;
    std::optional<proto::RankExited> first_failure_;
    int sigfd_ = -1;
    int stdin_fd_ = -1;          // STDIN_FILENO while forwarding, -1 after its end
    std::size_t stdin_spoke_ = 0;  // the daemon of rank 0
};

}  // namespace ftmpi::mpirun
