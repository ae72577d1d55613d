// Finding, starting and authenticating to ftmpid.
#include "daemon_link.h"

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "ftmpi_knobs/knobs.h"
#include "ftmpi_proto/auth_token.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/state.h"
#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::mpirun {

namespace {

constexpr auto kHandshakeTimeout = std::chrono::seconds(5);
constexpr int kStartupTimeoutMs = 15000;

std::string own_directory() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    std::string path(buf, static_cast<std::size_t>(n));
    return path.substr(0, path.rfind('/'));
}

// Reads the daemon's one-line start-up verdict from the ready pipe.
std::string read_ready_line(int fd) {
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartupTimeoutMs);
    while (line.find('\n') == std::string::npos) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return "error: the daemon did not start within 15 s";
        pollfd p{fd, POLLIN, 0};
        int rc = poll(&p, 1, static_cast<int>(left.count()));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) continue;
        char buf[512];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return line.empty() ? "error: the daemon exited during start-up" : line;
        line.append(buf, static_cast<std::size_t>(n));
    }
    return line.substr(0, line.find('\n'));
}

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

}  // namespace

DaemonLink::~DaemonLink() { close_and_reap(); }

LinkStatus DaemonLink::connect_or_start(std::string& why) {
    std::string ignored;
    if (try_connect(proto::default_socket_path(), ignored) == LinkStatus::ok) return LinkStatus::ok;
    return start_private(why);
}

LinkStatus DaemonLink::try_connect(const std::string& socket_path, std::string& why) {
    // A daemon is only believed in a directory that is ours alone; anything in a directory
    // another user could write to may be theirs (a fake daemon, a FIFO at the token path).
    if (proto::check_private_dir(socket_path.substr(0, socket_path.rfind('/')), why) != proto::ProtoStatus::ok)
        return LinkStatus::failed;
    std::string token;
    if (proto::token_read(proto::token_path_for_socket(socket_path), token, why) != proto::ProtoStatus::ok)
        return LinkStatus::failed;
    int fd = -1;
    if (proto::unix_connect(socket_path, fd) != proto::ProtoStatus::ok) {
        why = "cannot connect to " + socket_path + ": " + std::strerror(errno);
        return LinkStatus::failed;
    }
    proto::Hello hello;
    hello.token = token;
    proto::Frame reply;
    proto::HelloAck ack;
    decoder_ = proto::FrameDecoder();
    proto::ProtoStatus st = proto::write_all(fd, proto::encode(hello));
    if (st == proto::ProtoStatus::ok) st = proto::read_frame(fd, decoder_, reply, kHandshakeTimeout);
    if (st == proto::ProtoStatus::ok) st = proto::decode(reply, ack);
    if (st != proto::ProtoStatus::ok) {
        why = "daemon at " + socket_path + " refused the connection (" + proto::to_string(st) + ")";
        close(fd);
        return LinkStatus::failed;
    }
    fd_ = fd;
    daemon_pid_ = ack.daemon_pid;
    return LinkStatus::ok;
}

LinkStatus DaemonLink::start_private(std::string& why) {
    // The usual place is our base directory. If its name is taken by something we must not use
    // (another user's directory, a symlink, a file), the job neither waits nor fails: mkdtemp
    // beside it makes a fresh directory that only we can enter.
    const std::string base = proto::runtime_base_dir();
    std::vector<char> dir;
    bool made = false;
    // Retried: a private daemon that just ended removes the base directory when it is empty.
    for (int attempt = 0; attempt < 3 && !made; ++attempt) {
        std::string dir_template = base + "/run-XXXXXX";
        std::string base_why;
        if (proto::ensure_private_dir(base, base_why) != proto::ProtoStatus::ok)
            dir_template = base + "-run-XXXXXX";
        dir.assign(dir_template.begin(), dir_template.end());
        dir.push_back('\0');
        made = mkdtemp(dir.data()) != nullptr;
        if (!made && errno != ENOENT) break;
    }
    if (!made) {
        why = "cannot create a private run directory under " + base + ": " + std::strerror(errno);
        return LinkStatus::failed;
    }
    const std::string socket_path = std::string(dir.data()) + "/ftmpid.sock";
    const std::string daemon = own_directory() + "/ftmpid";
    if (access(daemon.c_str(), X_OK) != 0) {
        rmdir(dir.data());
        why = "no running daemon and cannot find " + daemon;
        return LinkStatus::failed;
    }
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0) {
        why = std::string("pipe: ") + std::strerror(errno);
        return LinkStatus::failed;
    }
    // Its read end goes to the daemon (--watch-fd); the write end stays open in mpirun only,
    // until mpirun ends by any path, SIGKILL included (daemon/src/launcher_watch.h).
    int watch[2];
    if (pipe2(watch, O_CLOEXEC) != 0) {
        why = std::string("pipe: ") + std::strerror(errno);
        close(ready[0]);
        close(ready[1]);
        return LinkStatus::failed;
    }
    // Build argv before fork; only async-signal-safe calls happen in the child.
    std::vector<std::string> args = {daemon, "--private", "--socket", socket_path, "--ready-fd", "3", "--watch-fd", "4"};
    if (auto log = knobs::raw(knobs::Id::daemon_log)) {
        args.emplace_back("--log");
        args.emplace_back(*log);
        args.emplace_back("--verbose");
    } else {
        args.emplace_back("--quiet");  // the user's terminal is the daemon's stderr
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    pid_t pid = fork();
    if (pid == 0) {
        // Own session: a Ctrl-C at the terminal reaches mpirun, which ends the job in order;
        // the daemon must not die first.
        setsid();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);  // mpirun blocks signals for its signalfd
        signal(SIGPIPE, SIG_DFL);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            dup2(devnull, STDOUT_FILENO);
        }
        // Moved out of the way first so that placing one cannot overwrite the other.
        int ready_fd = fcntl(ready[1], F_DUPFD_CLOEXEC, 10);
        int watch_fd = fcntl(watch[0], F_DUPFD_CLOEXEC, 10);
        if (ready_fd < 0 || watch_fd < 0) _exit(127);
        dup2(ready_fd, 3);  // dup2 clears close-on-exec on the copy
        dup2(watch_fd, 4);
        execv(daemon.c_str(), argv.data());
        _exit(127);
    }
    close(ready[1]);
    close(watch[0]);
    if (pid < 0) {
        close(ready[0]);
        close(watch[1]);
        why = std::string("fork: ") + std::strerror(errno);
        return LinkStatus::failed;
    }
    private_pid_ = pid;
    private_dir_ = dir.data();
    watch_fd_ = watch[1];
    std::string verdict = read_ready_line(ready[0]);
    close(ready[0]);
    if (verdict != "ready") {
        why = "cannot start ftmpid: " + (verdict.rfind("error: ", 0) == 0 ? verdict.substr(7) : verdict);
        kill(pid, SIGKILL);
        close_and_reap();
        return LinkStatus::failed;
    }
    return try_connect(socket_path, why);
}

void DaemonLink::close_and_reap() {
    if (fd_ >= 0) {
        close(fd_);
        fd_ = -1;
    }
    if (watch_fd_ >= 0) {
        close(watch_fd_);
        watch_fd_ = -1;
    }
    if (private_pid_ <= 0) return;
    // The daemon exits as soon as it sees us gone; give it a moment, then insist.
    bool exited = false;
    for (int i = 0; i < 300 && !exited; ++i) {
        exited = waitpid(private_pid_, nullptr, WNOHANG) != 0;
        if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!exited) {
        // Says so: a daemon that cannot end on its own is a bug to report, not a quiet delay.
        const std::string line = "ftmpi: the private daemon (pid " + std::to_string(private_pid_) +
                                 ") did not exit within 3 s of the job's end; killing it\n";
        (void)!write(STDERR_FILENO, line.data(), line.size());
        kill(private_pid_, SIGKILL);
        waitpid(private_pid_, nullptr, 0);
    }
    // Normally the daemon removed its files already; not if it crashed or was killed (above,
    // when stuck): mpirun outlives it, so mpirun removes what it would have (issue 16 item 4):
    // its run directory, its registry file, and the per-user directories when nobody else uses
    // them (rmdir fails on one that is not empty; whoever creates in them retries).
    unlink(proto::daemon_registry_file(private_pid_).c_str());
    private_pid_ = -1;
    if (private_dir_.empty()) return;
    nftw(private_dir_.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (private_dir_.substr(0, private_dir_.rfind('/')) == proto::runtime_base_dir()) {
        rmdir(proto::daemon_registry_dir().c_str());
        rmdir(proto::runtime_base_dir().c_str());
    }
    private_dir_.clear();
}

}  // namespace ftmpi::mpirun
