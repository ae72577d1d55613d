// See remote_daemons.h.
#include "remote_daemons.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "ftmpi/debug_log.h"
#include "ftmpi_knobs/knobs.h"
#include "ftmpi_proto/hub_messages.h"
#include "ftmpi_proto/tcp_link.h"
#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::mpirun {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kAuthTimeoutMs = 5000;  // per connection; a silent peer cannot hold the rest long
constexpr auto kHelloTimeout = std::chrono::milliseconds(5000);
// How long a remote daemon gets to exit on its own once its link is closed before its launcher
// group is SIGKILLed. Longer than the daemon's own bound (its shutdown limit, and its link
// watchdog's 5 s grace after our close, which removes its run files before it exits): a daemon
// killed from here leaves its run directory on its host (/tmp/ftmpi-$UID), where mpirun cannot
// remove it (netns.lifecycle.init_death once found /tmp/ftmpi-0 left that way at the old 3 s,
// which is also the daemon's own shutdown limit).
constexpr auto kReapWait = std::chrono::seconds(10);

void warn(const std::string& line) {
    const std::string s = "ftmpi: " + line + "\n";
    (void)!write(STDERR_FILENO, s.data(), s.size());
}

std::string ftmpid_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    std::string self = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("./mpirun");
    return self.substr(0, self.rfind('/')) + "/ftmpid";
}

std::string exit_text(int status) {
    if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

RemoteDaemons::~RemoteDaemons() { close_and_reap(); }

LinkStatus RemoteDaemons::spawn_launcher(Launcher& l, const std::vector<std::string>& args,
                                         const std::string& secret_line, std::string& why) {
    int in[2];
    if (pipe2(in, O_CLOEXEC) != 0) {
        why = std::string("pipe: ") + std::strerror(errno);
        return LinkStatus::failed;
    }
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        // Own session: a Ctrl-C at the terminal reaches mpirun, which ends the job in order.
        setsid();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        signal(SIGPIPE, SIG_DFL);
        dup2(in[0], STDIN_FILENO);
        dup2(STDERR_FILENO, STDOUT_FILENO);  // nothing of a launcher mixes into the job's stdout
        execvp(argv[0], argv.data());
        const std::string msg = std::string("ftmpi: cannot run the launcher ") + argv[0] + ": " + std::strerror(errno) + "\n";
        (void)!write(STDERR_FILENO, msg.data(), msg.size());
        _exit(127);
    }
    close(in[0]);
    if (pid < 0) {
        close(in[1]);
        why = std::string("fork: ") + std::strerror(errno);
        return LinkStatus::failed;
    }
    l.pid = pid;
    // One line, then end of file: the daemon reads exactly the line (job_auth.h).
    signal(SIGPIPE, SIG_IGN);
    // A pipe: write(2), not send(2). A launcher that died shows up in waitpid.
    const char* p = secret_line.data();
    std::size_t left = secret_line.size();
    while (left > 0) {
        ssize_t n = write(in[1], p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    close(in[1]);
    return LinkStatus::ok;
}

bool RemoteDaemons::admit(int fd, const proto::JobSecret& secret, std::string& why) {
    if (proto::authenticate(fd, secret, proto::AuthRole::acceptor, kAuthTimeoutMs, why) != proto::ProtoStatus::ok) {
        why = "refused a connection that did not prove the job's secret: " + why;
        return false;
    }
    auto decoder = std::make_unique<proto::FrameDecoder>();
    proto::Frame f;
    proto::DaemonHello hello;
    proto::ProtoStatus st = proto::read_frame(fd, *decoder, f, kHelloTimeout);
    if (st == proto::ProtoStatus::ok) st = proto::decode(f, hello);
    if (st != proto::ProtoStatus::ok) {
        why = std::string("refused a daemon connection: no valid hello (") + proto::to_string(st) + ")";
        return false;
    }
    for (Launcher& l : launchers_) {
        if (l.host_index != hello.host_index) continue;
        if (l.connected) break;
        l.connected = true;
        RemoteLink link;
        link.host_index = hello.host_index;
        link.fd = fd;
        link.hostname = hello.hostname;
        link.pid = hello.pid;
        link.net_addr = hello.net_addr;
        link.decoder = std::move(decoder);
        links_.push_back(std::move(link));
        FTMPI_DLOG("startup", "mpirun: daemon of host %u (%s) connected", hello.host_index, hello.hostname.c_str());
        return true;
    }
    why = "refused a daemon connection for host index " + std::to_string(hello.host_index) +
          " (unknown or already connected)";
    return false;
}

LinkStatus RemoteDaemons::launch(const std::vector<RemoteHost>& hosts, const LauncherArgv& launcher,
                                 const RemoteOptions& opts, std::string& why) {
    opts_ = opts;
    std::uint16_t port = 0;
    if (proto::tcp_listen(opts.listen_addr, listen_fd_, port, why) != proto::ProtoStatus::ok) return LinkStatus::failed;
    secret_ = proto::make_job_secret();
    std::string secret_line = proto::secret_to_hex(secret_) + "\n";
    const std::string daemon = ftmpid_path();
    for (const RemoteHost& h : hosts) {
        // The launcher gives a clean environment: FTMPI_DEBUG (and the test hook that stalls a
        // daemon's loop, for the watchdog tests) must be said on the command line.
        std::vector<std::string> words;
        if (debug_log::enabled()) words = {"env", "FTMPI_DEBUG=1"};
        if (knobs::flag(knobs::Id::test_daemon_stall)) {
            if (words.empty()) words = {"env"};
            words.push_back("FTMPI_TEST_DAEMON_STALL=1");
        }
        words.insert(words.end(), {daemon, "--remote", "--connect", opts.listen_addr + ":" + std::to_string(port),
                                          "--host-index", std::to_string(h.host_index)});
        if (opts.heartbeat_period_ms > 0) {
            words.insert(words.end(), {"--heartbeat-period", std::to_string(opts.heartbeat_period_ms)});
        }
        if (opts.heartbeat_timeout_ms > 0) {
            words.insert(words.end(), {"--heartbeat-timeout", std::to_string(opts.heartbeat_timeout_ms)});
        }
        if (auto log = knobs::raw(knobs::Id::daemon_log)) {
            words.insert(words.end(), {"--log", *log + "." + std::to_string(h.host_index), "--verbose"});
        } else {
            words.emplace_back("--quiet");
        }
        Launcher l;
        l.host_index = h.host_index;
        l.name = h.name;
        if (spawn_launcher(l, launcher(h.name, words), secret_line, why) != LinkStatus::ok) return LinkStatus::failed;
        launchers_.push_back(l);
    }
    std::fill(secret_line.begin(), secret_line.end(), '\0');
    FTMPI_DLOG("startup", "mpirun: %zu remote daemons launched, waiting on %s:%u", hosts.size(),
               opts.listen_addr.c_str(), port);
    return LinkStatus::ok;
}

LinkStatus RemoteDaemons::wait_connected(std::string& why) {
    const RemoteOptions& opts = opts_;
    const auto deadline = Clock::now() + std::chrono::milliseconds(opts.connect_timeout_ms);
    while (links_.size() < launchers_.size()) {
        for (Launcher& l : launchers_) {
            int status = 0;
            if (!l.connected && l.pid > 0 && waitpid(l.pid, &status, WNOHANG) == l.pid) {
                l.pid = -1;
                why = "the launcher for host " + l.name + " " + exit_text(status) + " before its daemon connected";
                return LinkStatus::failed;
            }
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            for (const Launcher& l : launchers_) {
                if (l.connected) continue;
                why = "the daemon on host " + l.name + " did not connect back within " +
                      std::to_string(opts.connect_timeout_ms / 1000) + " s";
                break;
            }
            return LinkStatus::failed;
        }
        pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {opts.interrupt_fd, POLLIN, 0}};
        // Short waits: a launcher that dies (ssh: host unknown) is noticed at once.
        int rc = poll(fds, opts.interrupt_fd >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left, 50)));
        if (rc < 0 && errno != EINTR) {
            why = std::string("poll: ") + std::strerror(errno);
            return LinkStatus::failed;
        }
        if (rc > 0 && opts.interrupt_fd >= 0 && (fds[1].revents & POLLIN)) {
            why = "interrupted while starting the daemons";
            return LinkStatus::failed;
        }
        if (rc <= 0 || !(fds[0].revents & POLLIN)) continue;
        int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        // Small frames whose latency matters (a failure relayed to the other hosts): with
        // Nagle's algorithm one waited for the previous one's delayed ACK (~20 ms measured).
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        std::string admit_why;
        if (!admit(fd, secret_, admit_why)) {
            warn(admit_why);
            close(fd);
        }
    }
    close(listen_fd_);  // everybody is in; nothing joins later
    listen_fd_ = -1;
    return LinkStatus::ok;
}

void RemoteDaemons::close_and_reap() {
    if (listen_fd_ >= 0) {
        close(listen_fd_);
        listen_fd_ = -1;
    }
    for (RemoteLink& l : links_) {
        if (l.fd >= 0) close(l.fd);
        l.fd = -1;
    }
    // The daemons exit when their link closes, and their launchers with them.
    const auto deadline = Clock::now() + kReapWait;
    for (Launcher& l : launchers_) {
        while (l.pid > 0) {
            if (waitpid(l.pid, nullptr, WNOHANG) != 0) {
                l.pid = -1;
            } else if (Clock::now() >= deadline) {
                kill(-l.pid, SIGKILL);  // its own session: the whole launcher group
                waitpid(l.pid, nullptr, 0);
                l.pid = -1;
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        }
    }
    launchers_.clear();
    links_.clear();
}

}  // namespace ftmpi::mpirun
