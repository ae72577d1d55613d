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

void sleep_seconds(int s) { std::this_thread::sleep_for(std::chrono::seconds(s)); }

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: pmix_rank exchange|finalize|sigkill R|exit R CODE|abort R CODE|sleep|survive R\n");
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
