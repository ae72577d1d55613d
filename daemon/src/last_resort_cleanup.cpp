// See last_resort_cleanup.h.
#include "last_resort_cleanup.h"

#include <spawn.h>

namespace ftmpi::daemon {

LastResortCleanup::LastResortCleanup(std::string run_dir, std::string registry_file, std::string registry_dir,
                                     std::string base_dir)
    : run_dir_(std::move(run_dir)),
      registry_file_(std::move(registry_file)),
      registry_dir_(std::move(registry_dir)),
      base_dir_(std::move(base_dir)) {}

void LastResortCleanup::spawn() {
    // rm/rmdir of an empty name fail harmlessly (and quietly); rmdir refuses a directory that
    // another daemon still uses.
    char sh[] = "/bin/sh", c[] = "-c", name[] = "ftmpid-cleanup";
    char script[] = "/bin/rm -rf -- \"$1\" 2>/dev/null; /bin/rm -f -- \"$2\" 2>/dev/null; "
                    "/bin/rmdir -- \"$3\" \"$4\" 2>/dev/null; exit 0";
    char* argv[] = {sh, c, script, name, run_dir_.data(), registry_file_.data(), registry_dir_.data(),
                    base_dir_.data(), nullptr};
    char* envp[] = {nullptr};
    pid_t pid;
    (void)posix_spawn(&pid, argv[0], nullptr, nullptr, argv, envp);
}

}  // namespace ftmpi::daemon
