// Application process creation. Everything the child needs is prepared before fork(): after
// fork in a multithreaded process (PMIx runs threads) only async-signal-safe calls are allowed.
#include "rank_launcher.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ftmpi::daemon {

namespace {

std::string env_value(const std::vector<std::string>& env, const char* name) {
    std::size_t len = std::strlen(name);
    for (const auto& e : env) {
        if (e.size() > len && e.compare(0, len, name) == 0 && e[len] == '=') return e.substr(len + 1);
    }
    return {};
}

bool is_executable_file(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::vector<char*> c_array(const std::vector<std::string>& v) {
    std::vector<char*> out;
    out.reserve(v.size() + 1);
    for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
    out.push_back(nullptr);
    return out;
}

[[noreturn]] void child_fail(int err_fd, const char* what, const std::string& exe) {
    // write() is async-signal-safe; the message reaches mpirun through the stderr pipe.
    int e = errno;
    const char* msg = strerror(e);
    (void)!write(err_fd, "ftmpi: cannot ", 14);
    (void)!write(err_fd, what, strlen(what));
    (void)!write(err_fd, " ", 1);
    (void)!write(err_fd, exe.c_str(), exe.size());
    (void)!write(err_fd, ": ", 2);
    (void)!write(err_fd, msg, strlen(msg));
    (void)!write(err_fd, "\n", 1);
    _exit(127);
}

}  // namespace

std::string resolve_executable(const std::string& name, const std::vector<std::string>& env, const std::string& cwd,
                               std::string& why) {
    if (name.empty()) {
        why = "no program given";
        return {};
    }
    if (name.find('/') != std::string::npos) {
        std::string path = name[0] == '/' ? name : cwd + "/" + name;
        if (is_executable_file(path)) return path;
        why = "'" + name + "' is not an executable file";
        return {};
    }
    std::string search = env_value(env, "PATH");
    if (search.empty()) search = "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= search.size()) {
        std::size_t end = search.find(':', start);
        if (end == std::string::npos) end = search.size();
        std::string dir = search.substr(start, end - start);
        if (dir.empty()) dir = ".";
        if (dir[0] != '/') dir = cwd + "/" + dir;
        std::string path = dir + "/" + name;
        if (is_executable_file(path)) return path;
        start = end + 1;
    }
    why = "'" + name + "' not found in PATH";
    return {};
}

Status spawn_rank(const RankLaunchPlan& plan, SpawnedRank& out, std::string& why) {
    int out_pipe[2] = {-1, -1};
    int err_pipe[2] = {-1, -1};
    int in_pipe[2] = {-1, -1};
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0 || pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
        (plan.stdin_pipe && pipe2(in_pipe, O_CLOEXEC) != 0)) {
        why = std::string("cannot create pipes: ") + std::strerror(errno);
        for (int fd : {devnull, out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], in_pipe[0], in_pipe[1]})
            if (fd >= 0) close(fd);
        return Status::spawn_failed;
    }
    std::vector<char*> argv = c_array(plan.argv);
    std::vector<char*> envp = c_array(plan.env);
    const pid_t parent = getpid();

    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        // The daemon blocks these for its signalfd and ignores SIGPIPE; both would otherwise
        // be inherited across exec.
        sigprocmask(SIG_UNBLOCK, &plan.unblock, nullptr);
        signal(SIGPIPE, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);  // the daemon died before prctl took effect
        dup2(in_pipe[0] >= 0 ? in_pipe[0] : devnull, STDIN_FILENO);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        // A hot spare keeps its assignment pipe at kSpareFd (dup2 clears close-on-exec; when it
        // is there already, clear it by hand).
        unsigned first_closed = 3u;
        if (plan.wait_fd >= 0) {
            if (plan.wait_fd == kSpareFd) fcntl(kSpareFd, F_SETFD, 0);
            else if (dup2(plan.wait_fd, kSpareFd) < 0) child_fail(STDERR_FILENO, "pass the spare's pipe to", plan.executable);
            first_closed = kSpareFd + 1;
        }
        // PMIx's own sockets may lack close-on-exec; the application must not inherit them.
        syscall(SYS_close_range, first_closed, ~0u, 0u);
        if (plan.bind) sched_setaffinity(0, sizeof plan.cpus, &plan.cpus);
        if (!plan.cwd.empty() && chdir(plan.cwd.c_str()) != 0) child_fail(STDERR_FILENO, "enter directory", plan.cwd);
        execve(plan.executable.c_str(), argv.data(), envp.data());
        child_fail(STDERR_FILENO, "execute", plan.executable);
    }
    int saved = errno;
    close(devnull);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (in_pipe[0] >= 0) close(in_pipe[0]);
    if (pid < 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        if (in_pipe[1] >= 0) close(in_pipe[1]);
        why = std::string("fork failed: ") + std::strerror(saved);
        return Status::spawn_failed;
    }
    setpgid(pid, pid);  // also from the parent, so a kill(-pid) right after fork cannot miss
    fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
    out.pid = pid;
    out.out_fd = out_pipe[0];
    out.err_fd = err_pipe[0];
    if (in_pipe[1] >= 0) fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
    out.in_fd = in_pipe[1];
    return Status::ok;
}

}  // namespace ftmpi::daemon
