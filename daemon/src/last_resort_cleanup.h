// What a daemon's watchdog does when the event loop is stuck and the process must end without
// its own clean-up (remove_run_files): first end the daemon's ranks and remove their /dev/shm
// segments (`ftmpid --end-children-of PID`, orphan_sweep.h: they would otherwise die of
// PR_SET_PDEATHSIG after us with nobody to remove them), then remove the run directory, the
// registry file that lets the tools find the daemon, and the per-user registry and base
// directories when they are empty. Both watchdogs use it: the private daemon's (launcher_watch.h) and the remote daemon's
// (daemon_hub.cpp). Without the registry file and the directories, /tmp/ftmpi-$UID/daemons/<pid>
// stayed on the host after a stuck daemon ended (issue 16 item 4: nothing left behind).
#pragma once

#include <string>

namespace ftmpi::daemon {

class LastResortCleanup {
public:
    LastResortCleanup() = default;
    // Empty names are skipped. The directories are removed only when empty.
    LastResortCleanup(std::string run_dir, std::string registry_file, std::string registry_dir,
                      std::string base_dir);

    // The sweep of the ranks (waited for; it gives up after 5 s), then `/bin/sh` removing the
    // files, not waited for: the shell outlives the caller (reparented) and finishes on its own.
    // Allocates nothing (a stuck loop may hold the allocator's lock: every argument was built
    // by the constructor), so it is safe in a watchdog thread just before _exit.
    void run();

private:
    void sweep_children();
    void remove_files();

    std::string run_dir_, registry_file_, registry_dir_, base_dir_;
    std::string self_exe_, self_pid_;  // for the sweep; empty self_exe_ skips it
};

}  // namespace ftmpi::daemon
