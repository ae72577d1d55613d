// Which core a new process goes to (daemon/src/bind_policy.h): like Open MPI, bound while a
// host's processes of the job fit on its cores, unbound when oversubscribed, least loaded first.
#include <catch2/catch.hpp>

#include "bind_policy.h"

using namespace ftmpi::daemon;

TEST_CASE("policy names and the job's environment", "[daemon][bind]") {
    REQUIRE(parse_bind_policy("auto") == BindPolicy::automatic);
    REQUIRE(parse_bind_policy("Core") == BindPolicy::core);
    REQUIRE(parse_bind_policy("none") == BindPolicy::none);
    REQUIRE_FALSE(parse_bind_policy("cores"));
    REQUIRE_FALSE(parse_bind_policy(""));
    REQUIRE(job_bind_policy({"A=1", "FTMPI_BIND=none"}, BindPolicy::automatic) == BindPolicy::none);
    REQUIRE(job_bind_policy({"FTMPI_BIND=none", "FTMPI_BIND=core"}, BindPolicy::automatic) == BindPolicy::core);
    REQUIRE(job_bind_policy({"FTMPI_BINDX=none"}, BindPolicy::automatic) == BindPolicy::automatic);
    REQUIRE(job_bind_policy({"FTMPI_BIND=bogus"}, BindPolicy::core) == BindPolicy::core);
    REQUIRE(job_reports_bindings({"FTMPI_REPORT_BINDINGS=1"}));
    REQUIRE_FALSE(job_reports_bindings({"FTMPI_REPORT_BINDINGS=0"}));
    REQUIRE_FALSE(job_reports_bindings({}));
}

TEST_CASE("auto binds a job that fits, round robin, and nothing when oversubscribed", "[daemon][bind]") {
    // Launch of 2 ranks on 2 cores: core 0, then core 1.
    std::vector<std::uint32_t> busy = {0, 0};
    REQUIRE(choose_core(BindPolicy::automatic, 2, busy) == 0);
    busy[0] = 1;
    REQUIRE(choose_core(BindPolicy::automatic, 2, busy) == 1);
    // 3 ranks on 2 cores, or 8: none bound (two busy ranks must never share a core while
    // another idles).
    REQUIRE(choose_core(BindPolicy::automatic, 3, {0, 0}) == -1);
    REQUIRE(choose_core(BindPolicy::automatic, 8, {0, 0}) == -1);
    // A REBUILD replacement of rank 1 (core 1 freed) goes to core 1, not onto rank 0's core.
    REQUIRE(choose_core(BindPolicy::automatic, 2, {1, 0}) == 1);
    // Another job of the same daemon holds core 0: this one starts on core 1.
    REQUIRE(choose_core(BindPolicy::automatic, 1, {1, 0}) == 1);
    // No topology: nothing to bind to.
    REQUIRE(choose_core(BindPolicy::automatic, 1, {}) == -1);
}

TEST_CASE("core always binds to the least loaded core; none never binds", "[daemon][bind]") {
    std::vector<std::uint32_t> busy = {0, 0};
    std::vector<int> got;
    for (int i = 0; i < 8; ++i) {
        const int c = choose_core(BindPolicy::core, 8, busy);
        got.push_back(c);
        ++busy[static_cast<std::size_t>(c)];
    }
    REQUIRE(got == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});
    REQUIRE(choose_core(BindPolicy::none, 1, {0, 0}) == -1);
}

TEST_CASE("the --report-bindings line says where and why", "[daemon][bind]") {
    REQUIRE(describe_binding(1, 42, "n7", 1, "1", BindPolicy::automatic, 2, 2) ==
            "ftmpi: rank 1 (pid 42) on n7: bound to core 1 (cpus 1)\n");
    REQUIRE(describe_binding(3, 9, "n7", -1, "", BindPolicy::automatic, 8, 2) ==
            "ftmpi: rank 3 (pid 9) on n7: not bound (--bind-to auto: 8 processes on 2 cores)\n");
    REQUIRE(describe_binding(0, 9, "n7", -1, "", BindPolicy::none, 1, 2) ==
            "ftmpi: rank 0 (pid 9) on n7: not bound (--bind-to none)\n");
}
