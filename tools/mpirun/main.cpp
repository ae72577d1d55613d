// mpirun / mpiexec: parse options, validate hosts, connect to (or start) ftmpid, run the job.
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "daemon_link.h"
#include "ftmpi/debug_log.h"
#include "ftmpi_cli/cli.h"
#include "host_plan.h"
#include "job_monitor.h"
#include "options.h"
#include "several_hosts.h"

extern char** environ;

namespace {

constexpr int kUsageExit = ftmpi::cli::kUsageExit;

void help(std::FILE*) { ftmpi::mpirun::print_usage("mpirun"); }

// Messages say "ftmpi:" (the runtime speaks, whichever of mpirun/mpiexec was called).
const ftmpi::cli::Tool kTool{"ftmpi", "usage: mpirun [options] [--] program [args...]  (mpirun --help)", help};

int fail(const std::string& why, int code) {
    // Bad input: say how to call us (the full text is --help's).
    if (code == kUsageExit) return ftmpi::cli::usage_error(kTool, why);
    std::fprintf(stderr, "ftmpi: %s\n", why.c_str());
    return code;
}

// The whole environment, with -x VAR=value overrides applied (-x VAR is already in it).
std::vector<std::string> job_environment(const ftmpi::mpirun::Options& opts) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    for (const auto& [name, value] : opts.exports) {
        if (!value) continue;
        std::string prefix = name + "=";
        bool replaced = false;
        for (auto& e : env) {
            if (e.compare(0, prefix.size(), prefix) == 0) {
                e = prefix + *value;
                replaced = true;
            }
        }
        if (!replaced) env.push_back(prefix + *value);
    }
    return env;
}

// mpirun's stdin goes to rank 0, unless there is none to give: closed, /dev/null, or a
// terminal of which mpirun is not in the foreground (reading would stop it with SIGTTIN).
bool stdin_worth_forwarding() {
    struct stat in {};
    if (fstat(STDIN_FILENO, &in) != 0) return false;
    struct stat null {};
    if (S_ISCHR(in.st_mode) && stat("/dev/null", &null) == 0 && in.st_rdev == null.st_rdev) return false;
    if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) != getpgrp()) return false;
    return true;
}

// The CPUs this process may run on (its affinity mask: a cpuset or taskset narrows it), else
// the online ones.
std::uint32_t usable_cpus() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<std::uint32_t>(CPU_COUNT(&set));
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<std::uint32_t>(n) : 1;
}

// NAME=value replaces every NAME=... the environment had.
void set_job_variable(std::vector<std::string>& env, const std::string& name, const std::string& value) {
    const std::string prefix = name + "=";
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&](const std::string& e) { return e.compare(0, prefix.size(), prefix) == 0; }),
              env.end());
    env.push_back(prefix + value);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace ftmpi;
    const char* prog = argc > 0 ? argv[0] : "mpirun";
    if (const char* slash = std::strrchr(prog, '/')) prog = slash + 1;

    mpirun::Options opts;
    std::string why;
    if (mpirun::parse_options(argc, argv, opts, why) != mpirun::ParseStatus::ok) return fail(why, kUsageExit);
    if (opts.help) {
        mpirun::print_usage(prog);
        return 0;
    }
    if (opts.version) {
        std::printf("%s\n", ftmpi::cli::version_line(prog).c_str());
        return 0;
    }
    proto::LaunchJob launch;
    if (mpirun::resolve_modes(opts, launch.comm_mode, launch.msg_mode, why) != mpirun::ParseStatus::ok)
        return fail(why, kUsageExit);
    // Hot spares: one host: the daemon reads FTMPI_SPARES from the job's environment; several
    // hosts: mpirun places them (spare_hub.h) and the daemons read it to keep them.
    std::uint32_t spares = 0;
    if (mpirun::resolve_spares(opts, spares, why) != mpirun::ParseStatus::ok) return fail(why, kUsageExit);

    std::vector<mpirun::Host> hosts;
    bool hosts_from_slurm = false;
    if (mpirun::collect_hosts(opts, hosts, hosts_from_slurm, why) != mpirun::HostStatus::ok)
        return fail(why, kUsageExit);
    std::uint32_t slots = 0;
    for (const auto& h : hosts) slots = std::min<std::uint32_t>(slots + h.slots, 65535);
    // Oversubscription is allowed: -n may exceed the slots.
    launch.nprocs = opts.nprocs ? *opts.nprocs : (slots > 0 ? slots : 1);
    const mpirun::Placement plan = mpirun::place_ranks(hosts, launch.nprocs, opts.map_by);
    if (opts.display_map) std::fputs(mpirun::describe_placement(plan).c_str(), stderr);
    mpirun::LauncherChoice launcher;
    if (plan.has_remote()) {
        mpirun::HostStatus st = mpirun::choose_launcher(opts, hosts_from_slurm, launcher, why);
        if (st != mpirun::HostStatus::ok) return fail(why, st == mpirun::HostStatus::bad_syntax ? kUsageExit : 1);
    }

    // Core binding: the daemons read the job's FTMPI_BIND (daemon/src/bind_policy.h).
    std::string bind;
    if (mpirun::resolve_binding(opts, bind, why) != mpirun::ParseStatus::ok) return fail(why, kUsageExit);

    launch.argv = opts.program;
    launch.env = job_environment(opts);
    set_job_variable(launch.env, "FTMPI_SPARES", std::to_string(spares));
    set_job_variable(launch.env, "FTMPI_BIND", bind);
    if (opts.report_bindings) set_job_variable(launch.env, "FTMPI_REPORT_BINDINGS", "1");
    // The collectives' choice for ranks that share cores: one answer for the whole job (a
    // rank deciding alone could pick another algorithm than its peers). The user's wins.
    const bool user_says = std::any_of(launch.env.begin(), launch.env.end(), [](const std::string& e) {
        return e.rfind("FTMPI_OVERSUBSCRIBED=", 0) == 0;
    });
    if (!user_says)
        set_job_variable(launch.env, "FTMPI_OVERSUBSCRIBED", mpirun::oversubscribed(plan, usable_cpus()) ? "1" : "0");
    launch.tag_output = opts.tag_output;
    launch.forward_stdin = stdin_worth_forwarding();
    char cwd[4096];
    launch.cwd = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "/";

    // FTMPI_DEBUG: start-up phases, one clock for every process of the host (see README).
    FTMPI_DLOG("startup", "mpirun: options parsed, starting or joining the daemon");
    mpirun::JobMonitor monitor(opts.timeout_s);  // takes over SIGINT/SIGTERM first
    monitor.set_spares(spares);
    if (plan.has_remote()) {
        int code = mpirun::run_on_several_hosts(opts, plan, launcher, launch, monitor);
        FTMPI_DLOG("startup", "mpirun: job on %zu hosts ended (exit %d)", plan.hosts.size(), code);
        return code;
    }
    mpirun::DaemonLink link;
    if (link.connect_or_start(why) != mpirun::LinkStatus::ok) return fail(why, 1);
    FTMPI_DLOG("startup", "mpirun: daemon ready, launching %u ranks", launch.nprocs);
    mpirun::Spoke spoke;
    spoke.fd = link.fd();
    spoke.decoder = &link.decoder();
    int code = monitor.run(spoke, launch);
    FTMPI_DLOG("startup", "mpirun: job ended (exit %d)", code);
    link.close_and_reap();
    FTMPI_DLOG("startup", "mpirun: daemon gone, exiting");
    return code;
}
