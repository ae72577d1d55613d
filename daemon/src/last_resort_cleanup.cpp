// See last_resort_cleanup.h.
#include "last_resort_cleanup.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace ftmpi::daemon {

LastResortCleanup::LastResortCleanup(std::string run_dir, std::string registry_file, std::string registry_dir,
                                     std::string base_dir)
    : run_dir_(std::move(run_dir)),
      registry_file_(std::move(registry_file)),
      registry_dir_(std::move(registry_dir)),
      base_dir_(std::move(base_dir)),
      self_pid_(std::to_string(getpid())) {
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) self_exe_.assign(exe, static_cast<std::size_t>(n));
}

void LastResortCleanup::run() {
    sweep_children();
    remove_files();
}

void LastResortCleanup::sweep_children() {
    if (self_exe_.empty()) return;
    char opt[] = "--end-children-of";
    char* argv[] = {self_exe_.data(), opt, self_pid_.data(), nullptr};
    char* envp[] = {nullptr};
    pid_t sweeper;
    if (posix_spawn(&sweeper, argv[0], nullptr, nullptr, argv, envp) != 0) return;
    // If the loop woke and reaped it first, waitpid fails with ECHILD: done either way.
    while (waitpid(sweeper, nullptr, 0) < 0 && errno == EINTR) {
    }
}

void LastResortCleanup::remove_files() {
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
