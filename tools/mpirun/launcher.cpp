// How a daemon is started on a remote host: ssh, a launcher-exec program called exactly like
// ssh, or srun inside a Slurm allocation.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "ftmpi_knobs/knobs.h"
#include "host_plan.h"
#include "options.h"

namespace ftmpi::mpirun {

namespace {

bool is_executable_file(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// `program` as an absolute path: a name without '/' is looked up in PATH (as execvp would);
// a relative path is made absolute, so the choice does not depend on a later chdir.
std::optional<std::string> find_program(const std::string& program) {
    if (program.find('/') != std::string::npos) {
        std::string path = program;
        if (path[0] != '/') {
            char cwd[4096];
            if (getcwd(cwd, sizeof cwd) == nullptr) return std::nullopt;
            path = std::string(cwd) + "/" + path;
        }
        return is_executable_file(path) ? std::optional<std::string>(path) : std::nullopt;
    }
    const char* env_path = std::getenv("PATH");
    std::string dirs = env_path != nullptr ? env_path : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        std::size_t colon = dirs.find(':', start);
        if (colon == std::string::npos) colon = dirs.size();
        std::string dir = dirs.substr(start, colon - start);
        std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
        if (is_executable_file(candidate)) return find_program(candidate);  // absolute if dir was relative
        start = colon + 1;
    }
    return std::nullopt;
}

}  // namespace

HostStatus choose_launcher(const Options& opts, bool hosts_from_slurm, LauncherChoice& out, std::string& why) {
    std::string exec = opts.launcher_exec;
    const char* exec_from = "--launcher-exec";
    if (exec.empty() && !opts.launcher) {
        if (auto env = knobs::raw(knobs::Id::launcher_exec)) {
            exec = *env;
            exec_from = "FTMPI_LAUNCHER_EXEC";
        }
    }
    LauncherChoice choice;
    if (opts.launcher == LauncherKind::slurm || (!opts.launcher && exec.empty() && hosts_from_slurm)) {
        choice.kind = LauncherKind::slurm;
        choice.program = exec.empty() ? "srun" : exec;
    } else if (!exec.empty()) {
        choice.kind = LauncherKind::exec;
        choice.program = exec;
    } else {
        choice.kind = LauncherKind::ssh;
        choice.program = "ssh";
    }
    // srun outside an allocation would ask for a new job per daemon (and might queue forever).
    const char* job = std::getenv("SLURM_JOB_ID");
    if (job == nullptr || *job == '\0') job = std::getenv("SLURM_JOBID");
    if (choice.kind == LauncherKind::slurm && (job == nullptr || *job == '\0')) {
        why = "--launcher slurm runs inside a Slurm allocation (salloc, sbatch): SLURM_JOB_ID is not set";
        return HostStatus::bad_syntax;
    }
    auto path = find_program(choice.program);
    if (!path) {
        if (!exec.empty() && choice.program == exec) {
            why = std::string(exec_from) + " '" + exec + "' is not an executable file";
            return HostStatus::bad_syntax;
        }
        why = "cannot start daemons on remote hosts: '" + choice.program + "' is not in PATH" +
              (choice.kind == LauncherKind::slurm ? " (--launcher slurm needs Slurm's srun)" : "");
        return HostStatus::no_launcher;
    }
    choice.program = *path;
    out = std::move(choice);
    return HostStatus::ok;
}

std::string shell_quote(std::string_view word) {
    static constexpr std::string_view kSafe =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
    if (!word.empty() && word.find_first_not_of(kSafe) == std::string_view::npos) return std::string(word);
    std::string out = "'";
    for (char c : word) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    out += "'";
    return out;
}

std::vector<std::string> launcher_argv(const LauncherChoice& launcher, const std::string& host,
                                       const std::vector<std::string>& remote_words) {
    std::vector<std::string> argv{launcher.program};
    switch (launcher.kind) {
        case LauncherKind::ssh:
            // -x: no X11 forwarding (Hydra and PRRTE pass it too); BatchMode: fail at once
            // instead of asking for a password, since stdin carries the job secret.
            argv.insert(argv.end(), {"-x", "-o", "BatchMode=yes", host});
            break;
        case LauncherKind::exec: argv.push_back(host); break;
        case LauncherKind::slurm:
            // One task on exactly that node (PRRTE's slurm plm starts one daemon per node the
            // same way, all in one step; one step per node lets a host fail alone). The daemon
            // is no MPI task (--mpi=none), must not be bound to one core (it binds its ranks
            // itself), may share the allocation's CPUs with other steps (--overlap), and gets
            // a clean environment like ssh's (--export=NONE: it is started by absolute path).
            // No --kill-on-bad-exit: with one task per step there is nothing else to kill, and
            // a job survives a lost host. stdin (the secret) goes to the one task by default.
            argv.insert(argv.end(), {"--nodes=1", "--ntasks=1", "--nodelist=" + host, "--mpi=none",
                                     "--cpu-bind=none", "--overlap", "--export=NONE", "--quiet"});
            // srun execs the words itself (no shell on the other side): no quoting.
            argv.insert(argv.end(), remote_words.begin(), remote_words.end());
            return argv;
    }
    for (const auto& w : remote_words) argv.push_back(shell_quote(w));
    return argv;
}

}  // namespace ftmpi::mpirun
