// What a daemon's watchdog removes when the event loop is stuck and the process must end
// without its own clean-up (remove_run_files): the run directory, the registry file that lets
// the tools find the daemon, and the per-user registry and base directories when they are
// empty. Both watchdogs use it: the private daemon's (launcher_watch.h) and the remote daemon's
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

    // Starts `/bin/sh` removing them, not waited for: the shell outlives the caller
    // (reparented) and finishes on its own. Allocates nothing (a stuck loop may hold the
    // allocator's lock), so it is safe in a watchdog thread just before _exit.
    void spawn();

private:
    std::string run_dir_, registry_file_, registry_dir_, base_dir_;
};

}  // namespace ftmpi::daemon
