// A private ftmpid's tie to the mpirun that started it (issue 16 item 4: nothing of a job may
// outlive mpirun, whichever way mpirun goes, SIGKILL included).
//
// mpirun keeps the write end of a pipe open for its whole life and hands the read end to the
// daemon (--watch-fd). End of file there means mpirun is gone. The event loop then shuts down
// in order (kills the jobs, removes the run files). In case the loop cannot - it is stuck -
// a watchdog thread, which needs nothing but this descriptor and the clock, ends the process
// after a grace period; the ranks, tied to the daemon by PR_SET_PDEATHSIG(SIGKILL), die with it.
// Before it does, it has its run files removed (last_resort_cleanup.h): a stuck loop never
// reaches its own clean-up. And first it has `ftmpid --end-children-of` end the ranks and
// remove their /dev/shm segments (orphan_sweep.h), which their death by PR_SET_PDEATHSIG would
// leave behind.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "event_loop.h"
#include "last_resort_cleanup.h"

namespace ftmpi::daemon {

class LauncherWatch {
public:
    // Takes ownership of `fd`. `on_gone` runs on the loop; the watchdog `_exit`s the process
    // `grace` after the end of file if it is still alive. Call after the signal mask is set
    // (the thread inherits it). The watchdog runs `cleanup` before it ends the process. False if
    // the thread cannot be started.
    bool start(EventLoop& loop, int fd, std::chrono::milliseconds grace, LastResortCleanup cleanup,
               std::function<void()> on_gone);

private:
    int fd_ = -1;
    bool reported_ = false;
};

}  // namespace ftmpi::daemon
