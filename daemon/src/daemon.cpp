// Start-up, dispatch and shutdown of ftmpid.
#include "daemon.h"

#include <ftw.h>
#include <sys/prctl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "ftmpi/debug_log.h"
#include "ftmpi_proto/auth_token.h"
#include "ftmpi_proto/hub_messages.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/state.h"
#include "ftmpi_proto/unix_socket.h"
#include "log.h"
#include "pmix_handshake_reply.h"

namespace ftmpi::daemon {

namespace {

constexpr auto kPrivateIdleLimit = std::chrono::seconds(30);  // launcher never showed up
constexpr auto kShutdownLimit = std::chrono::seconds(3);
constexpr auto kWatchdogMargin = std::chrono::seconds(2);  // beyond kShutdownLimit: the loop is stuck

std::string dir_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

}  // namespace

Daemon::~Daemon() {
    monitor_.reset();
    jobs_.reset();
    control_.reset();
    if (pmix_) pmix_->finalize();
    remove_run_files();
}

Status Daemon::start(std::string& why) {
    // Signals first: PMIx_server_init starts threads, which must inherit the blocked mask.
    if (!signals_.open() || !loop_.ok() || !upcalls_.ok()) {
        why = std::string("cannot set up the event loop: ") + std::strerror(errno);
        return Status::system_error;
    }
    // Orphans of the ranks (things they forked) become our children, so the daemon reaps them
    // instead of leaving zombies to a container's init that may never reap.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    const std::string dir = dir_of(opts_.socket_path);
    if (proto::ensure_private_dir(dir, why) != proto::ProtoStatus::ok) return Status::system_error;

    std::string token;
    token_path_ = proto::token_path_for_socket(opts_.socket_path);
    if (proto::token_generate(token) != proto::ProtoStatus::ok) {
        why = "cannot generate the daemon token";
        return Status::system_error;
    }
    pmix_tmpdir_ = dir + "/pmix-" + std::to_string(getpid());
    if (proto::ensure_private_dir(pmix_tmpdir_, why) != proto::ProtoStatus::ok) return Status::system_error;

    FTMPI_DLOG("startup", "ftmpid: loading the hwloc topology");
    if (!binder_.init()) FTMPID_WARN("hwloc topology unavailable; ranks will not be bound to cores");
    FTMPI_DLOG("startup", "ftmpid: PMIx server init");
    pmix_ = std::make_unique<PmixHost>(upcalls_);
    if (Status st = pmix_->init(pmix_tmpdir_, binder_.topology(), why); st != Status::ok) return st;
    FTMPI_DLOG("startup", "ftmpid: PMIx server ready");

    control_ = std::make_unique<ControlServer>(loop_, token);
    jobs_ = std::make_unique<JobSupervisor>(loop_, *pmix_, binder_, *control_, signals_.blocked(), opts_.bind_cores);
    jobs_->set_forward_reports(opts_.remote);  // the tools run on mpirun's host
    control_->set_handlers({
        [this](std::uint64_t c, proto::Frame&& f) { on_control_frame(c, std::move(f)); },
        [this](std::uint64_t c) {
            if (c == hub_client_ && hub_client_ != 0) begin_shutdown("the link to mpirun is closed");
            launchers_.erase(c);
            jobs_->client_gone(c);
            check_private_exit();
        },
        [this](std::uint64_t c) { jobs_->client_drained(c); },
    });
    jobs_->set_on_job_finished([this] { check_private_exit(); });
    start_ms_ = wall_clock_ms();
    // Communicator reports from the ranks (for cominfo); without it the tools show no comms.
    monitor_ = std::make_unique<MonitorSocket>(loop_, [this](const std::uint8_t* d, std::size_t n, pid_t pid) {
        jobs_->handle_report(d, n, pid);
    });
    {
        std::string mwhy;
        if (monitor_->open(dir + "/monitor-" + std::to_string(getpid()) + ".sock", mwhy) == Status::ok)
            jobs_->set_monitor_socket(monitor_->path());
        else
            FTMPID_WARN("no communicator reports: %s", mwhy.c_str());
    }

    // The token must exist before the socket accepts anyone, or a fast client could race it.
    if (proto::token_write(token_path_, token) != proto::ProtoStatus::ok) {
        why = "cannot write " + token_path_;
        return Status::system_error;
    }
    if (Status st = control_->listen(opts_.socket_path, why); st != Status::ok) return st;
    listening_ = true;
    // Let cominfo/hostinfo find this daemon (private ones included).
    {
        std::string rwhy;
        const std::string reg = proto::daemon_registry_dir();
        // A few tries: a private daemon that just ended removes these directories when empty.
        for (int attempt = 0; attempt < 3 && registry_file_.empty(); ++attempt) {
            if (proto::ensure_private_dir(reg.substr(0, reg.rfind('/')), rwhy) != proto::ProtoStatus::ok ||
                proto::ensure_private_dir(reg, rwhy) != proto::ProtoStatus::ok)
                break;
            const std::string file = proto::daemon_registry_file(getpid());
            std::ofstream out(file, std::ios::trunc);
            if (!out) continue;
            out << opts_.socket_path << "\n";
            chmod(file.c_str(), 0600);
            registry_file_ = file;
        }
    }

    loop_.add_fd(signals_.fd(), EPOLLIN, [this](std::uint32_t) { on_signals(); });
    loop_.add_fd(upcalls_.fd(), EPOLLIN, [this](std::uint32_t) {
        for (Upcall& u : upcalls_.drain()) jobs_->handle_upcall(u);
    });
    if (opts_.remote) {
        // No pipe from mpirun here: the TCP link is the tie (connect_to_hub watches it).
    } else if (opts_.watch_fd >= 0 &&
               !launcher_watch_.start(loop_, opts_.watch_fd, kShutdownLimit + kWatchdogMargin, last_resort_cleanup(),
                                      [this] { begin_shutdown("the launcher is gone"); })) {
        why = "cannot watch the launcher";
        return Status::system_error;
    }
    if (opts_.private_mode) {
        loop_.add_timer(kPrivateIdleLimit, [this] {
            if (!ever_launched_) begin_shutdown("no job launched");
        });
    }
    return Status::ok;
}

int Daemon::run() {
    std::string why;
    Status st = opts_.remote ? prepare_remote(why) : Status::ok;
    if (st == Status::ok) st = start(why);
    if (st == Status::ok && opts_.remote) st = connect_to_hub(why);
    FTMPI_DLOG("startup", "ftmpid: listening, telling mpirun");
    if (opts_.ready_fd >= 0) {
        std::string msg = st == Status::ok ? "ready\n" : "error: " + why + "\n";
        ssize_t ignored = write(opts_.ready_fd, msg.data(), msg.size());
        (void)ignored;
        close(opts_.ready_fd);
    }
    if (st != Status::ok) {
        FTMPID_ERROR("%s", why.c_str());
        return 1;
    }
    FTMPID_INFO("listening on %s%s", opts_.socket_path.c_str(), opts_.private_mode ? " (private)" : "");
    return loop_.run() ? 0 : 1;
}

void Daemon::on_signals() {
    for (int sig : signals_.read_pending()) {
        if (sig == SIGCHLD) {
            // What a rank said before it exited is judged before its exit: its `finalized`
            // record (monitor socket) and PMIx's finalize upcall, both already queued.
            if (monitor_) monitor_->drain();
            for (Upcall& u : upcalls_.drain()) jobs_->handle_upcall(u);
            jobs_->reap_children();
        } else if (sig == SIGHUP) {
            FTMPID_INFO("SIGHUP ignored");
        } else {
            begin_shutdown(sig == SIGTERM ? "SIGTERM" : "SIGINT");
        }
    }
}

void Daemon::on_control_frame(std::uint64_t client, proto::Frame&& f) {
    if (hub_liveness_ && client == hub_client_) hub_liveness_->heard();  // any frame: mpirun lives
    if ((f.type >= proto::kJobSliceType && f.type <= proto::kJobReleaseType) ||
        (f.type >= proto::kHeartbeatType && f.type <= proto::kSpareIndicesType))
        return on_hub_frame(client, f);
    switch (static_cast<proto::MsgType>(f.type)) {
        case proto::MsgType::launch_job: {
            proto::LaunchJob m;
            if (proto::decode(f, m) != proto::ProtoStatus::ok) break;
            if (shutting_down_) {
                proto::ErrorReply err{"the daemon is shutting down"};
                control_->send(client, proto::encode(err));
                control_->close_after_flush(client);
                return;
            }
            launchers_.insert(client);
            ever_launched_ = true;
            jobs_->launch(client, std::move(m));
            if (opts_.test_stall) {
                // Tests of the launcher watchdog: a loop that never comes back, as in a
                // deadlock. Every signal is blocked for the signalfd, so pause() never returns.
                FTMPID_WARN("FTMPI_TEST_DAEMON_STALL: the loop stops here");
                for (;;) pause();
            }
            return;
        }
        case proto::MsgType::query_state:
            answer_query(client, f);
            return;
        case proto::MsgType::host_table_update: {
            proto::HostTableUpdate m;
            if (proto::decode(f, m) != proto::ProtoStatus::ok) break;
            if (!jobs_->set_host_table(client, std::move(m.hosts)))
                FTMPID_WARN("client %llu: host table for no job of its own, ignored",
                            static_cast<unsigned long long>(client));
            return;
        }
        case proto::MsgType::job_mirror: {
            proto::JobMirror m;
            if (proto::decode(f, m) != proto::ProtoStatus::ok) break;
            if (shutting_down_ || !jobs_->mirror(client, m)) {
                FTMPID_WARN("client %llu: job mirror refused", static_cast<unsigned long long>(client));
                return;
            }
            // Its mpirun is this daemon's launcher: a private daemon lives as long as it.
            launchers_.insert(client);
            ever_launched_ = true;
            return;
        }
        case proto::MsgType::comm_report_relay: {
            proto::CommReportRelay m;
            if (proto::decode(f, m) != proto::ProtoStatus::ok) break;
            jobs_->relay_report(client, m);
            return;
        }
        case proto::MsgType::kill_job: {
            proto::KillJob m;
            if (proto::decode(f, m) != proto::ProtoStatus::ok) break;
            jobs_->kill_request(client, m.reason);
            return;
        }
        default:
            // Newer clients may send messages this daemon does not know; skip them.
            FTMPID_WARN("client %llu: ignoring unsupported message type 0x%04x",
                        static_cast<unsigned long long>(client), f.type);
            return;
    }
    FTMPID_WARN("client %llu: malformed %s message", static_cast<unsigned long long>(client),
                proto::to_string(static_cast<proto::MsgType>(f.type)));
    proto::ErrorReply err{"malformed message"};
    control_->send(client, proto::encode(err));
    control_->close_after_flush(client);
}

void Daemon::check_private_exit() {
    // Stop only once the launchers have received their job_ended (connections close after it).
    if (shutting_down_ && jobs_->job_count() == 0 && control_->connection_count() == 0) {
        loop_.stop();
        return;
    }
    // A private daemon serves exactly one launcher: once it has been served and gone, exit,
    // whoever else is still connected (issue 16 item 3: no idle connection keeps it alive).
    if (opts_.private_mode && ever_launched_ && jobs_->job_count() == 0 && launchers_.empty()) loop_.stop();
}

void Daemon::begin_shutdown(const char* why) {
    if (shutting_down_) return;
    shutting_down_ = true;
    FTMPID_INFO("shutting down (%s)", why);
    if (unsigned long n = pmix_handshake_replies_to_the_dead())
        FTMPID_INFO("%lu PMIx handshake replies went to clients that had died inside the handshake", n);
    jobs_->shutdown_all();
    loop_.add_timer(kShutdownLimit, [this] { loop_.stop(); });
    check_private_exit();
}

void Daemon::answer_query(std::uint64_t client, const proto::Frame& f) {
    proto::Snapshot snap;
    proto::HostInfo& h = snap.host;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    h.hostname = host;
    h.address = opts_.socket_path;
    h.daemon_pid = getpid();
    h.private_daemon = opts_.private_mode;
    h.start_ms = start_ms_;
    h.now_ms = wall_clock_ms();
    h.ncores = std::thread::hardware_concurrency();
    double load[3] = {0, 0, 0};
    if (std::FILE* fp = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(fp, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = load[1] = load[2] = 0;
        std::fclose(fp);
    }
    for (int i = 0; i < 3; ++i) h.load_x100[i] = static_cast<std::uint32_t>(load[i] * 100 + 0.5);
    // Payload: optional u32 flags; bit 0 asks for per-process CPU times (reads /proc).
    const bool with_cpu = f.payload.size() >= 4 && (f.payload[0] & 1u);
    jobs_->snapshot(snap.jobs, with_cpu);
    control_->send(client, proto::encode(snap));
}

LastResortCleanup Daemon::last_resort_cleanup() const {
    // The same names remove_run_files() removes (a shared daemon's directory is not its own).
    const bool in_base = opts_.private_mode && dir_of(dir_of(opts_.socket_path)) == proto::runtime_base_dir();
    return LastResortCleanup(opts_.private_mode ? dir_of(opts_.socket_path) : std::string(), registry_file_,
                             in_base ? proto::daemon_registry_dir() : std::string(),
                             in_base ? proto::runtime_base_dir() : std::string());
}

void Daemon::remove_run_files() {
    if (!registry_file_.empty()) unlink(registry_file_.c_str());
    if (listening_) {
        unlink(opts_.socket_path.c_str());
        listening_ = false;
    }
    if (!token_path_.empty()) unlink(token_path_.c_str());
    if (!pmix_tmpdir_.empty()) nftw(pmix_tmpdir_.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    // A private daemon's directory was made for it alone.
    if (opts_.private_mode) rmdir(dir_of(opts_.socket_path).c_str());
    // A private or remote daemon leaves nothing on its host (issue 15): also the per-user
    // directories, when nobody else uses them (rmdir fails on a directory that is not empty;
    // whoever creates in them retries when they vanish under it).
    if (opts_.private_mode && dir_of(dir_of(opts_.socket_path)) == proto::runtime_base_dir()) {
        rmdir(proto::daemon_registry_dir().c_str());
        rmdir(proto::runtime_base_dir().c_str());
    }
}

}  // namespace ftmpi::daemon
