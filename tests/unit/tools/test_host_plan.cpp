// mpirun's host plan: host lists and hostfiles, Slurm's compressed lists, placement, launcher
// command lines (the quoting is checked by a real /bin/sh), the connect-back address.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "host_plan.h"
#include "options.h"

using namespace ftmpi::mpirun;

namespace {

std::string temp_dir() {
    char tmpl[] = "/tmp/test_host_plan.XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    return tmpl;
}

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
    std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
}

std::string this_host() {
    char h[256] = {};
    gethostname(h, sizeof h - 1);
    return h;
}

// Runs `sh -c "printf '%s\n' WORDS"` and returns what the shell made of the quoted words.
std::vector<std::string> shell_words(const std::vector<std::string>& quoted) {
    std::string script = "printf '%s\\n'";
    for (const auto& q : quoted) script += " " + q;
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    std::vector<std::string> words;
    std::size_t start = 0;
    while (start < out.size()) {
        std::size_t nl = out.find('\n', start);
        words.push_back(out.substr(start, nl - start));
        start = nl + 1;
    }
    return words;
}

struct EnvGuard {  // restores one variable when the test section ends
    std::string name;
    std::optional<std::string> old;
    explicit EnvGuard(std::string n) : name(std::move(n)) {
        if (const char* v = std::getenv(name.c_str())) old = v;
    }
    ~EnvGuard() {
        if (old) setenv(name.c_str(), old->c_str(), 1);
        else unsetenv(name.c_str());
    }
};

}  // namespace

TEST_CASE("host list: names, slots, merging, bad input") {
    std::vector<Host> hosts;
    std::string why;
    REQUIRE(parse_host_list({"n1:2", "n2", "10.1.2.3:4", "n1:3"}, hosts, why) == HostStatus::ok);
    REQUIRE(hosts.size() == 3);
    CHECK(hosts[0].name == "n1");
    CHECK(hosts[0].slots == 5);  // duplicates merge, slots add
    CHECK(hosts[1].slots == 1);
    CHECK(hosts[2].name == "10.1.2.3");
    CHECK_FALSE(hosts[0].local);

    // Every spelling of this machine is one local host.
    hosts.clear();
    REQUIRE(parse_host_list({"localhost:2", this_host() + ":2", "127.0.0.1"}, hosts, why) == HostStatus::ok);
    REQUIRE(hosts.size() == 1);
    CHECK(hosts[0].local);
    CHECK(hosts[0].slots == 5);

    for (const char* bad : {"n1:0", "n1:", "n1:x", ":3", "-oProxyCommand=evil", "a b", "n1:2:3", "n;rm", "n1:99999999"}) {
        std::vector<Host> h;
        INFO(bad);
        CHECK(parse_host_list({bad}, h, why) == HostStatus::bad_syntax);
        CHECK_FALSE(why.empty());
    }
}

TEST_CASE("hostfile: Open MPI and MPICH forms, comments, bad files") {
    std::string dir = temp_dir();
    std::string why;
    std::vector<Host> hosts;
    std::string good = write_file(dir, "good",
                                  "# cluster\n\n  n1 slots=2 max_slots=8\nn2:3   # MPICH form\n"
                                  "n3\n10.0.0.7 max-slots=4\nn1 slots=1\n");
    REQUIRE(parse_hostfile(good, hosts, why) == HostStatus::ok);
    REQUIRE(hosts.size() == 4);
    CHECK(hosts[0].name == "n1");
    CHECK(hosts[0].slots == 3);
    CHECK(hosts[1].slots == 3);
    CHECK(hosts[2].slots == 1);
    CHECK(hosts[3].name == "10.0.0.7");
    CHECK(hosts[3].slots == 1);  // max_slots is accepted, not a slot count

    struct Bad { const char* text; const char* expect; };
    for (Bad b : {Bad{"n1 slots=0\n", "slots=0"}, Bad{"n1 slots=x\n", "slots=x"}, Bad{"n1 cores=2\n", "cores=2"},
                  Bad{"n1:2 slots=3\n", "twice"}, Bad{"# nothing\n\n", "no host"}, Bad{"-n1\n", "invalid host"}}) {
        INFO(b.text);
        std::vector<Host> h;
        REQUIRE(parse_hostfile(write_file(dir, "bad", b.text), h, why) == HostStatus::bad_syntax);
        CHECK(why.find(b.expect) != std::string::npos);
        CHECK(h.empty());
    }
    std::vector<Host> h;
    CHECK(parse_hostfile(dir, h, why) == HostStatus::unreadable);  // a directory
    CHECK(parse_hostfile(dir + "/missing", h, why) == HostStatus::unreadable);
    REQUIRE(mkfifo((dir + "/fifo").c_str(), 0600) == 0);
    CHECK(parse_hostfile(dir + "/fifo", h, why) == HostStatus::unreadable);  // must not block
    REQUIRE(std::system(("rm -rf " + dir).c_str()) == 0);
}

TEST_CASE("Slurm node lists and tasks per node") {
    std::vector<std::string> names;
    std::string why;
    REQUIRE(expand_slurm_nodelist("n[01-03,7],m5", names, why) == HostStatus::ok);
    CHECK(names == std::vector<std::string>{"n01", "n02", "n03", "n7", "m5"});  // each bound keeps its own width
    REQUIRE(expand_slurm_nodelist("node[8-10]", names, why) == HostStatus::ok);
    CHECK(names == std::vector<std::string>{"node8", "node9", "node10"});
    REQUIRE(expand_slurm_nodelist("r[1-2]n[001-002]-ib,single", names, why) == HostStatus::ok);
    CHECK(names == std::vector<std::string>{"r1n001-ib", "r1n002-ib", "r2n001-ib", "r2n002-ib", "single"});
    REQUIRE(expand_slurm_nodelist("x[098-101]", names, why) == HostStatus::ok);
    CHECK(names == std::vector<std::string>{"x098", "x099", "x100", "x101"});
    for (const char* bad : {"", "n[", "n]", "n[1-", "n[3-1]", "n[a-b]", "n[1-2", "n[[1]]", "a,,b", "n[0-99999999]",
                            "n[0-999]m[0-999]"}) {
        INFO(bad);
        std::vector<std::string> out{"kept"};
        CHECK(expand_slurm_nodelist(bad, out, why) == HostStatus::bad_syntax);
        CHECK(out == std::vector<std::string>{"kept"});  // untouched on failure
    }

    std::vector<std::uint32_t> tasks;
    REQUIRE(expand_slurm_tasks("2(x3),1", tasks, why) == HostStatus::ok);
    CHECK(tasks == std::vector<std::uint32_t>{2, 2, 2, 1});
    REQUIRE(expand_slurm_tasks("4", tasks, why) == HostStatus::ok);
    CHECK(tasks == std::vector<std::uint32_t>{4});
    for (const char* bad : {"", "0", "2(x0)", "2(3)", "2(x3", "x", "1,,2", "2(x99999999)"}) {
        INFO(bad);
        CHECK(expand_slurm_tasks(bad, tasks, why) == HostStatus::bad_syntax);
    }
}

TEST_CASE("collect_hosts: flags first, else the Slurm allocation") {
    EnvGuard g1("SLURM_JOB_NODELIST"), g2("SLURM_TASKS_PER_NODE"), g3("SLURM_NODELIST"),
        g4("SLURM_JOB_CPUS_PER_NODE"), g5("SLURM_STEP_ID");
    unsetenv("SLURM_NODELIST");
    unsetenv("SLURM_JOB_CPUS_PER_NODE");
    unsetenv("SLURM_STEP_ID");
    setenv("SLURM_JOB_NODELIST", "c[1-3]", 1);
    setenv("SLURM_TASKS_PER_NODE", "2(x2),1", 1);
    Options opts;
    std::vector<Host> hosts;
    bool from_slurm = false;
    std::string why;
    REQUIRE(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::ok);
    CHECK(from_slurm);
    REQUIRE(hosts.size() == 3);
    CHECK(hosts[2].name == "c3");
    CHECK(hosts[0].slots == 2);
    CHECK(hosts[2].slots == 1);

    opts.hosts = {"a:2"};  // flags win over the allocation
    REQUIRE(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::ok);
    CHECK_FALSE(from_slurm);
    REQUIRE(hosts.size() == 1);

    opts.hosts.clear();
    setenv("SLURM_TASKS_PER_NODE", "2", 1);  // 1 count for 3 nodes
    CHECK(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::bad_syntax);
    CHECK(why.find("SLURM_TASKS_PER_NODE") != std::string::npos);
    // Inside a step (mpirun under srun) the tasks are the step's: the job's CPUs count
    // (Slurm 22.05 in a 2-node job: SLURM_TASKS_PER_NODE=1, SLURM_JOB_CPUS_PER_NODE=1(x2)).
    setenv("SLURM_JOB_CPUS_PER_NODE", "4,2(x2)", 1);
    REQUIRE(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::ok);  // fallback
    REQUIRE(hosts.size() == 3);
    CHECK(hosts[0].slots == 4);
    CHECK(hosts[2].slots == 2);
    setenv("SLURM_TASKS_PER_NODE", "1(x3)", 1);
    REQUIRE(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::ok);
    CHECK(hosts[0].slots == 1);  // outside a step: the tasks
    setenv("SLURM_STEP_ID", "0", 1);
    REQUIRE(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::ok);
    CHECK(hosts[0].slots == 4);  // inside: the job's CPUs first
    unsetenv("SLURM_STEP_ID");
    setenv("SLURM_JOB_CPUS_PER_NODE", "4", 1);
    setenv("SLURM_TASKS_PER_NODE", "2", 1);
    CHECK(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::bad_syntax);
    CHECK(why.find("SLURM_JOB_CPUS_PER_NODE gives 1") != std::string::npos);
    unsetenv("SLURM_JOB_CPUS_PER_NODE");
    unsetenv("SLURM_TASKS_PER_NODE");
    setenv("SLURM_JOB_NODELIST", "c[1-", 1);
    CHECK(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::bad_syntax);
    unsetenv("SLURM_JOB_NODELIST");
    REQUIRE(collect_hosts(opts, hosts, from_slurm, why) == HostStatus::ok);
    CHECK(hosts.empty());  // this machine alone
}

TEST_CASE("placement: by slot, by node, wrap-around, unused hosts dropped") {
    std::vector<Host> hosts{{"a", 2, false}, {"b", 1, false}, {"c", 3, true}};
    Placement p = place_ranks(hosts, 6, MapBy::slot);
    CHECK(p.host_of_rank == std::vector<std::uint32_t>{0, 0, 1, 2, 2, 2});
    p = place_ranks(hosts, 8, MapBy::slot);  // wraps: a a b c c c | a a
    CHECK(p.host_of_rank == std::vector<std::uint32_t>{0, 0, 1, 2, 2, 2, 0, 0});
    p = place_ranks(hosts, 6, MapBy::node);  // a b c | a c | c
    CHECK(p.host_of_rank == std::vector<std::uint32_t>{0, 1, 2, 0, 2, 2});
    p = place_ranks(hosts, 9, MapBy::node);  // then a new round from a
    CHECK(p.host_of_rank == std::vector<std::uint32_t>{0, 1, 2, 0, 2, 2, 0, 1, 2});
    CHECK(p.ranks_of(2) == std::vector<std::uint32_t>{2, 4, 5, 8});

    p = place_ranks(hosts, 3, MapBy::slot);  // c gets nothing: no daemon there
    REQUIRE(p.hosts.size() == 2);
    CHECK_FALSE(p.local_index());
    CHECK(p.has_remote());
    p = place_ranks({{"a", 2, false}, {"me", 2, true}, {"b", 2, false}}, 2, MapBy::node);
    REQUIRE(p.hosts.size() == 2);  // a and me; b unused, indices renumbered
    CHECK(p.hosts[1].name == "me");
    CHECK(p.local_index() == 1u);
    CHECK(p.host_of_rank == std::vector<std::uint32_t>{0, 1});

    p = place_ranks({{"a", 2, false}, {"me", 3, true}}, 9, MapBy::slot);
    CHECK(describe_placement(p) ==
          "ftmpi: 9 ranks on 2 hosts\n"
          "  host 0 a: slots 2, ranks 0-1,5-6\n"
          "  host 1 me (this machine): slots 3, ranks 2-4,7-8\n");

    p = place_ranks({}, 4, MapBy::node);  // no host named: this machine
    REQUIRE(p.hosts.size() == 1);
    CHECK(p.hosts[0].local);
    CHECK_FALSE(p.has_remote());
    CHECK(p.host_of_rank == std::vector<std::uint32_t>{0, 0, 0, 0});
}

TEST_CASE("oversubscribed: more ranks than cores on some host") {
    // This machine alone: its CPUs count, not the slots place_ranks gave it (nprocs).
    CHECK_FALSE(oversubscribed(place_ranks({}, 2, MapBy::slot), 2));
    CHECK(oversubscribed(place_ranks({}, 3, MapBy::slot), 2));
    CHECK(oversubscribed(place_ranks({}, 8, MapBy::slot), 2));
    CHECK_FALSE(oversubscribed(place_ranks({}, 8, MapBy::slot), 8));
    // Other hosts: their listed slots. One crowded host is enough: the answer is the job's.
    const std::vector<Host> hosts{{"a", 2, false}, {"b", 2, false}};
    CHECK_FALSE(oversubscribed(place_ranks(hosts, 4, MapBy::node), 1));
    CHECK(oversubscribed(place_ranks(hosts, 5, MapBy::node), 64));
    CHECK(oversubscribed(place_ranks({{"a", 4, false}, {"me", 1, true}}, 2, MapBy::node), 1) == false);
    CHECK(oversubscribed(place_ranks({{"a", 1, false}, {"me", 8, true}}, 6, MapBy::slot), 2));
}

TEST_CASE("shell quoting survives a POSIX shell") {
    std::vector<std::string> nasty{"plain", "/abs/path/ftmpid", "--connect", "10.0.0.1:4000", "", " ", "a b",
                                   "it's", "'", "''", "\"dq\"", "$HOME", "`id`", "$(id)", "a;b", "a|b&c",
                                   "x\ny", "tab\there", "\\", "*", "?", "~", "#hash", "!bang", "{a,b}", "-n",
                                   "é ü", "a=b c"};
    std::vector<std::string> quoted;
    for (const auto& w : nasty) quoted.push_back(shell_quote(w));
    CHECK(shell_quote("plain") == "plain");
    CHECK(shell_quote("10.0.0.1:4000") == "10.0.0.1:4000");
    CHECK(shell_quote("") == "''");
    CHECK(shell_quote("it's") == "'it'\\''s'");
    // "x\ny" prints as two lines; compare line by line.
    std::vector<std::string> expect;
    for (const auto& w : nasty) {
        std::size_t start = 0;
        for (std::size_t nl; (nl = w.find('\n', start)) != std::string::npos; start = nl + 1)
            expect.push_back(w.substr(start, nl - start));
        expect.push_back(w.substr(start));
    }
    CHECK(shell_words(quoted) == expect);
}

TEST_CASE("launcher command lines") {
    std::vector<std::string> words{"/opt/ftmpi/bin/ftmpid", "--remote", "--connect", "10.0.0.1:4000", "it's"};
    auto ssh = launcher_argv({LauncherKind::ssh, "/usr/bin/ssh"}, "n1", words);
    CHECK(ssh == std::vector<std::string>{"/usr/bin/ssh", "-x", "-o", "BatchMode=yes", "n1", "/opt/ftmpi/bin/ftmpid",
                                          "--remote", "--connect", "10.0.0.1:4000", "'it'\\''s'"});
    auto exec = launcher_argv({LauncherKind::exec, "/x/launch"}, "n1", words);
    CHECK(exec == std::vector<std::string>{"/x/launch", "n1", "/opt/ftmpi/bin/ftmpid", "--remote", "--connect",
                                           "10.0.0.1:4000", "'it'\\''s'"});
    auto srun = launcher_argv({LauncherKind::slurm, "/usr/bin/srun"}, "n01", words);
    REQUIRE(srun.size() > words.size() + 2);
    CHECK(srun[0] == "/usr/bin/srun");
    CHECK(std::find(srun.begin(), srun.end(), "--nodelist=n01") != srun.end());
    CHECK(std::find(srun.begin(), srun.end(), "--ntasks=1") != srun.end());
    CHECK(std::find(srun.begin(), srun.end(), "--nodes=1") != srun.end());
    // srun execs the words itself: unquoted, at the end.
    CHECK(std::vector<std::string>(srun.end() - static_cast<long>(words.size()), srun.end()) == words);
}

TEST_CASE("choose_launcher: flags, environment, Slurm, PATH lookup") {
    EnvGuard gp("PATH"), ge("FTMPI_LAUNCHER_EXEC"), gj("SLURM_JOB_ID"), gj2("SLURM_JOBID");
    unsetenv("FTMPI_LAUNCHER_EXEC");
    unsetenv("SLURM_JOBID");
    setenv("SLURM_JOB_ID", "42", 1);
    std::string dir = temp_dir();
    for (const char* prog : {"ssh", "srun", "myexec"}) {
        std::string p = write_file(dir, prog, "#!/bin/sh\n");
        REQUIRE(chmod(p.c_str(), 0755) == 0);
    }
    write_file(dir, "notexec", "#!/bin/sh\n");
    setenv("PATH", dir.c_str(), 1);
    Options opts;
    LauncherChoice c;
    std::string why;
    REQUIRE(choose_launcher(opts, false, c, why) == HostStatus::ok);
    CHECK(c.kind == LauncherKind::ssh);
    CHECK(c.program == dir + "/ssh");
    REQUIRE(choose_launcher(opts, true, c, why) == HostStatus::ok);  // hosts from Slurm: srun
    CHECK(c.kind == LauncherKind::slurm);
    CHECK(c.program == dir + "/srun");

    setenv("FTMPI_LAUNCHER_EXEC", "myexec", 1);
    REQUIRE(choose_launcher(opts, true, c, why) == HostStatus::ok);
    CHECK(c.kind == LauncherKind::exec);
    CHECK(c.program == dir + "/myexec");
    opts.launcher = LauncherKind::ssh;  // an explicit --launcher beats the environment
    REQUIRE(choose_launcher(opts, false, c, why) == HostStatus::ok);
    CHECK(c.kind == LauncherKind::ssh);
    opts.launcher = LauncherKind::slurm;
    opts.launcher_exec = dir + "/myexec";  // Hydra's convention: PATH replaces srun
    REQUIRE(choose_launcher(opts, false, c, why) == HostStatus::ok);
    CHECK(c.kind == LauncherKind::slurm);
    CHECK(c.program == dir + "/myexec");

    unsetenv("SLURM_JOB_ID");  // srun outside an allocation would queue a job per daemon
    CHECK(choose_launcher(opts, false, c, why) == HostStatus::bad_syntax);
    CHECK(why.find("allocation") != std::string::npos);
    setenv("SLURM_JOB_ID", "42", 1);

    opts.launcher.reset();
    opts.launcher_exec = dir + "/notexec";
    CHECK(choose_launcher(opts, false, c, why) == HostStatus::bad_syntax);
    CHECK(why.find("--launcher-exec") != std::string::npos);
    opts.launcher_exec = dir;  // a directory
    CHECK(choose_launcher(opts, false, c, why) == HostStatus::bad_syntax);
    opts.launcher_exec.clear();
    unsetenv("FTMPI_LAUNCHER_EXEC");
    REQUIRE(unlink((dir + "/ssh").c_str()) == 0);
    CHECK(choose_launcher(opts, false, c, why) == HostStatus::no_launcher);
    CHECK(why.find("ssh") != std::string::npos);
    for (const char* f : {"srun", "myexec", "notexec"}) unlink((dir + "/" + f).c_str());
    REQUIRE(rmdir(dir.c_str()) == 0);
}

TEST_CASE("connect-back address: --iface by name or CIDR, never the loopback device by route") {
    EnvGuard g("FTMPI_IFACE");
    unsetenv("FTMPI_IFACE");
    std::string addr, why;
    REQUIRE(connect_back_address("lo", "ignored", addr, why) == HostStatus::ok);
    CHECK(addr == "127.0.0.1");
    REQUIRE(connect_back_address("127.0.0.0/8", "ignored", addr, why) == HostStatus::ok);
    CHECK(addr.rfind("127.", 0) == 0);
    setenv("FTMPI_IFACE", "127.0.0.1/32", 1);  // the environment when the flag is absent
    REQUIRE(connect_back_address("", "ignored", addr, why) == HostStatus::ok);
    CHECK(addr == "127.0.0.1");
    unsetenv("FTMPI_IFACE");
    CHECK(connect_back_address("no-such-if0", "x", addr, why) == HostStatus::no_address);
    CHECK(connect_back_address("240.0.0.0/8", "x", addr, why) == HostStatus::no_address);  // reserved, never assigned
    for (const char* bad : {"10.0.0.0/33", "10.0.0/8", "a/8", "10.0.0.0/"}) {
        INFO(bad);
        CHECK(connect_back_address(bad, "x", addr, why) == HostStatus::bad_syntax);
    }
    // The route to this machine's loopback is refused: no other host could use it.
    CHECK(connect_back_address("", "127.0.0.1", addr, why) == HostStatus::no_address);
    CHECK(why.find("loopback") != std::string::npos);
    CHECK(connect_back_address("", "no-such-host.invalid", addr, why) == HostStatus::no_address);
    // A non-loopback address of this machine is reached from itself: the route gives it back.
    ifaddrs* list = nullptr;
    REQUIRE(getifaddrs(&list) == 0);
    for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
        if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
        char buf[INET_ADDRSTRLEN] = {};
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
        if (std::string(buf) == "127.0.0.1") continue;
        INFO(buf);
        REQUIRE(connect_back_address("", buf, addr, why) == HostStatus::ok);
        CHECK(addr == buf);
        REQUIRE(connect_back_address(a->ifa_name, "ignored", addr, why) == HostStatus::ok);
    }
    freeifaddrs(list);
}
