// See orphan_sweep.h.
#include "orphan_sweep.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <ftmpi/shm_segments.h>

namespace ftmpi::daemon {

namespace {

// State and parent of `pid` from /proc/PID/stat; false if it is gone.
bool stat_of(pid_t pid, char* state, pid_t* ppid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    FILE* f = std::fopen(path, "re");
    if (f == nullptr) return false;
    char buf[1024];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    // "PID (COMM) S PPID ...": COMM may hold spaces and parentheses; the last ')' ends it.
    const char* close = std::strrchr(buf, ')');
    int parent = 0;
    if (close == nullptr || std::sscanf(close + 1, " %c %d", state, &parent) != 2) return false;
    *ppid = parent;
    return true;
}

std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> kids;
    DIR* d = opendir("/proc");
    if (d == nullptr) return kids;
    while (dirent* e = readdir(d)) {
        char* end = nullptr;
        const long pid = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0' || pid <= 0 || pid == getpid()) continue;
        char state = 0;
        pid_t ppid = 0;
        if (stat_of(static_cast<pid_t>(pid), &state, &ppid) && ppid == parent) kids.push_back(static_cast<pid_t>(pid));
    }
    closedir(d);
    return kids;
}

bool dead(pid_t pid) {
    char state = 0;
    pid_t ppid = 0;
    return !stat_of(pid, &state, &ppid) || state == 'Z' || state == 'X';
}

}  // namespace

int end_children_of(pid_t parent) {
    const std::vector<pid_t> kids = children_of(parent);
    for (pid_t k : kids) kill(k, SIGKILL);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (pid_t k : kids) {
        while (!dead(k) && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        // Only a dead one: a live process could still be creating segments under its pid.
        if (dead(k)) (void)shm_segments::remove_of_process(k);
    }
    return static_cast<int>(kids.size());
}

}  // namespace ftmpi::daemon
