// mpirun's event loop: poll over the daemon links and a signalfd, with deadlines; it relays
// failures, fences, spawns and stdin between the daemons. How ends decide the job: job_outcome.cpp.
#include "job_monitor.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "exit_codes.h"
#include "failure_report.h"
#include "ftmpi/debug_log.h"
#include "host_failure.h"
#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::mpirun {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kKillWait = std::chrono::seconds(5);  // daemons must confirm a kill by then

std::uint64_t wall_ms() {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return static_cast<std::uint64_t>(tv.tv_sec) * 1000 + static_cast<std::uint64_t>(tv.tv_usec) / 1000;
}
}  // namespace

JobMonitor::JobMonitor(double timeout_s) : timeout_s_(timeout_s) {
    sigset_t mask;
    sigemptyset(&mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&mask, s);
    sigprocmask(SIG_BLOCK, &mask, nullptr);
    signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill mpirun (and with it the job)
    sigfd_ = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

JobMonitor::~JobMonitor() {
    if (sigfd_ >= 0) close(sigfd_);
}

void JobMonitor::request_kill(proto::KillReason reason, int exit_code) {
    killing_ = true;
    forced_exit_ = exit_code;
    proto::KillJob kill;
    kill.reason = reason;
    const auto frame = proto::encode(kill);
    for (const Spoke& s : spokes_)
        if (s.open && !s.ended) (void)proto::write_all(s.fd, frame);  // a dead daemon shows up as EOF
}

void JobMonitor::kill_others(std::size_t except) {
    killing_ = true;
    proto::KillJob kill;
    kill.reason = proto::KillReason::client_request;
    const auto frame = proto::encode(kill);
    for (std::size_t i = 0; i < spokes_.size(); ++i)
        if (i != except && spokes_[i].open && !spokes_[i].ended) (void)proto::write_all(spokes_[i].fd, frame);
}

void JobMonitor::relay_procs_failed(std::size_t from, const proto::Frame& f) {
    proto::ProcsFailed m;
    if (proto::decode(f, m) != proto::ProtoStatus::ok) return;
    FTMPI_DLOG("failure", "mpirun: host %u reports %zu failed process(es) (first %u); relaying",
               spokes_[from].host, m.ranks.size(), m.ranks.empty() ? 0u : m.ranks[0]);
    const auto frame = proto::encode(m);
    for (std::size_t i = 0; i < spokes_.size(); ++i)
        if (i != from && spokes_[i].open && !spokes_[i].ended) (void)proto::write_all(spokes_[i].fd, frame);
}

void JobMonitor::on_host_idle(std::size_t from, const proto::Frame& f) {
    proto::HostIdle m;
    if (proto::decode(f, m) != proto::ProtoStatus::ok) return;
    Spoke& s = spokes_[from];
    std::uint32_t placed = 0;
    for (std::uint32_t h : host_of_rank_) placed += h == s.host ? 1 : 0;
    // Sent before it heard of a placement on its host: it is not idle, and says so again later.
    if (m.processes != placed) return;
    s.idle = true;
    release_if_idle();
}

void JobMonitor::release_if_idle() {
    if (released_ || killing_ || decided_ || forced_exit_ >= 0 || respawn_.pending()) return;
    for (const Spoke& s : spokes_)
        if (s.open && !s.ended && !s.idle) return;
    released_ = true;
    FTMPI_DLOG("startup", "mpirun: every host is idle; releasing the job");
    const auto frame = proto::encode(proto::JobRelease{});
    for (const Spoke& s : spokes_)
        if (s.open && !s.ended) (void)proto::write_all(s.fd, frame);
}

void JobMonitor::on_spawn_request(std::size_t from, proto::SpawnRequest m) {
    const std::size_t before = host_of_rank_.size();
    const std::size_t base = m.base;
    const std::vector<std::uint32_t> replaces = proto::replaced_ranks(m.env);
    // Hot spares on live hosts take their indices; the rest are placed by load.
    static_assert(SpareHub::kNoHost == RespawnHub::kNoHost, "one 'no host' mark");
    std::vector<std::uint32_t> chosen;
    if (base >= before) chosen = spares_.claim(spokes_, m.base, m.count);
    respawn_.spawn_request(spokes_, from, std::move(m), host_of_rank_, chosen);
    if (!chosen.empty()) spares_.top_up(spokes_, SpareHub::kTopUpDelayMs);
    if (host_of_rank_.size() == before) return;
    // Index gaps (an interrupted rebuild) run nowhere; the new processes show the ranks they took.
    while (world_rank_of_.size() < host_of_rank_.size()) {
        const std::size_t p = world_rank_of_.size();
        std::size_t i = p >= base ? p - base : replaces.size();
        world_rank_of_.push_back(i < replaces.size() ? replaces[i] : static_cast<std::uint32_t>(p));
    }
    table_.changed();
}

void JobMonitor::forward_stdin() {
    char buf[65536];
    ssize_t n = read(stdin_fd_, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    proto::StdinChunk chunk;
    if (n > 0) {
        chunk.bytes.assign(buf, static_cast<std::size_t>(n));
    } else {
        chunk.eof = true;  // end of file (or an error: no more input either way)
        stdin_fd_ = -1;
    }
    const Spoke& s = spokes_[stdin_spoke_];
    if (s.open && !s.ended) (void)proto::write_all(s.fd, proto::encode(chunk));
}

bool JobMonitor::handle_frame(std::size_t from, const proto::Frame& f, int& exit_code) {
    switch (f.type) {
        case proto::kFenceContributionType: {
            proto::FenceContribution m;
            if (hub_ && proto::decode(f, m) == proto::ProtoStatus::ok) hub_->contribute(spokes_, from, std::move(m));
            return false;
        }
        case proto::kProcsFailedType:
            if (hub_) relay_procs_failed(from, f);
            return false;
        case proto::kHeartbeatType:
            return false;  // its arrival was the point (run_loop noted it)
        case proto::kHostIdleType:
            if (hub_) on_host_idle(from, f);
            return false;
        case proto::kSpawnRequestType: {
            proto::SpawnRequest m;
            if (hub_ && proto::decode(f, m) == proto::ProtoStatus::ok) {
                if (killing_ || decided_) return false;  // the job is ending: no answer needed
                on_spawn_request(from, std::move(m));
            }
            return false;
        }
        case proto::kSpawnStartedType: {
            proto::SpawnStarted m;
            if (hub_ && proto::decode(f, m) == proto::ProtoStatus::ok) respawn_.spawn_started(spokes_, from, m);
            return false;
        }
        case proto::kModexRequestType: {
            proto::ModexRequest m;
            if (hub_ && proto::decode(f, m) == proto::ProtoStatus::ok)
                respawn_.modex_request(spokes_, from, std::move(m), host_of_rank_);
            return false;
        }
        case proto::kModexReplyType: {
            proto::ModexReply m;
            if (hub_ && proto::decode(f, m) == proto::ProtoStatus::ok) respawn_.modex_reply(spokes_, m);
            return false;
        }
        case proto::kFailuresTrappedType: {
            proto::FailuresTrapped m;
            if (hub_ && proto::decode(f, m) == proto::ProtoStatus::ok && !failures_trapped_) {
                FTMPI_DLOG("failure", "mpirun: rank %u (host %s) left ABORT mode: a lost host is survived", m.rank,
                           spokes_[from].host_name.c_str());
                failures_trapped_ = true;
            }
            return false;
        }
        default:
            break;
    }
    switch (static_cast<proto::MsgType>(f.type)) {
        case proto::MsgType::output_chunk: {
            proto::OutputChunk m;
            if (proto::decode(f, m) == proto::ProtoStatus::ok)
                relay_->write(m.rank, m.stream, m.bytes, several_hosts() ? spokes_[from].host_name : std::string());
            return false;
        }
        case proto::MsgType::comm_report_relay: {
            proto::CommReportRelay m;
            if (several_hosts() && proto::decode(f, m) == proto::ProtoStatus::ok) table_.forward(proto::encode(m));
            return false;
        }
        case proto::MsgType::rank_exited: {
            proto::RankExited m;
            if (proto::decode(f, m) == proto::ProtoStatus::ok) on_rank_exited(from, m);
            return false;
        }
        case proto::MsgType::abort_requested: {
            proto::AbortRequested m;
            if (proto::decode(f, m) != proto::ProtoStatus::ok) return false;
            say(format_abort(m));
            if (several_hosts() && !decided_ && forced_exit_ < 0) {
                proto::JobEnded end;
                end.exit_code = m.code;
                end.reason = proto::JobEndReason::aborted;
                decided_ = end;
                kill_others(from);
            }
            return false;
        }
        case proto::MsgType::job_ended: {
            proto::JobEnded m;
            relay_->flush_partial();
            if (proto::decode(f, m) != proto::ProtoStatus::ok) {
                say("ftmpi: malformed reply from the daemon\n");
                exit_code = forced_exit_ >= 0 ? forced_exit_ : 1;
                return true;
            }
            return on_job_ended(from, m, exit_code);
        }
        case proto::MsgType::error_reply: {
            proto::ErrorReply m;
            (void)proto::decode(f, m);
            say("ftmpi: the daemon" + (several_hosts() ? " on host " + spokes_[from].host_name : std::string()) +
                " refused: " + m.message + "\n");
            if (several_hosts()) kill_others(from);
            exit_code = 1;
            return true;
        }
        default:
            return false;  // job_started and anything newer: nothing to do
    }
}

int JobMonitor::run(Spoke spoke, const proto::LaunchJob& launch) {
    spokes_.clear();
    spokes_.push_back(std::move(spoke));
    if (proto::write_all(spokes_[0].fd, proto::encode(launch)) != proto::ProtoStatus::ok) {
        say("ftmpi: lost connection to the daemon (ftmpid) while launching\n");
        return 1;
    }
    return run_loop(launch);
}

int JobMonitor::run(std::vector<Spoke> spokes, const std::vector<proto::JobSlice>& slices,
                    const proto::LaunchJob& launch) {
    spokes_ = std::move(spokes);
    hub_.emplace(slices.at(0).host_of_rank);
    host_of_rank_ = slices.at(0).host_of_rank;
    world_rank_of_.resize(host_of_rank_.size());
    for (std::size_t p = 0; p < world_rank_of_.size(); ++p) world_rank_of_[p] = static_cast<std::uint32_t>(p);
    for (std::size_t i = 0; i < spokes_.size(); ++i)
        if (spokes_[i].host == slices[0].host_of_rank.at(0)) stdin_spoke_ = i;
    const auto launch_frame = proto::encode(launch);
    for (std::size_t i = 0; i < spokes_.size(); ++i) {
        Spoke& s = spokes_[i];
        for (std::uint32_t h : slices[i].host_of_rank) s.ranks_alive += h == s.host ? 1 : 0;
        if (proto::write_all(s.fd, proto::encode(slices[i])) != proto::ProtoStatus::ok ||
            proto::write_all(s.fd, launch_frame) != proto::ProtoStatus::ok) {
            say("ftmpi: lost connection to the daemon on host " + s.host_name + " while launching\n");
            s.open = false;
            kill_others(i);
            return 1;
        }
    }
    if (liveness_) {
        const auto now = Clock::now();
        for (std::size_t i = 0; i < spokes_.size(); ++i)
            if (spokes_[i].remote) liveness_->watch(i, now);
    }
    for (Spoke& s : spokes_) s.last_heard_ms = wall_ms();  // each has just said hello
    spares_.start(spokes_, spares_wanted_, launch.nprocs);  // as on one host, in every mode
    return run_loop(launch);
}

int JobMonitor::run_loop(const proto::LaunchJob& launch) {
    comm_mode_ = launch.comm_mode;
    stdin_fd_ = launch.forward_stdin ? STDIN_FILENO : -1;
    OutputRelay relay(launch.tag_output);
    relay_ = &relay;

    const int sigfd = sigfd_;
    std::optional<Clock::time_point> timeout_at;
    if (timeout_s_ > 0)
        timeout_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
    std::optional<Clock::time_point> kill_deadline;

    std::vector<pollfd> fds;
    std::vector<std::size_t> spoke_of;  // fds[k] -> spoke index (k >= 1)
    for (;;) {
        auto now = Clock::now();
        if (timeout_at && !killing_ && now >= *timeout_at) {
            char msg[128];
            std::snprintf(msg, sizeof msg, "ftmpi: job exceeded --timeout %g s; killing it\n", timeout_s_);
            relay.flush_partial();
            say(msg);
            request_kill(proto::KillReason::timeout, kTimeoutExitCode);
        }
        if (killing_ && !kill_deadline) kill_deadline = now + kKillWait;
        if (kill_deadline && now >= *kill_deadline) {
            say("ftmpi: the daemon did not confirm the end of the job; giving up\n");
            if (forced_exit_ >= 0) return forced_exit_;
            return decided_ ? normalize_exit(decided_->exit_code) : 1;
        }
        int wait_ms = -1;
        auto consider = [&](const std::optional<Clock::time_point>& d) {
            if (!d) return;
            auto ms = std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(*d - now).count() + 1);
            if (wait_ms < 0 || ms < wait_ms) wait_ms = static_cast<int>(ms);
        };
        if (!killing_) consider(timeout_at);
        consider(kill_deadline);
        if (liveness_) {
            // Heartbeats due go out now; a link silent beyond the timeout is a lost host.
            const auto send = [this](std::size_t i, const std::vector<std::uint8_t>& frame) {
                return spokes_[i].open && proto::write_all(spokes_[i].fd, frame) == proto::ProtoStatus::ok;
            };
            const auto pending = [this](std::size_t i) {
                pollfd p{spokes_[i].fd, POLLIN, 0};
                return spokes_[i].open && poll(&p, 1, 0) > 0;
            };
            for (std::size_t lost : liveness_->tick(now, send, pending)) {
                int exit_code = 0;
                const long long silent = liveness_->config().timeout.count();
                if (spokes_[lost].open && on_host_lost(lost, proto::HostLoss::heartbeat_timeout, silent, exit_code))
                    return exit_code;
            }
            consider(liveness_->next_deadline());
        }
        if (several_hosts()) {
            table_.tick(spokes_, host_of_rank_, world_rank_of_, now);
            consider(table_.next_deadline());
        }
        fds.assign(1, pollfd{sigfd, POLLIN, 0});
        spoke_of.assign(1, 0);
        for (std::size_t i = 0; i < spokes_.size(); ++i) {
            if (!spokes_[i].open) continue;
            fds.push_back(pollfd{spokes_[i].fd, POLLIN, 0});
            spoke_of.push_back(i);
        }
        const std::size_t stdin_slot = fds.size();
        if (stdin_fd_ >= 0 && !killing_) fds.push_back(pollfd{stdin_fd_, POLLIN, 0});
        int rc = poll(fds.data(), fds.size(), wait_ms);
        if (rc < 0 && errno != EINTR) {
            say("ftmpi: poll failed\n");
            return 1;
        }
        if (rc <= 0) continue;
        if (sigfd >= 0 && (fds[0].revents & POLLIN)) {
            signalfd_siginfo si{};
            while (read(sigfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
                int sig = static_cast<int>(si.ssi_signo);
                if (killing_ && forced_exit_ >= 0) return 128 + sig;  // second interrupt: the user really wants out
                say("ftmpi: interrupted by signal " + std::to_string(sig) + "; killing the job\n");
                request_kill(proto::KillReason::user_signal, 128 + sig);
                kill_deadline = Clock::now() + kKillWait;
            }
        }
        if (stdin_slot < fds.size() && (fds[stdin_slot].revents & (POLLIN | POLLHUP | POLLERR))) forward_stdin();
        for (std::size_t k = 1; k < stdin_slot; ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const std::size_t from = spoke_of[k];
            Spoke& s = spokes_[from];
            char buf[65536];
            ssize_t n = read(s.fd, buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            int exit_code = 0;
            if (n <= 0) {
                if (on_spoke_lost(from, exit_code)) return exit_code;
                continue;
            }
            if (liveness_) liveness_->heard(from, Clock::now());
            if (s.remote) s.last_heard_ms = wall_ms();
            s.decoder->feed(buf, static_cast<std::size_t>(n));
            for (;;) {
                proto::Frame f;
                proto::ProtoStatus st = s.decoder->next(f);
                if (st == proto::ProtoStatus::need_more) break;
                if (st != proto::ProtoStatus::ok) {
                    say(std::string("ftmpi: garbled data from the daemon") +
                        (several_hosts() ? " on host " + s.host_name : std::string()) + ": " + proto::to_string(st) +
                        "\n");
                    if (!several_hosts()) return 1;
                    if (on_spoke_lost(from, exit_code)) return exit_code;
                    break;
                }
                if (handle_frame(from, f, exit_code)) return exit_code;
            }
        }
    }
}

}  // namespace ftmpi::mpirun
