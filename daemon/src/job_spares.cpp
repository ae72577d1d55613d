// Hot spares (issue 17 item 5; the library's side: ftmpi/src/spare_wait.cpp).
//
// With FTMPI_SPARES=K in a job's environment (mpirun --spares K) the daemon keeps K extra
// processes of the job's program that block inside MPI_Init, outside MPI_COMM_WORLD. A spare is
// a PMIx client of the job's namespace on a process index the survivors have not handed out
// yet: the survivors of a REBUILD give the replacements the next indices in order (rebuild.h),
// and the spares sit on exactly those (next_spare_index), so a spare already IS the process
// the survivors ask for: its PMIx rank, namespace and published address are right. Handing it
// the rank is one write on its pipe (the FTMPI_* variables a started replacement would get);
// from there MPI_Init runs the replacement's join. REBUILD no longer waits for a process start.
//
// Rules: a spare's exit is never a rank failure (no event, no report); one that was killed or
// had connected to PMIx is restarted on its index, one that exited before connecting (a program
// that does not call MPI_Init) is not. Indices the survivors skipped (an interrupted rebuild) retire their spares. Spares are
// topped up shortly after a repair, not during it (the repair needs the cores). When every rank
// has exited, or the job is killed, the spares are killed and the job ends once they are reaped.
#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include "ftmpi/debug_log.h"
#include "ftmpi_knobs/knobs.h"
#include "job_supervisor.h"
#include "log.h"
#include "rank_launcher.h"

namespace ftmpi::daemon {

namespace {

// After a repair took a spare, the new one starts this much later, off the repair's path.
constexpr auto kTopUpDelay = std::chrono::milliseconds(100);
// A program that keeps killing its spares is not given new ones for ever.
constexpr std::uint32_t kMaxRestarts = 64;

void close_fd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

}  // namespace

std::uint32_t spares_requested(const std::vector<std::string>& env) {
    constexpr char kName[] = "FTMPI_SPARES=";
    for (const auto& e : env) {
        if (e.compare(0, sizeof kName - 1, kName) != 0) continue;
        const auto v = knobs::parse(knobs::knob(knobs::Id::spares), e.substr(sizeof kName - 1));
        return v ? static_cast<std::uint32_t>(v->integer) : 0;  // mpirun refused bad values already
    }
    return 0;
}

void JobSupervisor::start_spares(Job& job) {
    if (job.phase != JobPhase::running) return;
    std::uint32_t failures = 0;
    while (job.spares.size() < job.spares_wanted && job.next_spare_index < kMaxSpareIndex && failures < 3) {
        std::string why;
        const std::uint32_t index = job.next_spare_index++;
        if (start_spare(job, index, why) != Status::ok) {
            ++failures;
            FTMPID_WARN("job %s: cannot start a hot spare: %s", job.id.c_str(), why.c_str());
        }
    }
}

Status JobSupervisor::start_spare(Job& job, std::uint32_t index, std::string& why) {
    std::vector<std::string> pmix_env;
    if (Status st = pmix_.prepare_client(job.pmix_nspace, index, getuid(), getgid(), pmix_env, why); st != Status::ok)
        return st;
    int assign[2] = {-1, -1};
    if (pipe2(assign, O_CLOEXEC) != 0) {
        why = std::string("cannot create a pipe: ") + std::strerror(errno);
        return Status::spawn_failed;
    }
    RankProc as;  // what a replacement on this index would be (job_launch.cpp)
    as.rank = as.world_rank = as.local_rank = index;  // a local rank no process of this host has
    RankLaunchPlan plan;
    plan.executable = job.exe;
    plan.argv = job.spec.argv;
    plan.env = build_env(job, as, pmix_env);
    plan.env.push_back("FTMPI_SPARE_FD=" + std::to_string(kSpareFd));
    plan.cwd = job.spec.cwd;
    plan.unblock = blocked_signals_;
    plan.bind = false;  // it waits without using a CPU; bound when it takes a rank (bind_taken_spare)
    plan.wait_fd = assign[0];
    SpawnedRank spawned;
    const Status st = spawn_rank(plan, spawned, why);
    close(assign[0]);
    if (st != Status::ok) {
        close(assign[1]);
        return st;
    }
    fcntl(assign[1], F_SETFL, O_NONBLOCK);
    SpareProc& s = job.spares[index];
    s.index = index;
    s.pid = spawned.pid;
    s.out_fd = spawned.out_fd;
    s.err_fd = spawned.err_fd;
    s.assign_fd = assign[1];
    spare_job_[s.pid] = job.id;
    FTMPID_INFO("job %s: hot spare on process index %u started (pid %d)", job.id.c_str(), index,
                static_cast<int>(s.pid));
    return Status::ok;
}

bool JobSupervisor::assign_spare(Job& job, std::uint32_t index, std::uint32_t world_rank,
                                 const std::vector<std::string>& env) {
    if (job.ranks.size() != index || job.spares.count(index) == 0) return false;
    RankProc r;
    r.rank = index;
    r.world_rank = world_rank;
    r.local_rank = index;
    if (!take_spare(job, r, env)) return false;
    job.ranks.push_back(r);
    bind_taken_spare(job, job.ranks.back());
    watch_pipes(job, job.ranks.back());
    return true;
}

bool JobSupervisor::take_spare(Job& job, RankProc& into, const std::vector<std::string>& env) {
    auto it = job.spares.find(into.rank);
    if (it == job.spares.end()) return false;
    SpareProc s = it->second;
    job.spares.erase(it);
    std::string msg;
    for (const auto& e : env) {
        if (e.compare(0, 6, "FTMPI_") != 0 || e.compare(0, 15, "FTMPI_SPARE_FD=") == 0) continue;
        msg.append(e).push_back('\0');
    }
    msg.push_back('\0');
    // The pipe must take the whole message at once (the loop never blocks on a process); a
    // REBUILD plan of a very large job is bigger than the default 64 KiB.
    if (msg.size() > 60000) (void)fcntl(s.assign_fd, F_SETPIPE_SZ, static_cast<int>(msg.size() + 4096));
    const ssize_t n = write(s.assign_fd, msg.data(), msg.size());
    close_fd(s.assign_fd);
    if (n != static_cast<ssize_t>(msg.size())) {
        FTMPID_WARN("job %s: cannot hand process index %u to its hot spare (pid %d): %s; starting a process",
                    job.id.c_str(), into.rank, static_cast<int>(s.pid), n < 0 ? std::strerror(errno) : "short write");
        if (s.pid > 0) kill(-s.pid, SIGKILL);
        close_fd(s.out_fd);
        close_fd(s.err_fd);
        pmix_.forget_client(job.pmix_nspace, into.rank);
        return false;
    }
    into.pid = s.pid;
    into.out_fd = s.out_fd;
    into.err_fd = s.err_fd;
    into.connected = s.connected;
    spare_job_.erase(s.pid);
    job_of_pid_[s.pid] = job.id;
    FTMPID_INFO("job %s: hot spare pid %d takes rank %u (process index %u)", job.id.c_str(), static_cast<int>(s.pid),
                into.world_rank, into.rank);
    return true;
}

// A spare starts its join the moment it hears its rank and looks the other new processes up at
// once; for an index it does not know yet the PMIx server answers "not found" at once (on one
// host: no remote process exists), which the spare took for a dead replacement. It then refused
// the repaired world's first collective while the others waited for it (ft.spares.two_failures
// hung). So every new process a spare does not take is registered first.
Status JobSupervisor::register_before_spares(Job& job, std::uint32_t base,
                                             const std::function<bool(std::uint32_t)>& here,
                                             std::vector<std::vector<std::string>>& envs,
                                             std::vector<bool>& registered, std::string& why) {
    registered.assign(envs.size(), false);
    for (std::uint32_t i = 0; i < envs.size(); ++i) {
        if (!here(base + i) || job.spares.count(base + i) != 0) continue;
        if (Status st = pmix_.prepare_client(job.pmix_nspace, base + i, getuid(), getgid(), envs[i], why);
            st != Status::ok)
            return st;
        registered[i] = true;
    }
    return Status::ok;
}

void JobSupervisor::spares_after_spawn(Job& job, std::uint32_t base, std::uint32_t count) {
    job.next_spare_index = std::max(job.next_spare_index, base + count);
    if (job.spares_wanted == 0) return;
    const std::string id = job.id;
    loop_.add_timer(kTopUpDelay, [this, id] {
        if (Job* j = job_by_id(id)) start_spares(*j);
    });
}

void JobSupervisor::retire_spares_below(Job& job, std::uint32_t index) {
    while (!job.spares.empty() && job.spares.begin()->first < index) retire_spare(job, job.spares.begin()->first, "was skipped");
}

void JobSupervisor::retire_spare(Job& job, std::uint32_t index, const char* why) {
    auto it = job.spares.find(index);
    if (it == job.spares.end()) return;
    FTMPID_INFO("job %s: process index %u %s; its hot spare (pid %d) retires", job.id.c_str(), index, why,
                static_cast<int>(it->second.pid));
    if (it->second.pid > 0) kill(-it->second.pid, SIGKILL);
    close_fd(it->second.assign_fd);
    close_fd(it->second.out_fd);
    close_fd(it->second.err_fd);
    job.spares.erase(it);  // spare_job_ keeps the pid: its reaping cleans up after it
}

void JobSupervisor::end_spares(Job& job) {
    job.spares_wanted = 0;
    for (auto& [index, s] : job.spares) {
        close_fd(s.assign_fd);  // end of file: a waiting spare leaves on its own...
        if (s.pid > 0) kill(-s.pid, SIGKILL);  // ...but one still starting would take a while
    }
}

bool JobSupervisor::reap_spare(pid_t pid, int status) {
    auto owner = spare_job_.find(pid);
    if (owner == spare_job_.end()) return false;
    const std::string job_id = owner->second;
    spare_job_.erase(owner);
    Job* job = job_by_id(job_id);
    if (job == nullptr) return true;
    auto it = std::find_if(job->spares.begin(), job->spares.end(), [pid](const auto& e) { return e.second.pid == pid; });
    if (it == job->spares.end()) {  // retired, or handed over and already out of this table
        maybe_finish(*job);
        return true;
    }
    SpareProc s = it->second;
    job->spares.erase(it);
    close_fd(s.assign_fd);
    close_fd(s.out_fd);
    close_fd(s.err_fd);
    // Killed (by a signal) or dead after connecting: start another. Exited on its own before
    // connecting: the program does not reach MPI_Init, and another would do the same.
    const bool restart = job->phase == JobPhase::running && job->spares_wanted > 0 &&
                         (s.connected || WIFSIGNALED(status)) && job->spare_restarts < kMaxRestarts;
    if (job->spares_wanted > 0) {
        FTMPID_INFO("job %s: hot spare on process index %u (pid %d) ended (%s %d); not a rank failure%s",
                    job->id.c_str(), s.index, static_cast<int>(pid), WIFSIGNALED(status) ? "signal" : "status",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                    restart ? ", starting another" : s.connected ? ", too many restarts" : ", it never reached MPI_Init");
    }
    if (restart) {
        ++job->spare_restarts;
        pmix_.forget_client(job->pmix_nspace, s.index);  // its data goes; the index is reused
        std::string why;
        if (start_spare(*job, s.index, why) != Status::ok)
            FTMPID_WARN("job %s: cannot restart the hot spare: %s", job->id.c_str(), why.c_str());
    }
    maybe_finish(*job);
    return true;
}

}  // namespace ftmpi::daemon
