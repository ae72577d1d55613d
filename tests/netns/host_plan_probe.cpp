// mpirun's host plan (tools/mpirun/host_plan.h) against real launchers and real networks:
//   host_plan_probe launch ssh|exec|slurm PROGRAM HOST WORD...
//     runs WORD... on HOST exactly as mpirun starts a remote daemon: the argv comes from
//     launcher_argv() and one secret-like line is written to the launcher's standard input,
//     then stdin is closed. Output passes through; the exit status is the launcher's.
//   host_plan_probe address IFACE FIRST_REMOTE
//     prints connect_back_address(IFACE, FIRST_REMOTE) (IFACE "" = none), or exits 1 with why.
//   host_plan_probe nodelist LIST
//     prints expand_slurm_nodelist(LIST), one name a line (as `scontrol show hostnames`).
// The netns and Slurm tests use it to check the launchers (the namespace hosts' launcher-exec
// script, srun) with nasty words and the address choice inside namespace hosts.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "host_plan.h"

using namespace ftmpi::mpirun;

namespace {

int usage() {
    std::fprintf(stderr, "usage: host_plan_probe launch ssh|exec|slurm PROGRAM HOST WORD...\n"
                         "       host_plan_probe address IFACE FIRST_REMOTE\n"
                         "       host_plan_probe nodelist LIST\n");
    return 2;
}

int address(const char* iface, const char* first_remote) {
    std::string addr, why;
    if (connect_back_address(iface, first_remote, addr, why) != HostStatus::ok) {
        std::fprintf(stderr, "host_plan_probe: %s\n", why.c_str());
        return 1;
    }
    std::printf("%s\n", addr.c_str());
    return 0;
}

int nodelist(const char* list) {
    std::vector<std::string> names;
    std::string why;
    if (expand_slurm_nodelist(list, names, why) != HostStatus::ok) {
        std::fprintf(stderr, "host_plan_probe: %s\n", why.c_str());
        return 1;
    }
    for (const auto& n : names) std::printf("%s\n", n.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "address") == 0) return address(argv[2], argv[3]);
    if (argc == 3 && std::strcmp(argv[1], "nodelist") == 0) return nodelist(argv[2]);
    if (argc < 6 || std::strcmp(argv[1], "launch") != 0) return usage();
    ++argv;
    --argc;
    LauncherChoice launcher;
    if (std::strcmp(argv[1], "ssh") == 0) launcher.kind = LauncherKind::ssh;
    else if (std::strcmp(argv[1], "exec") == 0) launcher.kind = LauncherKind::exec;
    else if (std::strcmp(argv[1], "slurm") == 0) launcher.kind = LauncherKind::slurm;
    else return usage();
    launcher.program = argv[2];
    std::vector<std::string> words(argv + 4, argv + argc);
    std::vector<std::string> full = launcher_argv(launcher, argv[3], words);
    std::vector<char*> cargv;
    for (auto& w : full) cargv.push_back(w.data());
    cargv.push_back(nullptr);

    int in[2];
    if (pipe(in) != 0) return 1;
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        dup2(in[0], 0);
        close(in[0]);
        close(in[1]);
        execvp(cargv[0], cargv.data());
        std::perror(cargv[0]);
        _exit(127);
    }
    close(in[0]);
    const char line[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n";
    if (write(in[1], line, sizeof line - 1) != static_cast<ssize_t>(sizeof line - 1)) std::perror("write");
    close(in[1]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
