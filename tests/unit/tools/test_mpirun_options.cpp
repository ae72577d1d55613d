// mpirun's command line on CLI11: every spelling users bring from Open MPI and MPICH still means
// what it meant, the program's own options stay the program's, and random argv never crashes,
// hangs or is accepted without a program (issue 16 item 8: one option parser for the tools).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "options.h"

using namespace ftmpi;
using namespace ftmpi::mpirun;

namespace {

// argv as parse_options sees it: argv[0] is "mpirun".
ParseStatus parse(std::vector<std::string> words, Options& out, std::string& why) {
    words.insert(words.begin(), "mpirun");
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    return parse_options(static_cast<int>(words.size()), argv.data(), out, why);
}

Options ok(const std::vector<std::string>& words) {
    Options o;
    std::string why;
    INFO("argv tail and why: " << why);
    REQUIRE(parse(words, o, why) == ParseStatus::ok);
    return o;
}

std::string refused(const std::vector<std::string>& words) {
    Options o;
    std::string why;
    REQUIRE(parse(words, o, why) == ParseStatus::usage_error);
    REQUIRE_FALSE(why.empty());
    return why;
}

}  // namespace

TEST_CASE("process count spellings of Open MPI and MPICH", "[mpirun][options]") {
    for (const auto& words : std::vector<std::vector<std::string>>{
             {"-n", "4", "a.out"}, {"-np", "4", "a.out"}, {"--np", "4", "a.out"}, {"-c", "4", "a.out"},
             {"--n=4", "a.out"}, {"-np=4", "a.out"}, {"--c", "4", "a.out"}}) {
        Options o = ok(words);
        REQUIRE(o.nprocs == 4u);
        REQUIRE(o.program == std::vector<std::string>{"a.out"});
    }
    REQUIRE(ok({"-n", "2", "-n", "3", "x"}).nprocs == 3u);  // the last one counts
}

TEST_CASE("hosts, hostfile, launcher and exports", "[mpirun][options]") {
    Options o = ok({"-H", "a:2,b", "-host", "c", "--host=d", "-machinefile", "hf", "-bootstrap", "slurm",
                    "-bootstrap-exec", "/bin/x", "-x", "A", "-x", "B=c=d", "--x=E=", "-map-by", "node", "p"});
    REQUIRE(o.hosts == std::vector<std::string>{"a:2", "b", "c", "d"});
    REQUIRE(o.hostfile == "hf");
    REQUIRE(o.launcher == LauncherKind::slurm);
    REQUIRE(o.launcher_exec == "/bin/x");
    REQUIRE(o.map_by == MapBy::node);
    REQUIRE(o.exports.size() == 3);
    REQUIRE(o.exports[0].first == "A");
    REQUIRE_FALSE(o.exports[0].second.has_value());
    REQUIRE(o.exports[1].second == std::string("c=d"));
    REQUIRE(o.exports[2].second == std::string());
}

TEST_CASE("modes, flags and timeouts", "[mpirun][options]") {
    Options o = ok({"--with-ft", "ulfm", "-msg-mode", "cont", "--tag-output", "-display-map", "--timeout", "2.5",
                    "--heartbeat-period", "50", "--heartbeat-timeout=400", "p"});
    REQUIRE(o.comm_mode == proto::CommMode::ulfm);
    REQUIRE(o.msg_mode == proto::MsgMode::cont);
    REQUIRE(o.tag_output);
    REQUIRE(o.display_map);
    REQUIRE(o.timeout_s == 2.5);
    REQUIRE(o.heartbeat.period.count() == 50);
    REQUIRE(o.heartbeat.timeout.count() == 400);
    REQUIRE(ok({"--comm-mode", "rebuild", "p"}).comm_mode == proto::CommMode::rebuild);
    REQUIRE(ok({"-spares", "2", "p"}).spares == 2u);
    REQUIRE(refused({"--spares", "abc", "p"}).find("--spares 'abc'") != std::string::npos);
    REQUIRE(ok({"-h"}).help);
    REQUIRE(ok({"--help"}).help);
    REQUIRE(ok({"-V"}).version);
    REQUIRE(ok({"--version"}).version);
}

TEST_CASE("--bind-to and --report-bindings; the flag beats FTMPI_BIND", "[mpirun][options]") {
    unsetenv("FTMPI_BIND");
    std::string bind, why;
    Options o = ok({"p"});
    REQUIRE_FALSE(o.report_bindings);
    REQUIRE(resolve_binding(o, bind, why) == ParseStatus::ok);
    REQUIRE(bind == "auto");  // the default: bound when the ranks fit on the cores
    o = ok({"--bind-to", "NONE", "--report-bindings", "p"});
    REQUIRE(o.report_bindings);
    REQUIRE(resolve_binding(o, bind, why) == ParseStatus::ok);
    REQUIRE(bind == "none");
    REQUIRE(refused({"--bind-to", "socket", "p"}) == "invalid --bind-to 'socket' (auto|core|none)");
    refused({"--bind-to", "", "p"});
    refused({"--report-bindings=1", "p"});
    setenv("FTMPI_BIND", "core", 1);
    REQUIRE(resolve_binding(ok({"p"}), bind, why) == ParseStatus::ok);
    REQUIRE(bind == "core");
    REQUIRE(resolve_binding(ok({"--bind-to=auto", "p"}), bind, why) == ParseStatus::ok);
    REQUIRE(bind == "auto");
    setenv("FTMPI_BIND", "cores", 1);  // not a value: a usage error naming the variable
    REQUIRE(resolve_binding(ok({"p"}), bind, why) == ParseStatus::usage_error);
    REQUIRE(why == "invalid FTMPI_BIND 'cores' (auto|core|none)");
    unsetenv("FTMPI_BIND");
}

TEST_CASE("the program's own options belong to the program", "[mpirun][options]") {
    REQUIRE(ok({"-n", "2", "prog", "-n", "5", "--host", "x", "--bogus"}).program ==
            std::vector<std::string>{"prog", "-n", "5", "--host", "x", "--bogus"});
    REQUIRE(ok({"-n", "2", "--", "-weird-name", "--help"}).program ==
            std::vector<std::string>{"-weird-name", "--help"});
    REQUIRE(ok({"--", "--"}).program == std::vector<std::string>{"--"});
    REQUIRE(ok({"-", "x"}).program == std::vector<std::string>{"-", "x"});
    // An option's value may start with '-' (it is the next word, whatever it looks like).
    REQUIRE(ok({"-x", "-A", "p"}).exports[0].first == "-A");
}

TEST_CASE("bad command lines are usage errors that say why", "[mpirun][options]") {
    REQUIRE(refused({"--frobnicate", "p"}).find("--frobnicate") != std::string::npos);
    REQUIRE(refused({"-n", "2"}).find("no program") != std::string::npos);
    REQUIRE(refused({"-np"}).find("'-np' needs a value") != std::string::npos);
    REQUIRE(refused({"--tag-output=1", "p"}).find("takes no value") != std::string::npos);
    REQUIRE(refused({"-n", "0", "p"}) == "invalid number of processes '0' (1 to 65535)");
    for (const char* n : {"-3", "abc", "100000", "99999999999999999999", "", "4x"}) refused({"-n", n, "p"});
    REQUIRE(refused({"--host", ",", "p"}) == "--host needs at least one host name");
    REQUIRE(refused({"--host", "", "p"}) == "--host needs at least one host name");
    REQUIRE(refused({"--comm-mode", "bogus", "p"}).find("--comm-mode 'bogus'") != std::string::npos);
    REQUIRE(refused({"--with-ft", "shrink", "p"}).find("--with-ft") != std::string::npos);
    REQUIRE(ok({"--with-ft", "mpi", "p"}).comm_mode == proto::CommMode::ulfm);
    REQUIRE(ok({"--with-ft", "MPI", "p"}).comm_mode == proto::CommMode::ulfm);
    REQUIRE(refused({"--with-ft", "mpix", "p"}).find("--with-ft 'mpix'") != std::string::npos);
    REQUIRE(refused({"--launcher-exec=", "p"}) == "--launcher-exec needs a program");
    REQUIRE(refused({"--iface=", "p"}).find("--iface needs") != std::string::npos);
    REQUIRE(refused({"-x", "=v", "p"}) == "-x needs a variable name");
    for (const char* t : {"0", "-1", "nan", "inf", "1e99", "x"}) refused({"--timeout", t, "p"});
    refused({"--heartbeat-period", "0", "p"});
    refused({"--heartbeat-period", "500", "--heartbeat-timeout", "100", "p"});  // timeout below period
    refused({"--map-by", "core", "p"});
    refused({"--launcher", "rsh", "p"});
}

// Random argv from option names (one or two dashes, with and without "=value"), values good and
// bad, and garbage bytes: parse_options always returns, and "ok" always means a program to run
// (or --help/--version).
TEST_CASE("random argv never crashes and never passes without a program", "[mpirun][options][fuzz]") {
    const std::vector<std::string> names = {"n", "np", "c", "host", "H", "hostfile", "machinefile", "map-by",
                                            "launcher", "bootstrap", "launcher-exec", "iface", "display-map",
                                            "x", "comm-mode", "with-ft", "msg-mode", "tag-output", "timeout", "spares",
                                            "bind-to", "report-bindings",
                                            "heartbeat-period", "heartbeat-timeout", "help", "version", "bogus", ""};
    const std::vector<std::string> values = {"4", "0", "-1", "65536", "slot", "node", "ssh", "ulfm", "shrink",
                                             "cont", "core", "none", "a:2,b", ",", "", "=", "--", "-", "A=b", "1e308", "nan",
                                             "99999999999999999999", std::string(5000, 'x'), "prog"};
    std::mt19937 rng(20261126);
    auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
    int accepted = 0;
    for (int iter = 0; iter < 3000; ++iter) {
        std::vector<std::string> words;
        const int count = static_cast<int>(rng() % 8);
        for (int w = 0; w < count; ++w) {
            switch (rng() % 5) {
                case 0: words.push_back((rng() % 2 ? "-" : "--") + pick(names)); break;
                case 1: words.push_back("--" + pick(names) + "=" + pick(values)); break;
                case 2:
                case 3: words.push_back(pick(values)); break;
                default: {
                    std::string junk(rng() % 12, '\0');
                    for (auto& ch : junk) ch = static_cast<char>(1 + rng() % 255);
                    words.push_back(junk);
                }
            }
        }
        Options o;
        std::string why;
        const ParseStatus st = parse(words, o, why);
        if (st == ParseStatus::ok) {
            ++accepted;
            REQUIRE((o.help || o.version || !o.program.empty()));
        } else {
            REQUIRE_FALSE(why.empty());
        }
    }
    REQUIRE(accepted > 0);  // the generator does reach valid command lines
}
