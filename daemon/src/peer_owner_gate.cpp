// The kernel-vouched owner check on every TCP connection ftmpid accepts (see peer_owner_gate.h).
#include "peer_owner_gate.h"

#include <arpa/inet.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <strings.h>

#include "log.h"

namespace ftmpi::daemon {

namespace {

std::atomic<std::uint64_t> g_refused{0};

// /proc/net/tcp prints an address as the 32-bit words of its network-order bytes, each read
// as a native integer and printed %08X, and the port in host order %04X.
bool format_address(const sockaddr_storage& sa, std::string& addr, unsigned& port) {
    char buf[40];
    if (sa.ss_family == AF_INET) {
        const auto& in = reinterpret_cast<const sockaddr_in&>(sa);
        std::snprintf(buf, sizeof buf, "%08X", static_cast<unsigned>(in.sin_addr.s_addr));
        port = ntohs(in.sin_port);
    } else if (sa.ss_family == AF_INET6) {
        const auto& in6 = reinterpret_cast<const sockaddr_in6&>(sa);
        std::uint32_t w[4];
        std::memcpy(w, in6.sin6_addr.s6_addr, sizeof w);
        std::snprintf(buf, sizeof buf, "%08X%08X%08X%08X", w[0], w[1], w[2], w[3]);
        port = ntohs(in6.sin6_port);
    } else {
        return false;
    }
    addr = buf;
    return true;
}

std::string read_table(const char* path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// True if the TCP connection on `fd` may be handed to PMIx: not TCP at all, or its peer socket
// on this host belongs to the daemon's user.
bool peer_allowed(int fd) {
    sockaddr_storage local {}, peer {};
    socklen_t llen = sizeof local, plen = sizeof peer;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &llen) != 0) return true;  // not a socket we judge
    if (local.ss_family != AF_INET && local.ss_family != AF_INET6) return true;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &plen) != 0) return false;  // already gone
    // The peer's socket has our remote address as its local one, and our local as its remote.
    std::optional<uid_t> owner = tcp_socket_owner(peer, local);
    if (owner && *owner == geteuid()) return true;
    std::uint64_t n = ++g_refused;
    std::string addr;
    unsigned port = 0;
    format_address(peer, addr, port);
    if (owner)
        FTMPID_WARN("refused a PMIx connection from port %u owned by uid %u (not this daemon's user; %llu refused)",
                    port, static_cast<unsigned>(*owner), static_cast<unsigned long long>(n));
    else
        FTMPID_WARN("refused a PMIx connection from port %u whose owner is unknown (%llu refused)", port,
                    static_cast<unsigned long long>(n));
    return false;
}

}  // namespace

std::optional<uid_t> tcp_socket_owner(const sockaddr_storage& local, const sockaddr_storage& remote,
                                      const std::string* table_text) {
    std::string want_local, want_remote;
    unsigned want_lport = 0, want_rport = 0;
    if (!format_address(local, want_local, want_lport) || !format_address(remote, want_remote, want_rport))
        return std::nullopt;
    const std::string text =
        table_text != nullptr ? *table_text : read_table(local.ss_family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6");
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);  // column titles
    while (std::getline(lines, line)) {
        char laddr[33] = {}, raddr[33] = {};
        unsigned lport = 0, rport = 0, state = 0, uid = 0;
        // sl: local rem st tx:rx tr:when retrnsmt uid ...
        if (std::sscanf(line.c_str(), " %*u: %32[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %x %*x:%*x %*x:%*x %*x %u", laddr,
                        &lport, raddr, &rport, &state, &uid) != 6)
            continue;
        if (lport == want_lport && rport == want_rport && strcasecmp(laddr, want_local.c_str()) == 0 &&
            strcasecmp(raddr, want_remote.c_str()) == 0)
            return static_cast<uid_t>(uid);
    }
    return std::nullopt;
}

std::uint64_t refused_tcp_connections() { return g_refused.load(); }

}  // namespace ftmpi::daemon

// The interposed entry points. They must keep accept's contract exactly: a refused connection
// looks to the caller like one the peer aborted while it waited (ECONNABORTED), which PMIx's
// listener, like any accept loop, skips.
extern "C" int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
    int s = static_cast<int>(syscall(SYS_accept4, fd, addr, len, flags));
    if (s < 0 || ftmpi::daemon::peer_allowed(s)) return s;
    close(s);
    errno = ECONNABORTED;
    return -1;
}

extern "C" int accept(int fd, sockaddr* addr, socklen_t* len) { return accept4(fd, addr, len, 0); }
