// The one place that removes the transport's /dev/shm segments (issue 16 item 4). The transport
// names them, so it owns their clean-up; the daemon links this tiny target (no libfabric) to
// remove a reaped process's segments. Two kinds of names:
//   "<pid>:<uid>:<endpoint index>"       libfabric shm's region of a process
//   "ftmpi-ring.<pid>.<uid>.<token hex>"  our shared-memory rings and bulk slots (shm_ring.h)
// A process removes its own segments when it closes cleanly; one killed (SIGKILL) cannot.
#pragma once

#include <sys/types.h>

namespace ftmpi::shm_segments {

// Removes every transport segment of process `pid`, whichever user's (the daemon, once it has
// reaped the process and before the PID can be handed out again). Returns how many.
int remove_of_process(pid_t pid);

// Removes `uid`'s transport segments whose process no longer exists (a process about to open
// the transport, once: what a killed process of an earlier job left). Returns how many.
int remove_stale(uid_t uid);

}  // namespace ftmpi::shm_segments
