// A rank for the host-failure tests (hostfail_hosts.sh, tests/bench/host_detect.sh) that talks
// PMIx directly, so host loss is tested without the MPI library's transport. It records every
// failure event it gets (PMIX_ERR_PROC_ABORTED): how many, which processes each names
// (PMIX_EVENT_AFFECTED_PROCS, else PMIX_EVENT_AFFECTED_PROC) and when the first arrived
// (CLOCK_REALTIME: the namespace hosts share the machine's clock).
//
//   host_loss_rank wait SECS [VICTIM]  fence; VICTIM (if given) writes $FTMPI_TEST_DIR/victim_ns
//                                      and SIGKILLs itself; the others wait up to SECS for an
//                                      event, then 500 ms more (a second event would show), and
//                                      print one line (below)
//   host_loss_rank busy SECS           fence, then spin on the CPU for SECS; print the line
//   host_loss_rank idle SECS [nowait]  fence; every process but 0 finishes at once; process 0
//                                      waits until they are reaped (at most SECS; not with
//                                      `nowait`: then its request races their exits), then asks
//                                      for N-1 replacements (PMIx spawn as REBUILD does), which
//                                      print "replacement P on HOST" and finish; process 0 prints
//                                      "spawned N-1" (or "spawn failed: ...") and finishes
//
// Line: "rank R on HOST: events E procs P1,P2,... first_ns T" ("events 0" when none came).
// Every rank writes its pid to $FTMPI_TEST_DIR/pid.R and, after the fence, ready.R.
#include <pmix.h>

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

pmix_proc_t g_me;
std::mutex g_mu;
int g_events = 0;
std::vector<pmix_rank_t> g_procs;
long long g_first_ns = 0;

long long realtime_ns() {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

void on_aborted(size_t, pmix_status_t, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo, pmix_info_t*,
                size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    const long long now = realtime_ns();
    std::vector<pmix_rank_t> named;
    const pmix_proc_t* one = nullptr;
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS) && info[i].value.type == PMIX_DATA_ARRAY &&
            info[i].value.data.darray != nullptr && info[i].value.data.darray->type == PMIX_PROC) {
            const auto* p = static_cast<const pmix_proc_t*>(info[i].value.data.darray->array);
            for (size_t k = 0; k < info[i].value.data.darray->size; ++k) named.push_back(p[k].rank);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            one = info[i].value.data.proc;
        }
    }
    if (named.empty() && one != nullptr) named.push_back(one->rank);
    if (named.empty() && source != nullptr) named.push_back(source->rank);
    {
        std::lock_guard<std::mutex> lock(g_mu);
        if (g_events++ == 0) g_first_ns = now;
        g_procs.insert(g_procs.end(), named.begin(), named.end());
    }
    if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void touch(const std::string& name, const std::string& text) {
    const char* dir = std::getenv("FTMPI_TEST_DIR");
    if (dir == nullptr) return;
    const std::string path = std::string(dir) + "/" + name;
    const std::string tmp = path + ".tmp";
    if (FILE* f = std::fopen(tmp.c_str(), "w")) {
        std::fprintf(f, "%s\n", text.c_str());
        std::fclose(f);
        std::rename(tmp.c_str(), path.c_str());  // readers never see half a line
    }
}

bool fence_all() {
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, g_me.nspace, PMIX_RANK_WILDCARD);
    return PMIx_Fence(&wild, 1, nullptr, 0) == PMIX_SUCCESS;
}

// Waits until process `rank` (its pid file) is gone and reaped by its daemon.
template <typename TimePoint>
bool wait_reaped(unsigned rank, TimePoint end) {
    const char* dir = std::getenv("FTMPI_TEST_DIR");
    if (dir == nullptr) return false;
    const std::string path = std::string(dir) + "/pid." + std::to_string(rank);
    while (std::chrono::steady_clock::now() < end) {
        long pid = 0;
        if (FILE* f = std::fopen(path.c_str(), "r")) {
            if (std::fscanf(f, "%ld", &pid) != 1) pid = 0;
            std::fclose(f);
        }
        if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0) return true;  // a zombie still answers
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

// REBUILD's request (ftmpi/src/runtime.cpp): `count` new processes from index `base`.
pmix_status_t spawn_replacements(std::uint32_t base, std::uint32_t count) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("ftmpi-replacement");
    app.maxprocs = static_cast<int>(count);
    std::string replaces = "FTMPI_REPLACES=";
    for (std::uint32_t i = 0; i < count; ++i) replaces += (i > 0 ? "," : "") + std::to_string(i + 1);
    app.env = static_cast<char**>(calloc(2, sizeof(char*)));
    app.env[0] = strdup(replaces.c_str());
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, "ftmpi.base", &base, PMIX_UINT32);
    pmix_nspace_t child;
    pmix_status_t rc = PMIx_Spawn(&info, 1, &app, 1, child);
    PMIX_INFO_DESTRUCT(&info);
    PMIX_APP_DESTRUCT(&app);
    return rc;
}

std::string host_name() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return host;
}

void report() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::lock_guard<std::mutex> lock(g_mu);
    std::sort(g_procs.begin(), g_procs.end());
    std::string procs;
    for (pmix_rank_t r : g_procs) procs += (procs.empty() ? "" : ",") + std::to_string(r);
    std::printf("rank %u on %s: events %d procs %s first_ns %lld\n", g_me.rank, host, g_events,
                procs.empty() ? "-" : procs.c_str(), g_first_ns);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: host_loss_rank wait SECS [VICTIM] | busy SECS | idle SECS\n");
        return 2;
    }
    const std::string what = argv[1];
    const double secs = std::atof(argv[2]);
    const long victim = argc > 3 ? std::atol(argv[3]) : -1;
    if (PMIx_Init(&g_me, nullptr, 0) != PMIX_SUCCESS) {
        std::fprintf(stderr, "host_loss_rank: PMIx_Init failed\n");
        return 3;
    }
    touch("pid." + std::to_string(g_me.rank), std::to_string(getpid()));
    const char* np = std::getenv("FTMPI_NPROCS");
    const std::uint32_t nprocs = np != nullptr ? static_cast<std::uint32_t>(std::atol(np)) : 0;
    if (what == "idle" && g_me.rank >= nprocs) {  // a replacement: no fence (the others are gone)
        std::printf("replacement %u on %s\n", g_me.rank, host_name().c_str());
        std::fflush(stdout);
        PMIx_Finalize(nullptr, 0);
        return 0;
    }
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED};
    PMIx_Register_event_handler(codes, 1, nullptr, 0, on_aborted, nullptr, nullptr);
    if (!fence_all()) {
        std::fprintf(stderr, "rank %u: fence failed\n", g_me.rank);
        return 4;
    }
    touch("ready." + std::to_string(g_me.rank), "1");
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
    if (what == "wait") {
        if (victim == static_cast<long>(g_me.rank)) {
            touch("victim_ns", std::to_string(realtime_ns()));
            raise(SIGKILL);
        }
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(g_mu);
                if (g_events > 0) break;
            }
            if (std::chrono::steady_clock::now() >= end) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    } else if (what == "busy") {
        volatile unsigned long spin = 0;
        while (std::chrono::steady_clock::now() < end) {
            for (int i = 0; i < 100000; ++i) spin = spin + 1;
        }
    } else if (what == "idle") {
        if (g_me.rank != 0) {
            PMIx_Finalize(nullptr, 0);
            return 0;
        }
        bool gone = true;
        if (argc <= 3 || std::strcmp(argv[3], "nowait") != 0) {
            for (std::uint32_t r = 1; r < nprocs; ++r) gone = wait_reaped(r, end) && gone;
            // Their daemons report the exits at once; give mpirun a moment to have read them.
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
        }
        const pmix_status_t rc = gone ? spawn_replacements(nprocs, nprocs - 1) : PMIX_ERR_TIMEOUT;
        if (rc == PMIX_SUCCESS)
            std::printf("spawned %u\n", nprocs - 1);
        else
            std::printf("spawn failed: %s\n", PMIx_Error_string(rc));
        std::fflush(stdout);
        PMIx_Finalize(nullptr, 0);
        return rc == PMIX_SUCCESS ? 0 : 5;
    } else {
        std::fprintf(stderr, "host_loss_rank: unknown mode %s\n", what.c_str());
        return 2;
    }
    report();
    PMIx_Finalize(nullptr, 0);
    return 0;
}
