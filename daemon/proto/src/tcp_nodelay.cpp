#include "ftmpi_proto/tcp_nodelay.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdlib>

namespace ftmpi::proto {

int disable_nagle_on_tcp_sockets() {
    DIR* dir = opendir("/proc/self/fd");
    if (dir == nullptr) return 0;
    int set = 0;
    while (dirent* e = readdir(dir)) {
        char* end = nullptr;
        const long fd = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0' || fd < 0 || fd == dirfd(dir)) continue;
        int type = 0;
        socklen_t len = sizeof type;
        if (getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
            type != SOCK_STREAM) {
            continue;
        }
        sockaddr_storage addr{};
        socklen_t alen = sizeof addr;
        if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&addr), &alen) != 0 ||
            (addr.ss_family != AF_INET && addr.ss_family != AF_INET6)) {
            continue;
        }
        const int one = 1;
        if (setsockopt(static_cast<int>(fd), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0) ++set;
    }
    closedir(dir);
    return set;
}

}  // namespace ftmpi::proto
