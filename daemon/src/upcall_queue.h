// Hand-off from PMIx's progress thread to the daemon's event loop.
//
// The PMIx server library calls our module functions on its own thread. Those functions only
// copy their arguments into an Upcall and push it here; the loop wakes on the eventfd, does the
// real work and then completes the upcall (runs PMIx's callback) from the loop thread.
#pragma once

#include <pmix_server.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace ftmpi::daemon {

enum class UpcallKind : std::uint8_t {
    client_connected,
    client_finalized,
    abort,         // `status` = exit code asked for, `message` = the reason text
    fence,         // `data` = the locally collected blob
    direct_modex,  // a request for a remote proc's data (none exist on a single host)
    notify_event,  // a client asked for an event to be propagated beyond this server
    spawn,         // REBUILD: `count` replacement processes from index `base`, `env` added
    // Not from a client: PMIx's answer to PmixHost::request_local_modex (several hosts) with
    // `data` of `rank`, for mpirun's request number `base` from host `count`.
    modex_answer,
};

struct Upcall {
    UpcallKind kind = UpcallKind::client_connected;
    std::string nspace;
    std::uint32_t rank = 0;
    int status = 0;
    std::string message;
    std::vector<char> data;
    // fence: who takes part ("*" = the whole namespace, else the sorted ranks); the daemons of
    // a job on several hosts match their contributions by it.
    std::string signature;
    // spawn: how many processes, the first process index (info "ftmpi.base"), and the
    // NAME=value entries the requester wants in their environment.
    std::uint32_t count = 0;
    std::uint32_t base = 0;
    bool has_base = false;
    std::vector<std::string> env;
    pmix_spawn_cbfunc_t spawn_cb = nullptr;
    pmix_op_cbfunc_t op_cb = nullptr;
    pmix_modex_cbfunc_t modex_cb = nullptr;
    void* cbdata = nullptr;

    // Run PMIx's completion callback exactly once (loop thread). A spawn reports `nspace`.
    void complete(pmix_status_t st);
    void complete_spawn(pmix_status_t st, const std::string& nspace);
    // Fence/modex completion; ownership of `blob` passes to PMIx until it calls our release.
    void complete_with_data(pmix_status_t st, std::vector<char> blob);
};

class UpcallQueue {
public:
    UpcallQueue();
    ~UpcallQueue();
    bool ok() const noexcept { return efd_ >= 0; }
    int fd() const noexcept { return efd_; }

    // Any thread. Never blocks for long: one mutex, one eventfd write.
    void push(Upcall&& u);
    // Loop thread: clears the eventfd and takes everything queued so far.
    std::deque<Upcall> drain();

private:
    int efd_ = -1;
    std::mutex mu_;
    std::deque<Upcall> items_;
};

}  // namespace ftmpi::daemon
