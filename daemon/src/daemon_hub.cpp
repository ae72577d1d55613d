// A daemon's side of a job on several hosts (issue 15).
//
// ftmpid --remote: the daemon mpirun starts on another host through its launcher (ssh, srun,
// --launcher-exec). It gets the job's secret on stdin (never argv or the environment, which
// other users can read in /proc), opens a fresh private run directory, connects back to
// mpirun, proves the secret (proto::authenticate) and then serves that one link as a private
// daemon serves its mpirun: the same frames, plus the several-hosts ones (hub_messages.h).
// The link is its tie to the job: when it closes, the daemon kills its ranks, removes its
// files and exits; a watchdog thread ends the process if the loop cannot.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "daemon.h"
#include "ftmpi/debug_log.h"
#include "ftmpi_proto/host_messages.h"
#include "ftmpi_proto/hub_messages.h"
#include "ftmpi_proto/job_auth.h"
#include "ftmpi_proto/state.h"
#include "ftmpi_proto/tcp_link.h"
#include "ftmpi_proto/unix_socket.h"
#include "last_resort_cleanup.h"
#include "log.h"

namespace ftmpi::daemon {

namespace {

constexpr int kSecretTimeoutMs = 10000;   // the launcher writes it at once
constexpr int kConnectTimeoutMs = 10000;
constexpr int kAuthTimeoutMs = 10000;
constexpr auto kWatchdogGrace = std::chrono::seconds(5);

// The loop's own reaction to the closed link is the normal path; this thread is the last
// resort when the loop is stuck. It only polls for the peer's hang-up (never reads: the loop
// owns the bytes), then gives the loop `grace`, ends the ranks and removes their segments and
// the run files (what remove_run_files() removes, or /tmp/ftmpi-$UID would stay on the host)
// and exits.
void hub_watchdog(int fd, std::chrono::milliseconds grace, LastResortCleanup cleanup) {
    for (;;) {
        pollfd p{fd, POLLRDHUP, 0};
        int rc = poll(&p, 1, -1);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return;
        if (p.revents != 0) break;
    }
    std::this_thread::sleep_for(grace);
    static const char msg[] = "ftmpid: mpirun's link closed and the daemon did not stop in time; exiting\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    cleanup.run();
    _exit(1);
}

}  // namespace

Status Daemon::prepare_remote(std::string& why) {
    opts_.private_mode = true;
    if (proto::read_secret_line(STDIN_FILENO, kSecretTimeoutMs, job_secret_, why) != proto::ProtoStatus::ok) {
        why = "no job secret on standard input: " + why;
        return Status::system_error;
    }
    // A run directory of its own, whatever else runs on this host.
    const std::string base = proto::runtime_base_dir();
    std::vector<char> dir;
    bool made = false;
    // Retried: another job's daemon that just ended removes the base directory when empty.
    for (int attempt = 0; attempt < 3 && !made; ++attempt) {
        std::string dir_template = base + "/run-XXXXXX";
        std::string base_why;
        if (proto::ensure_private_dir(base, base_why) != proto::ProtoStatus::ok) dir_template = base + "-run-XXXXXX";
        dir.assign(dir_template.begin(), dir_template.end());
        dir.push_back('\0');
        made = mkdtemp(dir.data()) != nullptr;
        if (!made && errno != ENOENT) break;
    }
    if (!made) {
        why = "cannot create a run directory under " + base + ": " + std::strerror(errno);
        return Status::system_error;
    }
    opts_.socket_path = std::string(dir.data()) + "/ftmpid.sock";
    return Status::ok;
}

Status Daemon::connect_to_hub(std::string& why) {
    int fd = -1;
    if (proto::tcp_connect(opts_.connect, kConnectTimeoutMs, fd, why) != proto::ProtoStatus::ok)
        return Status::system_error;
    const proto::ProtoStatus auth = proto::authenticate(fd, job_secret_, proto::AuthRole::connector, kAuthTimeoutMs, why);
    job_secret_.key.fill(0);  // only this one handshake needs it
    if (auth != proto::ProtoStatus::ok) {
        why = "mpirun at " + opts_.connect + " did not prove the job's secret: " + why;
        close(fd);
        return Status::system_error;
    }
    proto::DaemonHello hello;
    hello.host_index = opts_.host_index;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    hello.hostname = host;
    hello.pid = getpid();
    hello.net_addr = proto::tcp_local_address(fd);
    if (proto::write_all(fd, proto::encode(hello)) != proto::ProtoStatus::ok) {
        why = "lost mpirun's link right after connecting";
        close(fd);
        return Status::system_error;
    }
    int watch_fd = dup(fd);
    try {
        const std::string run_dir = opts_.socket_path.substr(0, opts_.socket_path.rfind('/'));
        const std::string base = proto::runtime_base_dir();
        const bool in_base = run_dir.substr(0, run_dir.rfind('/')) == base;
        if (watch_fd >= 0)
            std::thread(hub_watchdog, watch_fd, kWatchdogGrace,
                        LastResortCleanup(run_dir, registry_file_, in_base ? proto::daemon_registry_dir() : std::string(),
                                          in_base ? base : std::string()))
                .detach();
    } catch (...) {
        FTMPID_WARN("cannot start the link watchdog");
    }
    hub_client_ = control_->adopt(fd);
    FTMPID_INFO("connected to mpirun at %s as host %u", opts_.connect.c_str(), opts_.host_index);
    proto::HeartbeatConfig beat;
    if (opts_.heartbeat_period_ms > 0) beat.period = std::chrono::milliseconds(opts_.heartbeat_period_ms);
    if (opts_.heartbeat_timeout_ms > 0) beat.timeout = std::chrono::milliseconds(opts_.heartbeat_timeout_ms);
    hub_liveness_ = std::make_unique<HubLiveness>(
        loop_, beat, fcntl(fd, F_DUPFD_CLOEXEC, 0), [this](std::vector<std::uint8_t> frame) { control_->send(hub_client_, std::move(frame)); },
        [this, timeout_ms = static_cast<long long>(beat.timeout.count())](std::chrono::milliseconds silence) {
            // Self-fencing: cut off from mpirun, this host's ranks must not go on alone. Closing
            // the link takes the closed-link path: kill the ranks, remove the files, exit.
            FTMPID_WARN("mpirun silent for %lld ms (heartbeat timeout %lld ms): killing this host's ranks and "
                        "exiting", static_cast<long long>(silence.count()),
                        timeout_ms);
            control_->close_now(hub_client_, "mpirun fell silent");
        });
    return Status::ok;
}

// Several-hosts frames, from mpirun (on a remote daemon's TCP link or the local daemon's Unix
// socket). A malformed one ends the connection, as for every control frame.
void Daemon::on_hub_frame(std::uint64_t client, proto::Frame& f) {
    proto::ProtoStatus st = proto::ProtoStatus::wrong_type;
    switch (f.type) {
        case proto::kJobSliceType: {
            proto::JobSlice m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->set_slice(client, std::move(m));
            break;
        }
        case proto::kFenceResultType: {
            proto::FenceResult m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->fence_result(client, std::move(m));
            break;
        }
        case proto::kProcsFailedType: {
            proto::ProcsFailed m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->remote_procs_failed(client, m);
            break;
        }
        case proto::kHeartbeatType:
            return;  // its arrival was the point (on_control_frame noted it)
        case proto::kHostFailedType: {
            proto::HostFailed m;
            // A rank's `traps_failures` record sent before this frame came counts (job_hub_link.cpp).
            if (monitor_) monitor_->drain();
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->host_failed(client, m);
            break;
        }
        case proto::kSpawnPlaceType: {
            proto::SpawnPlace m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->spawn_place(client, m);
            break;
        }
        case proto::kSpareIndicesType: {
            proto::SpareIndices m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->spare_indices(client, m);
            break;
        }
        case proto::kSpawnDoneType: {
            proto::SpawnDone m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->spawn_done(client, m);
            break;
        }
        case proto::kModexRequestType: {
            proto::ModexRequest m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->modex_request(client, m);
            break;
        }
        case proto::kModexReplyType: {
            proto::ModexReply m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->modex_reply(client, m);
            break;
        }
        case proto::kJobReleaseType: {
            proto::JobRelease m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->release(client);
            break;
        }
        case proto::kStdinChunkType: {
            proto::StdinChunk m;
            if ((st = proto::decode(f, m)) == proto::ProtoStatus::ok) jobs_->stdin_data(client, m);
            break;
        }
        default:
            FTMPID_WARN("client %llu: ignoring unsupported message type 0x%04x", static_cast<unsigned long long>(client),
                        f.type);
            return;
    }
    if (st == proto::ProtoStatus::ok) return;
    FTMPID_WARN("client %llu: malformed message 0x%04x: %s", static_cast<unsigned long long>(client), f.type,
                proto::to_string(st));
    control_->close_after_flush(client);
}

}  // namespace ftmpi::daemon
