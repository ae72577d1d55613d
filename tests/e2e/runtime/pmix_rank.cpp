// A stand-in for an MPI rank that talks PMIx directly, so the runtime can be tested without the
// MPI library. Usage: pmix_rank <scenario> [args]; see main() for the scenarios. Every rank
// writes its pid to $FTMPI_TEST_DIR/pid.<rank> (when set) so drivers can check that nothing of
// the job survives.
#include <pmix.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

pmix_proc_t g_me;
std::atomic<int> g_failed_rank{-1};

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            std::fprintf(stderr, "rank %u: check failed: %s: ", g_me.rank, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                                \
            std::fprintf(stderr, "\n");                                       \
            std::exit(10);                                                    \
        }                                                                     \
    } while (0)

void write_pid_file(const char* rank) {
    const char* dir = std::getenv("FTMPI_TEST_DIR");
    if (dir == nullptr) return;
    std::string path = std::string(dir) + "/pid." + rank;
    if (FILE* f = std::fopen(path.c_str(), "w")) {
        std::fprintf(f, "%d\n", static_cast<int>(getpid()));
        std::fclose(f);
    }
}

std::uint32_t job_size() {
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, g_me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t* val = nullptr;
    pmix_status_t rc = PMIx_Get(&wild, PMIX_JOB_SIZE, nullptr, 0, &val);
    CHECK(rc == PMIX_SUCCESS && val != nullptr, "PMIx_Get(JOB_SIZE): %s", PMIx_Error_string(rc));
    std::uint32_t n = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return n;
}

void fence_all() {
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, g_me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = true;
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&wild, 1, &info, 1);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Fence: %s", PMIx_Error_string(rc));
}

// (a)/(i): every rank publishes a key; after the fence each reads every other rank's key.
void exchange() {
    std::uint32_t n = job_size();
    CHECK(n == static_cast<std::uint32_t>(std::atoi(std::getenv("FTMPI_NPROCS"))), "size %u", n);
    std::string mine = "value-of-rank-" + std::to_string(g_me.rank);
    pmix_value_t v;
    PMIx_Value_load(&v, mine.c_str(), PMIX_STRING);
    CHECK(PMIx_Put(PMIX_GLOBAL, "ftmpi.test", &v) == PMIX_SUCCESS, "put");
    PMIx_Value_destruct(&v);
    CHECK(PMIx_Commit() == PMIX_SUCCESS, "commit");
    fence_all();
    for (std::uint32_t r = 0; r < n; ++r) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, g_me.nspace, r);
        pmix_value_t* got = nullptr;
        pmix_status_t rc = PMIx_Get(&peer, "ftmpi.test", nullptr, 0, &got);
        CHECK(rc == PMIX_SUCCESS && got != nullptr && got->type == PMIX_STRING, "get from %u: %s", r,
              PMIx_Error_string(rc));
        std::string want = "value-of-rank-" + std::to_string(r);
        CHECK(want == got->data.string, "rank %u has '%s'", r, got->data.string);
        PMIX_VALUE_RELEASE(got);
    }
    pmix_value_t* host = nullptr;
    CHECK(PMIx_Get(&g_me, PMIX_HOSTNAME, nullptr, 0, &host) == PMIX_SUCCESS, "hostname");
    PMIX_VALUE_RELEASE(host);
    std::printf("rank %u of %u: exchange ok\n", g_me.rank, n);
}

void on_proc_aborted(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo, pmix_info_t*,
                     size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strncmp(info[i].key, PMIX_EVENT_AFFECTED_PROC, PMIX_MAX_KEYLEN) == 0)
            g_failed_rank = static_cast<int>(info[i].value.data.proc->rank);
    }
    if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

extern "C" char** environ;

// Writes "export NAME='value'" lines for every PMIX_* variable, atomically (tmp + rename).
void write_pmix_env(const std::string& path) {
    const std::string tmp = path + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "w");
    if (f == nullptr) return;
    for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "PMIX_", 5) != 0) continue;
        const char* eq = std::strchr(*e, '=');
        if (eq == nullptr || std::strchr(eq, '\'') != nullptr) continue;
        std::fprintf(f, "export %.*s='%s'\n", static_cast<int>(eq - *e), *e, eq + 1);
    }
    std::fclose(f);
    std::rename(tmp.c_str(), path.c_str());
}

void sleep_seconds(int s) { std::this_thread::sleep_for(std::chrono::seconds(s)); }

// A client that tells the server about an event, as any PMIx program may: the daemon must
// survive it, whatever the code, range and info (issue 16 item 3: it used to crash).
void notify_storm(int count) {
    const std::uint32_t n = job_size();
    pmix_proc_t victim;
    PMIX_LOAD_PROCID(&victim, g_me.nspace, (g_me.rank + 1) % n);
    const pmix_data_range_t ranges[] = {PMIX_RANGE_NAMESPACE, PMIX_RANGE_GLOBAL, PMIX_RANGE_SESSION,
                                        PMIX_RANGE_LOCAL, PMIX_RANGE_PROC_LOCAL};
    const pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_LOST_CONNECTION, -4242};
    for (int i = 0; i < count; ++i) {
        pmix_info_t info[2];
        PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &victim, PMIX_PROC);
        const char* junk = "junk";
        PMIx_Info_load(&info[1], "ftmpi.junk", junk, PMIX_STRING);
        const size_t ninfo = i % 3 == 2 ? 0 : (i % 3 == 1 ? 2 : 1);
        pmix_status_t rc = PMIx_Notify_event(codes[i % 4], &g_me, ranges[i % 5], ninfo ? info : nullptr, ninfo,
                                             nullptr, nullptr);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED && i == 0)
            std::fprintf(stderr, "rank %u: notify returned %s\n", g_me.rank, PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: pmix_rank exchange|finalize|sigkill R|exit R CODE|abort R CODE|sleep|survive R|notify R N|serve SECS\n");
        return 2;
    }
    const std::string what = argv[1];
    const int target = argc > 2 ? std::atoi(argv[2]) : -1;
    const int code = argc > 3 ? std::atoi(argv[3]) : 0;
    const char* env_rank = std::getenv("FTMPI_RANK");
    write_pid_file(env_rank != nullptr ? env_rank : "x");

    pmix_status_t rc = PMIx_Init(&g_me, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 9;
    }
    const bool chosen = static_cast<int>(g_me.rank) == target;

    if (what == "exchange") {
        exchange();
    } else if (what == "finalize") {
        // nothing besides init/finalize
    } else if (what == "sigkill" || what == "exit" || what == "abort") {
        fence_all();  // everybody is up before the failure
        if (chosen && what == "sigkill") raise(SIGKILL);
        if (chosen && what == "exit") std::exit(code);
        if (chosen && what == "abort") PMIx_Abort(code, "test abort", nullptr, 0);
        sleep_seconds(30);  // the survivors must be killed by the runtime long before this
    } else if (what == "fence_after_death") {
        // Survivors fence after a peer died, or (CODE 1) while it is dying; non-ABORT mode.
        // Must not hang; prints the status.
        const bool late = code == 1;
        if (!late) {
            if (chosen) raise(SIGKILL);
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        } else if (chosen) {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            raise(SIGKILL);
        }
        pmix_proc_t wild;
        PMIX_LOAD_PROCID(&wild, g_me.nspace, PMIX_RANK_WILDCARD);
        pmix_info_t info;
        int secs = 5;
        PMIx_Info_load(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
        rc = PMIx_Fence(&wild, 1, &info, 1);
        std::printf("rank %u: fence after death returned %s\n", g_me.rank, PMIx_Error_string(rc));
    } else if (what == "notify") {
        // Rank TARGET (-1: every rank) sends CODE (default 20) events, then all fence and finish.
        if (chosen || target < 0) notify_storm(code > 0 ? code : 20);
        fence_all();
        std::printf("rank %u: notify done\n", g_me.rank);
    } else if (what == "serve") {
        // Rank 0 publishes the job's PMIx environment (for an intruder test) to
        // $FTMPI_TEST_DIR/pmix_env, then every rank waits until $FTMPI_TEST_DIR/stop exists (at
        // most SECS seconds), exchanges keys and finishes. A failure event makes the rank say so.
        pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED};
        rc = PMIx_Register_event_handler(codes, 1, nullptr, 0, on_proc_aborted, nullptr, nullptr);
        CHECK(rc >= 0, "register handler: %s", PMIx_Error_string(rc));
        const std::string dir = std::getenv("FTMPI_TEST_DIR") ? std::getenv("FTMPI_TEST_DIR") : ".";
        if (g_me.rank == 0) write_pmix_env(dir + "/pmix_env");
        const std::string stop = dir + "/stop";
        for (int i = 0; i < (target > 0 ? target : 30) * 20 && access(stop.c_str(), F_OK) != 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        exchange();
        CHECK(g_failed_rank < 0, "rank %u was told rank %d failed, but nobody did", g_me.rank, g_failed_rank.load());
    } else if (what == "sleep") {
        sleep_seconds(60);
    } else if (what == "survive") {
        pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED};
        rc = PMIx_Register_event_handler(codes, 1, nullptr, 0, on_proc_aborted, nullptr, nullptr);
        CHECK(rc >= 0, "register handler: %s", PMIx_Error_string(rc));
        fence_all();
        if (chosen) raise(SIGKILL);
        for (int i = 0; i < 1000 && g_failed_rank < 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        CHECK(g_failed_rank == target, "saw failure of rank %d, expected %d", g_failed_rank.load(), target);
        std::printf("rank %u saw the failure of rank %d\n", g_me.rank, g_failed_rank.load());
    } else {
        std::fprintf(stderr, "unknown scenario %s\n", what.c_str());
        return 2;
    }
    std::fflush(stdout);
    rc = PMIx_Finalize(nullptr, 0);
    return rc == PMIX_SUCCESS ? 0 : 11;
}
