// What a stuck daemon's watchdog cannot do itself (issue 16 item 4): when mpirun is gone and
// the event loop does not shut down in time, the watchdog (launcher_watch.h) starts
// `ftmpid --end-children-of PID` and waits for it before it ends the daemon. This helper, a
// fresh process with its own allocator, SIGKILLs every child of the stuck daemon (its ranks)
// and, once each is dead, removes their /dev/shm segments through the one sweeper
// (shm_segments.h). Without it the ranks died only of PR_SET_PDEATHSIG, after the daemon, and
// nobody removed their segments (4 of 4 left per job, until the user's next job swept them).
#pragma once

#include <sys/types.h>

namespace ftmpi::daemon {

// Kills the children of `parent` (except this process), waits up to 5 s for each to be dead
// (a zombie counts: its pid cannot be reused until it is reaped) and removes their segments.
// Returns the number of children found.
int end_children_of(pid_t parent);

}  // namespace ftmpi::daemon
