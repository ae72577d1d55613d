// Command-line parsing for mpirun, on the tools' one option parser (CLI11). Accepts the spellings
// users bring from Open MPI and MPICH: one or two dashes for long options, and "--opt value" or
// "--opt=value".
#include "options.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <exception>

#include <CLI/CLI.hpp>

#include "ftmpi_knobs/knobs.h"

namespace ftmpi::mpirun {

namespace {

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

// Open MPI and MPICH users write options with one dash or two ("-np 4", "--np 4", "-host a"),
// with "=value" or as the next word, and the program's own options follow the program. This
// pre-pass finds where the program starts (the first word that is no option or option value, or
// the word after "--") and hands CLI11 each option as "--name" or "--name" "value" (CLI11 takes
// the word after a value option as its value even when it starts with '-'), so one-letter names
// need no short form. Whether an option takes a value comes from the App itself: the option
// table lives only there. A missing or unwanted value is reported here, with the user's spelling.
ParseStatus cli11_words(const CLI::App& app, int argc, char** argv, std::vector<std::string>& words,
                        int& program_start, std::string& why) {
    int i = 1;
    for (; i < argc; ++i) {
        const std::string arg = argv[i];
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
        words.push_back("--" + name);
        const CLI::Option* opt = app.get_option_no_throw(words.back());
        if (opt == nullptr) continue;  // CLI11 reports it
        const bool takes_value = opt->get_expected_min() > 0;
        if (takes_value && !value) {
            if (i + 1 >= argc) {
                why = "option '" + arg + "' needs a value";
                return ParseStatus::usage_error;
            }
            value = argv[++i];
        } else if (!takes_value && value) {
            why = "option '-" + name + "' takes no value";
            return ParseStatus::usage_error;
        }
        if (value) words.push_back(*value);
    }
    program_start = i;
    return ParseStatus::ok;
}

// CLI11 callbacks report a bad value with the message users of mpirun know.
[[noreturn]] void bad_value(const std::string& why) { throw CLI::ValidationError(why); }

// One value-taking option whose every occurrence (in order) is handed to `use`.
template <typename F>
void add_value_option(CLI::App& app, const std::string& names, F use) {
    app.add_option(names)->take_all()->each(use);
}

void declare_options(CLI::App& app, Options& out, bool& period_given, bool& timeout_given) {
    app.set_help_flag("--help,--h");
    app.add_flag("--version,--V", out.version)->disable_flag_override();
    app.add_flag("--tag-output", out.tag_output)->disable_flag_override();
    app.add_flag("--display-map", out.display_map)->disable_flag_override();
    add_value_option(app, "--n,--np,--c", [&](const std::string& v) {
        std::uint32_t n = 0;
        if (!parse_count(v, n))
            bad_value("invalid number of processes '" + v + "' (1 to " + std::to_string(kMaxProcs) + ")");
        out.nprocs = n;
    });
    add_value_option(app, "--host,--H", [&](const std::string& v) {
        const std::size_t before = out.hosts.size();
        for (std::size_t start = 0; start <= v.size();) {
            std::size_t comma = v.find(',', start);
            if (comma == std::string::npos) comma = v.size();
            if (comma > start) out.hosts.push_back(v.substr(start, comma - start));
            start = comma + 1;
        }
        if (out.hosts.size() == before) bad_value("--host needs at least one host name");
    });
    add_value_option(app, "--hostfile,--machinefile", [&](const std::string& v) { out.hostfile = v; });
    add_value_option(app, "--map-by", [&](const std::string& v) {
        if (v == "slot") out.map_by = MapBy::slot;
        else if (v == "node") out.map_by = MapBy::node;
        else bad_value("invalid --map-by '" + v + "' (slot or node)");
    });
    add_value_option(app, "--launcher,--bootstrap", [&](const std::string& v) {
        if (v == "ssh") out.launcher = LauncherKind::ssh;
        else if (v == "slurm") out.launcher = LauncherKind::slurm;
        else bad_value("invalid --launcher '" + v + "' (ssh or slurm; --launcher-exec PATH for another program)");
    });
    add_value_option(app, "--launcher-exec,--bootstrap-exec", [&](const std::string& v) {
        if (v.empty()) bad_value("--launcher-exec needs a program");
        out.launcher_exec = v;
    });
    add_value_option(app, "--iface", [&](const std::string& v) {
        if (v.empty()) bad_value("--iface needs an interface name or an IPv4 CIDR");
        out.iface = v;
    });
    add_value_option(app, "--x", [&](const std::string& v) {
        const auto eq = v.find('=');
        std::string var = v.substr(0, eq);
        if (var.empty()) bad_value("-x needs a variable name");
        if (eq == std::string::npos) out.exports.emplace_back(var, std::nullopt);
        else out.exports.emplace_back(var, v.substr(eq + 1));
    });
    add_value_option(app, "--comm-mode", [&](const std::string& v) {
        out.comm_mode = proto::parse_comm_mode(v);
        if (!out.comm_mode)
            bad_value("invalid --comm-mode '" + v + "' (shrink, blank, rebuild, rebuild_append, ulfm or abort)");
    });
    // Open MPI 5's spelling: --with-ft ulfm; its launcher's older value "mpi" (ICLDisco's
    // ulfm-testing scripts use it) means the same.
    add_value_option(app, "--with-ft", [&](const std::string& v) {
        if (proto::parse_comm_mode(v) != proto::CommMode::ulfm && strcasecmp(v.c_str(), "mpi") != 0)
            bad_value("invalid --with-ft '" + v + "' (ulfm or mpi)");
        out.comm_mode = proto::CommMode::ulfm;
    });
    add_value_option(app, "--msg-mode", [&](const std::string& v) {
        out.msg_mode = proto::parse_msg_mode(v);
        if (!out.msg_mode) bad_value("invalid --msg-mode '" + v + "' (nop, reset or cont)");
    });
    add_value_option(app, "--timeout", [&](const std::string& v) {
        if (!parse_seconds(v, out.timeout_s)) bad_value("invalid --timeout '" + v + "' (seconds, > 0)");
    });
    add_value_option(app, "--spares", [&](const std::string& v) {
        const auto k = knobs::parse(knobs::knob(knobs::Id::spares), v);
        if (!k) bad_value("invalid --spares '" + v + "' (" + knobs::valid_values(knobs::knob(knobs::Id::spares)) + ")");
        out.spares = static_cast<std::uint32_t>(k->integer);
    });
    add_value_option(app, "--bind-to", [&](const std::string& v) {
        if (!knobs::parse(knobs::knob(knobs::Id::bind), v))
            bad_value("invalid --bind-to '" + v + "' (" + knobs::valid_values(knobs::knob(knobs::Id::bind)) + ")");
        out.bind_to = v;
    });
    app.add_flag("--report-bindings", out.report_bindings)->disable_flag_override();
    add_value_option(app, "--heartbeat-period", [&](const std::string& v) {
        if (!parse_ms(v, out.heartbeat.period))
            bad_value("invalid --heartbeat-period '" + v + "' (milliseconds, > 0)");
        period_given = true;
    });
    add_value_option(app, "--heartbeat-timeout", [&](const std::string& v) {
        if (!parse_ms(v, out.heartbeat.timeout))
            bad_value("invalid --heartbeat-timeout '" + v + "' (milliseconds, > 0)");
        timeout_given = true;
    });
}

}  // namespace

ParseStatus parse_options(int argc, char** argv, Options& out, std::string& why) {
    bool heartbeat_period_given = false, heartbeat_timeout_given = false;
    CLI::App app{"mpirun"};
    declare_options(app, out, heartbeat_period_given, heartbeat_timeout_given);
    int program_start = argc;
    std::vector<std::string> words;
    if (cli11_words(app, argc, argv, words, program_start, why) != ParseStatus::ok) return ParseStatus::usage_error;
    std::reverse(words.begin(), words.end());  // CLI11 pops from the back
    try {
        app.parse(words);
    } catch (const CLI::CallForHelp&) {
        out.help = true;
        return ParseStatus::ok;
    } catch (const CLI::ValidationError& e) {
        // CLI11 puts the option's first name before our message, which names the option already.
        why = e.what();
        if (auto colon = why.find(": "); why.rfind("--", 0) == 0 && colon != std::string::npos)
            why.erase(0, colon + 2);
        return ParseStatus::usage_error;
    } catch (const CLI::ParseError& e) {
        why = e.what();
        if (why.rfind("The following argument", 0) == 0)  // CLI11's ExtrasError: an unknown option
            why = "unknown option " + why.substr(why.find(": ") + 2) + " (see --help)";
        return ParseStatus::usage_error;
    } catch (const std::exception& e) {  // bad_alloc on absurd input: still bad input
        why = e.what();
        return ParseStatus::usage_error;
    }
    if (out.version) return ParseStatus::ok;
    for (int i = program_start; i < argc; ++i) out.program.emplace_back(argv[i]);
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

ParseStatus resolve_binding(const Options& opts, std::string& bind, std::string& why) {
    const knobs::Knob& k = knobs::knob(knobs::Id::bind);
    std::optional<std::string> given = opts.bind_to;
    if (!given) given = knobs::raw(knobs::Id::bind);
    bind = k.default_value;
    if (!given) return ParseStatus::ok;
    const auto v = knobs::parse(k, *given);
    if (!v) {
        why = "invalid " + std::string(opts.bind_to ? "--bind-to" : "FTMPI_BIND") + " '" + *given + "' (" +
              knobs::valid_values(k) + ")";
        return ParseStatus::usage_error;
    }
    bind = v->text;
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
        "  --with-ft ulfm|mpi      the same as --comm-mode ulfm (Open MPI 5's spelling)\n"
        "  --msg-mode MODE         nop|reset|cont (env FTMPI_MSG_MODE)\n"
        "  --tag-output            prefix every output line with [rank]\n"
        "  --timeout S             kill the job after S seconds (exit code 124)\n"
        "  --bind-to auto|core|none  bind each process to a core (auto: when a host's processes\n"
        "                          fit on its cores, else none; core: always; env FTMPI_BIND)\n"
        "  --report-bindings       print where each process is bound (stderr)\n"
        "  --spares K              K hot spares wait in MPI_Init and take failed ranks at a\n"
        "                          REBUILD repair (0 to 1024; env FTMPI_SPARES; spread over the hosts)\n"
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
