#include "ftmpi_proto/tcp_nodelay.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace ftmpi::proto {

namespace {

int port_of(const sockaddr_storage& a) {
    if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
    if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
    return -1;
}

}  // namespace

int disable_nagle_on_tcp_sockets(int peer_port) {
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
        if (peer_port != 0) {
            sockaddr_storage peer{};
            socklen_t plen = sizeof peer;
            if (getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &plen) != 0 ||
                port_of(peer) != peer_port) {
                continue;
            }
        }
        const int one = 1;
        if (setsockopt(static_cast<int>(fd), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0) ++set;
    }
    closedir(dir);
    return set;
}

int pmix_server_port() {
    // "<nspace>.<rank>;tcp4://127.0.0.1:<port>" (the newest URI variable first).
    for (const char* name : {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",
                             "PMIX_SERVER_URI2"}) {
        const char* uri = std::getenv(name);
        if (uri == nullptr) continue;
        const char* colon = std::strrchr(uri, ':');
        if (colon == nullptr) continue;
        char* end = nullptr;
        const long port = std::strtol(colon + 1, &end, 10);
        if (end != colon + 1 && *end == '\0' && port > 0 && port < 65536) return static_cast<int>(port);
    }
    return 0;
}

}  // namespace ftmpi::proto
