// ftmpid entry point: option parsing only; see daemon.h for what the daemon does.
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "daemon.h"
#include "ftmpi_knobs/knobs.h"
#include "ftmpi_proto/unix_socket.h"
#include "log.h"
#include "orphan_sweep.h"

namespace {

void usage(FILE* out) {
    std::fprintf(out,
                 "usage: ftmpid [--socket PATH] [--private] [--ready-fd N] [--watch-fd N] [--log FILE] [--no-bind] [--quiet|--verbose]\n"
                 "  --socket PATH  control socket (default $FTMPI_DAEMON_SOCKET or ${TMPDIR:-/tmp}/ftmpi-$UID/ftmpid.sock)\n"
                 "  --private      serve one mpirun and exit when its job has ended\n"
                 "  --remote --connect ADDR:PORT --host-index I [--heartbeat-period MS --heartbeat-timeout MS]\n"
                 "                 started by mpirun on another host: read the job's secret from stdin,\n"
                 "                 connect back to mpirun, run this host's part of the job, then exit\n"
                 "  --ready-fd N   write \"ready\" to descriptor N once listening\n"
                 "  --watch-fd N   end the jobs and exit when descriptor N reaches end of file\n"
                 "  --log FILE     append log lines to FILE instead of stderr\n"
                 "  --no-bind      never bind processes to cores, whatever a job asks (a shared daemon: also FTMPI_BIND=none)\n"
                 "  --quiet        log errors only\n"
                 "  --verbose      debug log lines\n");
}

}  // namespace

int main(int argc, char** argv) {
    // Internal: the stuck-daemon watchdog's helper (orphan_sweep.h), not a user option.
    if (argc == 3 && std::strcmp(argv[1], "--end-children-of") == 0) {
        const long parent = std::strtol(argv[2], nullptr, 10);
        if (parent <= 1) return 2;
        (void)ftmpi::daemon::end_children_of(static_cast<pid_t>(parent));
        return 0;
    }
    ftmpi::daemon::DaemonOptions opts;
    opts.socket_path = ftmpi::proto::default_socket_path();
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "ftmpid: %s needs a value\n", name);
                std::exit(2);
            }
            return argv[++i];
        };
        // A whole decimal number in [lo, hi], else usage error.
        auto number = [&](const char* name, long lo, long hi) -> long {
            const char* text = value(name);
            char* end = nullptr;
            errno = 0;
            long v = std::strtol(text, &end, 10);
            if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
                std::fprintf(stderr, "ftmpid: %s needs a number in [%ld, %ld], not '%s'\n", name, lo, hi, text);
                std::exit(2);
            }
            return v;
        };
        if (a == "--socket") {
            opts.socket_path = value("--socket");
        } else if (a == "--private") {
            opts.private_mode = true;
        } else if (a == "--ready-fd") {
            opts.ready_fd = std::atoi(value("--ready-fd"));
        } else if (a == "--log") {
            const char* path = value("--log");
            if (!ftmpi::daemon::log_to_file(path)) {
                std::fprintf(stderr, "ftmpid: cannot open log file %s\n", path);
                return 2;
            }
        } else if (a == "--watch-fd") {
            opts.watch_fd = std::atoi(value("--watch-fd"));
        } else if (a == "--remote") {
            opts.remote = true;
        } else if (a == "--connect") {
            opts.connect = value("--connect");
        } else if (a == "--host-index") {
            opts.host_index = static_cast<std::uint32_t>(number("--host-index", 0, 1 << 20));
        } else if (a == "--heartbeat-period") {
            opts.heartbeat_period_ms = static_cast<int>(number("--heartbeat-period", 1, 3600000));
        } else if (a == "--heartbeat-timeout") {
            opts.heartbeat_timeout_ms = static_cast<int>(number("--heartbeat-timeout", 1, 3600000));
        } else if (a == "--no-bind") {
            opts.bind_cores = false;
        } else if (a == "--quiet") {
            ftmpi::daemon::log_set_quiet(true);
        } else if (a == "--verbose") {
            ftmpi::daemon::log_set_verbose(true);
        } else if (a == "--help" || a == "-h") {
            usage(stdout);
            return 0;
        } else if (a == "--version") {
            std::printf("ftmpid (ftmpi) %s\n", FTMPI_VERSION);
            return 0;
        } else {
            std::fprintf(stderr, "ftmpid: unknown option '%s'\n", a.c_str());
            usage(stderr);
            return 2;
        }
    }
    if (ftmpi::knobs::flag(ftmpi::knobs::Id::test_daemon_stall)) opts.test_stall = true;
    // Each job says how it is bound (FTMPI_BIND in its environment, from mpirun --bind-to).
    // FTMPI_BIND=none for a shared daemon is the administrator's "never bind"; a private or
    // remote daemon inherits its mpirun's environment, whose flag must win, so it ignores it.
    if (!opts.private_mode && !opts.remote && ftmpi::knobs::text(ftmpi::knobs::Id::bind) == "none")
        opts.bind_cores = false;
    if (opts.remote != !opts.connect.empty()) {
        std::fprintf(stderr, "ftmpid: --remote and --connect ADDR:PORT go together\n");
        usage(stderr);
        return 2;
    }
    if (opts.socket_path.empty() || opts.socket_path[0] != '/') {
        std::fprintf(stderr, "ftmpid: the socket path must be absolute\n");
        return 2;
    }
    ftmpi::daemon::Daemon daemon(std::move(opts));
    return daemon.run();
}
