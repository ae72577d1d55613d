// Command-line parsing for mpirun. Accepts the spellings users bring from Open MPI and MPICH:
// one or two dashes for long options, and "--opt value" or "--opt=value".
#include "options.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ftmpi_knobs/knobs.h"

namespace ftmpi::mpirun {

namespace {

enum class Opt { nprocs, host, hostfile, map_by, launcher, launcher_exec, iface, display_map, export_var, comm_mode, with_ft, msg_mode, tag_output, timeout, spares, heartbeat_period, heartbeat_timeout, help, version, unknown };

Opt lookup(const std::string& name) {
    if (name == "n" || name == "np" || name == "c") return Opt::nprocs;
    if (name == "host" || name == "H") return Opt::host;
    if (name == "hostfile" || name == "machinefile") return Opt::hostfile;
    if (name == "map-by") return Opt::map_by;
    if (name == "launcher" || name == "bootstrap") return Opt::launcher;
    if (name == "launcher-exec" || name == "bootstrap-exec") return Opt::launcher_exec;
    if (name == "iface") return Opt::iface;
    if (name == "display-map") return Opt::display_map;
    if (name == "x") return Opt::export_var;
    if (name == "comm-mode") return Opt::comm_mode;
    if (name == "with-ft") return Opt::with_ft;
    if (name == "msg-mode") return Opt::msg_mode;
    if (name == "tag-output") return Opt::tag_output;
    if (name == "timeout") return Opt::timeout;
    if (name == "spares") return Opt::spares;
    if (name == "heartbeat-period") return Opt::heartbeat_period;
    if (name == "heartbeat-timeout") return Opt::heartbeat_timeout;
    if (name == "help" || name == "h") return Opt::help;
    if (name == "version" || name == "V") return Opt::version;
    return Opt::unknown;
}

bool takes_value(Opt o) {
    return o != Opt::tag_output && o != Opt::display_map && o != Opt::help && o != Opt::version;
}

// The daemon's limit too (PMIx local ranks are 16 bits): refused here as a usage error (exit 2)
// before any daemon is started.
constexpr std::uint32_t kMaxProcs = 65535;

bool parse_count(const std::string& s, std::uint32_t& out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9) return false;
    out = static_cast<std::uint32_t>(std::strtoul(s.c_str(), nullptr, 10));
    return out > 0 && out <= kMaxProcs;
}

bool parse_ms(const std::string& s, std::chrono::milliseconds& out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 7) return false;
    out = std::chrono::milliseconds(std::strtol(s.c_str(), nullptr, 10));
    return out.count() > 0;
}

bool parse_seconds(const std::string& s, double& out) {
    char* end = nullptr;
    errno = 0;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && errno == 0 && end != nullptr && *end == '\0' && out > 0 && out < 1e7;
}

}  // namespace

ParseStatus parse_options(int argc, char** argv, Options& out, std::string& why) {
    int i = 1;
    bool heartbeat_period_given = false, heartbeat_timeout_given = false;
    for (; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--") {
            ++i;
            break;
        }
        if (arg.size() < 2 || arg[0] != '-') break;  // the program starts here
        std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
        std::optional<std::string> value;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        Opt opt = lookup(name);
        if (opt == Opt::unknown) {
            why = "unknown option '" + arg + "' (see --help)";
            return ParseStatus::usage_error;
        }
        if (takes_value(opt) && !value) {
            if (i + 1 >= argc) {
                why = "option '" + arg + "' needs a value";
                return ParseStatus::usage_error;
            }
            value = argv[++i];
        } else if (!takes_value(opt) && value) {
            why = "option '-" + name + "' takes no value";
            return ParseStatus::usage_error;
        }
        switch (opt) {
            case Opt::nprocs: {
                std::uint32_t n = 0;
                if (!parse_count(*value, n)) {
                    why = "invalid number of processes '" + *value + "' (1 to " + std::to_string(kMaxProcs) + ")";
                    return ParseStatus::usage_error;
                }
                out.nprocs = n;
                break;
            }
            case Opt::host: {
                const std::size_t before = out.hosts.size();
                std::size_t start = 0;
                while (start <= value->size()) {
                    std::size_t comma = value->find(',', start);
                    if (comma == std::string::npos) comma = value->size();
                    if (comma > start) out.hosts.push_back(value->substr(start, comma - start));
                    start = comma + 1;
                }
                if (out.hosts.size() == before) {
                    why = "--host needs at least one host name";
                    return ParseStatus::usage_error;
                }
                break;
            }
            case Opt::hostfile: out.hostfile = *value; break;
            case Opt::map_by:
                if (*value == "slot") out.map_by = MapBy::slot;
                else if (*value == "node") out.map_by = MapBy::node;
                else {
                    why = "invalid --map-by '" + *value + "' (slot or node)";
                    return ParseStatus::usage_error;
                }
                break;
            case Opt::launcher:
                if (*value == "ssh") out.launcher = LauncherKind::ssh;
                else if (*value == "slurm") out.launcher = LauncherKind::slurm;
                else {
                    why = "invalid --launcher '" + *value + "' (ssh or slurm; --launcher-exec PATH for another program)";
                    return ParseStatus::usage_error;
                }
                break;
            case Opt::launcher_exec:
                if (value->empty()) {
                    why = "--launcher-exec needs a program";
                    return ParseStatus::usage_error;
                }
                out.launcher_exec = *value;
                break;
            case Opt::iface:
                if (value->empty()) {
                    why = "--iface needs an interface name or an IPv4 CIDR";
                    return ParseStatus::usage_error;
                }
                out.iface = *value;
                break;
            case Opt::export_var: {
                auto eq = value->find('=');
                std::string var = value->substr(0, eq);
                if (var.empty()) {
                    why = "-x needs a variable name";
                    return ParseStatus::usage_error;
                }
                if (eq == std::string::npos) out.exports.emplace_back(var, std::nullopt);
                else out.exports.emplace_back(var, value->substr(eq + 1));
                break;
            }
            case Opt::comm_mode:
                out.comm_mode = proto::parse_comm_mode(*value);
                if (!out.comm_mode) {
                    why = "invalid --comm-mode '" + *value + "' (shrink, blank, rebuild, rebuild_append, ulfm or abort)";
                    return ParseStatus::usage_error;
                }
                break;
            case Opt::with_ft:  // Open MPI 5's spelling: --with-ft ulfm
                if (proto::parse_comm_mode(*value) != proto::CommMode::ulfm) {
                    why = "invalid --with-ft '" + *value + "' (ulfm)";
                    return ParseStatus::usage_error;
                }
                out.comm_mode = proto::CommMode::ulfm;
                break;
            case Opt::msg_mode:
                out.msg_mode = proto::parse_msg_mode(*value);
                if (!out.msg_mode) {
                    why = "invalid --msg-mode '" + *value + "' (nop, reset or cont)";
                    return ParseStatus::usage_error;
                }
                break;
            case Opt::tag_output: out.tag_output = true; break;
            case Opt::display_map: out.display_map = true; break;
            case Opt::timeout:
                if (!parse_seconds(*value, out.timeout_s)) {
                    why = "invalid --timeout '" + *value + "' (seconds, > 0)";
                    return ParseStatus::usage_error;
                }
                break;
            case Opt::spares: {
                const auto v = knobs::parse(knobs::knob(knobs::Id::spares), *value);
                if (!v) {
                    why = "invalid --spares '" + *value + "' (" + knobs::valid_values(knobs::knob(knobs::Id::spares)) + ")";
                    return ParseStatus::usage_error;
                }
                out.spares = static_cast<std::uint32_t>(v->integer);
                break;
            }
            case Opt::heartbeat_period:
            case Opt::heartbeat_timeout: {
                const bool period = opt == Opt::heartbeat_period;
                if (!parse_ms(*value, period ? out.heartbeat.period : out.heartbeat.timeout)) {
                    why = std::string("invalid --heartbeat-") + (period ? "period" : "timeout") + " '" + *value +
                          "' (milliseconds, > 0)";
                    return ParseStatus::usage_error;
                }
                (period ? heartbeat_period_given : heartbeat_timeout_given) = true;
                break;
            }
            case Opt::help: out.help = true; return ParseStatus::ok;
            case Opt::version: out.version = true; return ParseStatus::ok;
            case Opt::unknown: break;
        }
    }
    for (; i < argc; ++i) out.program.emplace_back(argv[i]);
    // Host liveness (several hosts): flags beat FTMPI_HEARTBEAT_*_MS, which beat the defaults.
    if (!heartbeat_period_given)
        out.heartbeat.period = std::chrono::milliseconds(knobs::integer(knobs::Id::heartbeat_period_ms));
    if (!heartbeat_timeout_given)
        out.heartbeat.timeout = std::chrono::milliseconds(knobs::integer(knobs::Id::heartbeat_timeout_ms));
    if (!proto::heartbeat_config_valid(out.heartbeat, why)) return ParseStatus::usage_error;
    if (out.program.empty()) {
        why = "no program to run (see --help)";
        return ParseStatus::usage_error;
    }
    return ParseStatus::ok;
}

ParseStatus resolve_modes(const Options& opts, proto::CommMode& comm, proto::MsgMode& msg, std::string& why) {
    comm = proto::CommMode::abort;
    msg = proto::MsgMode::nop;
    if (opts.comm_mode) {
        comm = *opts.comm_mode;
    } else if (auto env = knobs::raw(knobs::Id::comm_mode)) {
        auto m = proto::parse_comm_mode(*env);
        if (!m) {
            why = "invalid FTMPI_COMM_MODE '" + *env + "' (one of " +
                  knobs::valid_values(knobs::knob(knobs::Id::comm_mode)) + ")";
            return ParseStatus::usage_error;
        }
        comm = *m;
    }
    if (opts.msg_mode) {
        msg = *opts.msg_mode;
    } else if (auto env = knobs::raw(knobs::Id::msg_mode)) {
        auto m = proto::parse_msg_mode(*env);
        if (!m) {
            why = "invalid FTMPI_MSG_MODE '" + *env + "' (one of " +
                  knobs::valid_values(knobs::knob(knobs::Id::msg_mode)) + ")";
            return ParseStatus::usage_error;
        }
        msg = *m;
    }
    return ParseStatus::ok;
}

ParseStatus resolve_spares(const Options& opts, std::uint32_t& spares, std::string& why) {
    spares = 0;
    if (opts.spares) {
        spares = *opts.spares;
    } else if (auto env = knobs::raw(knobs::Id::spares)) {
        const auto v = knobs::parse(knobs::knob(knobs::Id::spares), *env);
        if (!v) {
            why = "invalid FTMPI_SPARES '" + *env + "' (" + knobs::valid_values(knobs::knob(knobs::Id::spares)) + ")";
            return ParseStatus::usage_error;
        }
        spares = static_cast<std::uint32_t>(v->integer);
    }
    return ParseStatus::ok;
}

void print_usage(const char* prog) {
    std::printf(
        "usage: %s [options] [--] program [args...]\n"
        "  -n, -np N               number of processes (default: slots of --host/--hostfile, else 1)\n"
        "  --host h1[:slots],...   hosts to run on (names or IPv4 addresses; repeatable)\n"
        "  --hostfile FILE         file of 'host [slots=N]' or 'host[:N]' lines, '#' comments\n"
        "                          (neither, inside a Slurm allocation: its nodes)\n"
        "  --map-by slot|node      fill each host's slots in turn (slot), or one rank per host\n"
        "                          in turn (node); more ranks than slots wrap around\n"
        "  --launcher ssh|slurm    how daemons start on remote hosts (default ssh; slurm when\n"
        "                          the hosts come from the Slurm allocation): ssh, or srun\n"
        "  --launcher-exec PATH    run PATH HOST WORDS... instead of ssh (env FTMPI_LAUNCHER_EXEC);\n"
        "                          with --launcher slurm: PATH instead of srun\n"
        "  --iface NAME|CIDR       address remote daemons connect back to (env FTMPI_IFACE;\n"
        "                          default: the route to the first remote host)\n"
        "  --display-map           print which ranks run on which host (stderr) first\n"
        "  -x VAR | -x VAR=value   forward or set an environment variable\n"
        "  --comm-mode MODE        abort|shrink|blank|rebuild|rebuild_append|ulfm (env FTMPI_COMM_MODE)\n"
        "  --with-ft ulfm          the same as --comm-mode ulfm (Open MPI 5's spelling)\n"
        "  --msg-mode MODE         nop|reset|cont (env FTMPI_MSG_MODE)\n"
        "  --tag-output            prefix every output line with [rank]\n"
        "  --timeout S             kill the job after S seconds (exit code 124)\n"
        "  --spares K              K hot spares wait in MPI_Init and take failed ranks at a\n"
        "                          REBUILD repair (0 to 1024; env FTMPI_SPARES; one host only)\n"
        "  --heartbeat-period MS   several hosts: heartbeat interval between mpirun and the\n"
        "                          daemons (default 100; env FTMPI_HEARTBEAT_PERIOD_MS)\n"
        "  --heartbeat-timeout MS  silence after which a host is declared failed and a cut-off\n"
        "                          daemon kills its ranks (default 1000; FTMPI_HEARTBEAT_TIMEOUT_MS)\n"
        "  --help, --version\n"
        "Runs the job under ftmpid ($FTMPI_DAEMON_SOCKET or ${TMPDIR:-/tmp}/ftmpi-$UID/ftmpid.sock), starting\n"
        "a private daemon when none answers.\n"
        "\n"
        "Environment variables (forwarded to the ranks; `ftmpi-info` says more):\n",
        prog);
    // From the one knob table, so this list cannot go stale.
    for (const knobs::Knob* k = knobs::table_begin(); k != knobs::table_end(); ++k) {
        if (std::strcmp(k->layer, "internal") == 0 || std::strcmp(k->layer, "test") == 0) continue;
        std::printf("  %-34s %s%s\n", k->name, *k->default_value ? "default " : "",
                    *k->default_value ? k->default_value : "");
    }
}

}  // namespace ftmpi::mpirun
