// ftmpid as a whole: wires the control socket, the signalfd, the PMIx upcall queue and the job
// supervisor into one event loop, and owns the run directory (socket, token, PMIx tmpdir).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "control_server.h"
#include "core_binder.h"
#include "event_loop.h"
#include "hub_liveness.h"
#include "ftmpi_proto/job_auth.h"
#include "job_supervisor.h"
#include "launcher_watch.h"
#include "monitor_socket.h"
#include "pmix_host.h"
#include "signal_source.h"
#include "upcall_queue.h"

namespace ftmpi::daemon {

struct DaemonOptions {
    std::string socket_path;   // control socket; the token goes to "<socket>.token"
    bool private_mode = false; // serve one launcher, exit when its job has ended
    int ready_fd = -1;         // written "ready\n" once clients can connect, then closed
    int watch_fd = -1;         // end of file here: the launcher is gone (launcher_watch.h)
    bool test_stall = false;   // tests only: the loop stops working after a launch
    bool bind_cores = true;
    // --remote: a daemon started on another host by mpirun's launcher (issue 15). It reads the
    // job's secret from stdin, connects back to mpirun at `connect` (ADDR:PORT), proves the
    // secret, serves that one connection (private_mode is implied) in its own run directory.
    bool remote = false;
    std::string connect;
    std::uint32_t host_index = 0;
    int heartbeat_period_ms = 0;   // 0: the defaults (host-failure detection)
    int heartbeat_timeout_ms = 0;
};

class Daemon {
public:
    explicit Daemon(DaemonOptions opts) : opts_(std::move(opts)) {}
    ~Daemon();

    // Exit status for main(): 0 after a clean stop.
    int run();

private:
    Status start(std::string& why);
    // --remote (daemon_hub.cpp): before start(), the secret and a fresh run directory;
    // after it, the link to mpirun.
    Status prepare_remote(std::string& why);
    Status connect_to_hub(std::string& why);
    void on_hub_frame(std::uint64_t client, proto::Frame& f);  // several-hosts messages
    void on_signals();
    void on_control_frame(std::uint64_t client, proto::Frame&& f);
    void check_private_exit();
    void begin_shutdown(const char* why);
    void remove_run_files();
    LastResortCleanup last_resort_cleanup() const;  // what a watchdog removes for a stuck loop
    void answer_query(std::uint64_t client, const proto::Frame& f);

    DaemonOptions opts_;
    EventLoop loop_;
    SignalSource signals_;
    UpcallQueue upcalls_;
    CoreBinder binder_;
    std::unique_ptr<PmixHost> pmix_;
    std::unique_ptr<ControlServer> control_;
    std::unique_ptr<JobSupervisor> jobs_;
    std::unique_ptr<MonitorSocket> monitor_;
    LauncherWatch launcher_watch_;
    std::string registry_file_;
    std::uint64_t start_ms_ = 0;
    std::string token_path_;
    std::string pmix_tmpdir_;
    bool shutting_down_ = false;
    // Private mode: the connections that launched a job. Once the job is over and they are
    // gone, nothing else (a tool, an idle connection) keeps the daemon alive.
    std::set<std::uint64_t> launchers_;
    bool ever_launched_ = false;
    bool listening_ = false;
    proto::JobSecret job_secret_;   // --remote: read from stdin, zeroed after the handshake
    std::uint64_t hub_client_ = 0;  // --remote: the link to mpirun; its end is the daemon's end
    // --remote: heartbeats to mpirun; its silence beyond the timeout ends the daemon like a
    // closed link (self-fencing, hub_liveness.h).
    std::unique_ptr<HubLiveness> hub_liveness_;
};

}  // namespace ftmpi::daemon
