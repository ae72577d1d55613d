// Another local user's PMIx client (security tests, SPEC 5.2). Run with a job's PMIx
// environment (server URI, namespace, rank: everything an intruder could learn or guess) and,
// for the tests, as another uid and with fake_uid.so preloaded. It tries what issue 16 item 3
// found possible: join the job's PMIx server, read the job's data, inject a failure event,
// make the daemon spawn, abort the job. Exit 0 when it was refused at the door, 1 when it got
// in (it then reports which step worked), 4 when PMIx_Init did not return (a hang is a fail).
#include <pmix.h>

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

void on_alarm(int) {
    const char msg[] = "intruder: PMIx_Init did not return within 20 s\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(4);
}

}  // namespace

int main() {
    signal(SIGALRM, on_alarm);
    alarm(20);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    alarm(0);
    if (rc != PMIX_SUCCESS) {
        std::printf("intruder: refused (%s)\n", PMIx_Error_string(rc));
        return 0;
    }
    std::printf("intruder: GOT IN as %s rank %u\n", me.nspace, me.rank);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t* val = nullptr;
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, nullptr, 0, &val);
    std::printf("intruder: read the job size: %s\n", PMIx_Error_string(rc));
    if (val != nullptr) PMIX_VALUE_RELEASE(val);

    pmix_proc_t victim;
    PMIX_LOAD_PROCID(&victim, me.nspace, 1);
    pmix_info_t info;
    PMIx_Info_load(&info, PMIX_EVENT_AFFECTED_PROC, &victim, PMIX_PROC);
    rc = PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &victim, PMIX_RANGE_NAMESPACE, &info, 1, nullptr, nullptr);
    std::printf("intruder: injected a failure event: %s\n", PMIx_Error_string(rc));

    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("/bin/true");
    app.maxprocs = 1;
    std::uint32_t base = 1000;
    pmix_info_t sinfo;
    PMIx_Info_load(&sinfo, "ftmpi.base", &base, PMIX_UINT32);
    pmix_nspace_t child;
    rc = PMIx_Spawn(&sinfo, 1, &app, 1, child);
    std::printf("intruder: spawn: %s\n", PMIx_Error_string(rc));

    rc = PMIx_Abort(99, "intruder abort", nullptr, 0);
    std::printf("intruder: abort: %s\n", PMIx_Error_string(rc));
    std::fflush(stdout);
    _exit(1);
}
