// fork/exec of one application process with its stdout/stderr on pipes.
#pragma once

#include <sched.h>
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "daemon_status.h"

namespace ftmpi::daemon {

struct RankLaunchPlan {
    std::string executable;          // already resolved (resolve_executable)
    std::vector<std::string> argv;
    std::vector<std::string> env;    // NAME=value
    std::string cwd;
    bool bind = false;
    cpu_set_t cpus{};
    sigset_t unblock{};              // the daemon's blocked signals, restored in the child
    bool stdin_pipe = false;         // stdin from a pipe the daemon writes (rank 0, forwarded)
    int wait_fd = -1;                // a hot spare's assignment pipe (read end): becomes fd kSpareFd
};

// The descriptor number a hot spare reads its assignment from (FTMPI_SPARE_FD).
constexpr int kSpareFd = 3;

struct SpawnedRank {
    pid_t pid = -1;
    int out_fd = -1;  // read ends, non-blocking, close-on-exec
    int err_fd = -1;
    int in_fd = -1;   // write end of stdin (stdin_pipe only), non-blocking, close-on-exec
};

// `name` with a '/' is taken relative to `cwd`; otherwise PATH (from the job's environment) is
// searched, as execvp would. Empty result and `why` set when nothing executable is found.
std::string resolve_executable(const std::string& name, const std::vector<std::string>& env, const std::string& cwd,
                               std::string& why);

// The child runs in its own process group (so the daemon can kill whatever it forks too), dies
// with the daemon (PR_SET_PDEATHSIG), has stdin on /dev/null (or a pipe) and is bound per `plan`.
Status spawn_rank(const RankLaunchPlan& plan, SpawnedRank& out, std::string& why);

}  // namespace ftmpi::daemon
