// Exit accounting of a job (see the exit rules in daemon/README.md).
#include "job.h"

#include <sys/time.h>
#include <sys/wait.h>

#include <cstring>

namespace ftmpi::daemon {

bool Job::all_exited() const {
    for (const auto& r : ranks)
        if (!r.exited && !r.remote) return false;
    return true;
}

bool Job::pipes_open() const {
    for (const auto& r : ranks)
        if (r.out_fd >= 0 || r.err_fd >= 0) return true;
    return false;
}

RankProc* Job::find_pid(pid_t pid) {
    for (auto& r : ranks)
        if (r.pid == pid) return &r;
    return nullptr;
}

bool Job::others_alive(std::uint32_t rank) const {
    for (const auto& r : ranks)
        if (r.rank != rank && !r.exited) return true;
    return false;
}

bool rank_failed(const RankProc& r) {
    if (WIFSIGNALED(r.wait_status)) return true;
    if (WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) != 0) return true;
    return r.connected && !r.finalized;
}

int failure_exit_code(const RankProc& r) {
    if (WIFSIGNALED(r.wait_status)) return 128 + WTERMSIG(r.wait_status);
    if (WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) != 0) return WEXITSTATUS(r.wait_status);
    return 1;
}

proto::RankExited describe_exit(const RankProc& r, bool job_continues) {
    proto::RankExited m;
    m.rank = r.world_rank;
    m.pid = r.pid;
    m.signaled = WIFSIGNALED(r.wait_status);
    m.code = m.signaled ? WTERMSIG(r.wait_status) : WEXITSTATUS(r.wait_status);
    m.connected = r.connected;
    m.finalized = r.finalized;
    m.failed = r.failed;
    m.job_continues = job_continues;
    m.time_ms = r.exit_time_ms;
    return m;
}

int completed_exit_code(const Job& job) {
    if (job.finalized_error_code) return *job.finalized_error_code;
    for (const auto& r : job.ranks)
        if (!r.failed && !r.remote) return 0;
    return job.first_failure_code.value_or(1);
}

std::string describe_failure(const RankProc& r) {
    std::string s = "rank " + std::to_string(r.world_rank) + " (pid " + std::to_string(r.pid) + ") ";
    if (WIFSIGNALED(r.wait_status)) {
        int sig = WTERMSIG(r.wait_status);
        const char* name = strsignal(sig);
        s += "killed by signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
    } else if (WEXITSTATUS(r.wait_status) != 0) {
        s += "exited with status " + std::to_string(WEXITSTATUS(r.wait_status));
    } else {
        s += "exited without calling MPI_Finalize";
    }
    return s;
}

std::uint64_t wall_clock_ms() {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return static_cast<std::uint64_t>(tv.tv_sec) * 1000u + static_cast<std::uint64_t>(tv.tv_usec) / 1000u;
}

}  // namespace ftmpi::daemon
