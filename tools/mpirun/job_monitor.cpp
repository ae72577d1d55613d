// mpirun's event loop: poll over the daemon socket and a signalfd, with deadlines.
#include "job_monitor.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <optional>

#include "failure_report.h"
#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::mpirun {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kKillWait = std::chrono::seconds(5);  // daemon must confirm a kill by then

void say(const std::string& line) { write_fd(STDERR_FILENO, line.data(), line.size()); }

int normalize_exit(int code) {
    // Exit statuses are 8 bits; a non-zero code must not wrap to success.
    if (code != 0 && (code & 0xff) == 0) return 1;
    return code & 0xff;
}

}  // namespace

JobMonitor::JobMonitor(DaemonLink& link, double timeout_s) : link_(link), timeout_s_(timeout_s) {
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
    (void)proto::write_all(link_.fd(), proto::encode(kill));  // a dead daemon shows up as EOF
}

bool JobMonitor::handle_frame(const proto::Frame& f, int& exit_code) {
    switch (static_cast<proto::MsgType>(f.type)) {
        case proto::MsgType::output_chunk: {
            proto::OutputChunk m;
            if (proto::decode(f, m) == proto::ProtoStatus::ok) relay_->write(m.rank, m.stream, m.bytes);
            return false;
        }
        case proto::MsgType::rank_exited: {
            proto::RankExited m;
            if (proto::decode(f, m) == proto::ProtoStatus::ok && m.failed) {
                relay_->flush_partial();
                say(format_rank_failure(m, comm_mode_));
            }
            return false;
        }
        case proto::MsgType::abort_requested: {
            proto::AbortRequested m;
            if (proto::decode(f, m) == proto::ProtoStatus::ok) say(format_abort(m));
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
            if (m.reason == proto::JobEndReason::launch_failed) say("ftmpi: cannot launch the job: " + m.message + "\n");
            if (m.reason == proto::JobEndReason::daemon_shutdown) say("ftmpi: " + m.message + "; the job was killed\n");
            if (m.reason == proto::JobEndReason::killed && forced_exit_ < 0) say("ftmpi: job " + m.message + "\n");
            exit_code = forced_exit_ >= 0 ? forced_exit_ : normalize_exit(m.exit_code);
            return true;
        }
        case proto::MsgType::error_reply: {
            proto::ErrorReply m;
            (void)proto::decode(f, m);
            say("ftmpi: the daemon refused: " + m.message + "\n");
            exit_code = 1;
            return true;
        }
        default:
            return false;  // job_started and anything newer: nothing to do
    }
}

int JobMonitor::run(const proto::LaunchJob& launch) {
    comm_mode_ = launch.comm_mode;
    OutputRelay relay(launch.tag_output);
    relay_ = &relay;

    const int sigfd = sigfd_;
    if (proto::write_all(link_.fd(), proto::encode(launch)) != proto::ProtoStatus::ok) {
        say("ftmpi: lost connection to the daemon (ftmpid) while launching\n");
        return 1;
    }
    std::optional<Clock::time_point> timeout_at;
    if (timeout_s_ > 0)
        timeout_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
    std::optional<Clock::time_point> kill_deadline;

    for (;;) {
        auto now = Clock::now();
        if (timeout_at && !killing_ && now >= *timeout_at) {
            char msg[128];
            std::snprintf(msg, sizeof msg, "ftmpi: job exceeded --timeout %g s; killing it\n", timeout_s_);
            relay.flush_partial();
            say(msg);
            request_kill(proto::KillReason::timeout, kTimeoutExitCode);
            kill_deadline = now + kKillWait;
        }
        if (kill_deadline && now >= *kill_deadline) {
            say("ftmpi: the daemon did not confirm the end of the job; giving up\n");
            return forced_exit_ >= 0 ? forced_exit_ : 1;
        }
        int wait_ms = -1;
        auto consider = [&](const std::optional<Clock::time_point>& d) {
            if (!d) return;
            auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*d - now).count() + 1;
            if (wait_ms < 0 || ms < wait_ms) wait_ms = static_cast<int>(ms);
        };
        if (!killing_) consider(timeout_at);
        consider(kill_deadline);
        pollfd fds[2] = {{link_.fd(), POLLIN, 0}, {sigfd, POLLIN, 0}};
        int rc = poll(fds, sigfd >= 0 ? 2 : 1, wait_ms);
        if (rc < 0 && errno != EINTR) {
            say("ftmpi: poll failed\n");
            return 1;
        }
        if (rc <= 0) continue;
        if (sigfd >= 0 && (fds[1].revents & POLLIN)) {
            signalfd_siginfo si{};
            while (read(sigfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
                int sig = static_cast<int>(si.ssi_signo);
                if (killing_) return 128 + sig;  // second interrupt: the user really wants out
                say("ftmpi: interrupted by signal " + std::to_string(sig) + "; killing the job\n");
                request_kill(proto::KillReason::user_signal, 128 + sig);
                kill_deadline = Clock::now() + kKillWait;
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char buf[65536];
            ssize_t n = read(link_.fd(), buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0) {
                relay.flush_partial();
                say("ftmpi: lost connection to the daemon (ftmpid); the job's processes were killed with it\n");
                return forced_exit_ >= 0 ? forced_exit_ : 1;
            }
            link_.decoder().feed(buf, static_cast<std::size_t>(n));
            for (;;) {
                proto::Frame f;
                proto::ProtoStatus st = link_.decoder().next(f);
                if (st == proto::ProtoStatus::need_more) break;
                if (st != proto::ProtoStatus::ok) {
                    say(std::string("ftmpi: garbled data from the daemon: ") + proto::to_string(st) + "\n");
                    return 1;
                }
                int exit_code = 0;
                if (handle_frame(f, exit_code)) return exit_code;
            }
        }
    }
}

}  // namespace ftmpi::mpirun
