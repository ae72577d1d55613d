#include "ftmpi/shm_segments.h"

#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace ftmpi::shm_segments {
namespace {

constexpr const char* kRingPrefix = "ftmpi-ring.";

// The process and user a transport segment belongs to; false for any other name.
bool parse(const char* name, unsigned long* pid, unsigned long* uid) {
  const std::size_t plen = std::strlen(kRingPrefix);
  int consumed = 0;
  if (std::strncmp(name, kRingPrefix, plen) == 0) {
    unsigned long long token = 0;
    return std::sscanf(name + plen, "%lu.%lu.%llx%n", pid, uid, &token, &consumed) == 3 &&
           name[plen + static_cast<std::size_t>(consumed)] == '\0' && *pid != 0;
  }
  unsigned long idx = 0;
  return std::sscanf(name, "%lu:%lu:%lu%n", pid, uid, &idx, &consumed) == 3 &&
         name[consumed] == '\0' && *pid != 0;
}

template <typename Pick>
int sweep(Pick&& pick) {
  DIR* d = opendir("/dev/shm");
  if (d == nullptr) return 0;
  int removed = 0;
  while (dirent* e = readdir(d)) {
    unsigned long pid = 0, uid = 0;
    if (!parse(e->d_name, &pid, &uid) || !pick(pid, uid)) continue;
    if (shm_unlink((std::string("/") + e->d_name).c_str()) == 0) ++removed;
  }
  closedir(d);
  return removed;
}

}  // namespace

int remove_of_process(pid_t pid) {
  if (pid <= 0) return 0;
  return sweep([pid](unsigned long p, unsigned long) { return p == static_cast<unsigned long>(pid); });
}

int remove_stale(uid_t uid) {
  return sweep([uid](unsigned long p, unsigned long u) {
    if (u != static_cast<unsigned long>(uid)) return false;
    return kill(static_cast<pid_t>(p), 0) != 0 && errno == ESRCH;  // gone (not merely foreign)
  });
}

}  // namespace ftmpi::shm_segments
