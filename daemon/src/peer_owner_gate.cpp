// The kernel-vouched owner check on every TCP connection ftmpid accepts (see peer_owner_gate.h).
#include "peer_owner_gate.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <strings.h>

#include "log.h"
#include "pmix_connect_ack.h"
#include "pmix_handshake_reply.h"

namespace ftmpi::daemon {

namespace {

std::atomic<std::uint64_t> g_refused{0};

// PMIx 4.2 reads a new connection's connect-ack with blocking receives on its progress thread:
// a peer that connects and then sends nothing, or half a header, or a header announcing more
// than it sends, stalls every PMIx operation of the daemon (a job launch then fails with
// "PMIx_server_register_nspace failed: TIMEOUT"). So the whole connect-ack must be queued in
// the kernel before PMIx gets the socket: a 16-byte header (int32 index, uint32 tag, size_t
// length, host order) and `length` bytes, at most PMIx's PMIX_MAX_CRED_SIZE. This wait runs
// on PMIx's listener thread, which only delays the next accept. A real client sends its
// connect-ack right after connect(); the limit is generous for a loaded machine.
constexpr auto kConnectAckWait = std::chrono::seconds(2);
constexpr std::size_t kConnectAckHeader = 16;
constexpr std::uint64_t kMaxConnectAckBody = 128 * 1024;

// Waits (poll with SO_RCVLOWAT: no spinning) until `need` bytes are queued on `fd`.
bool wait_queued(int fd, std::size_t need, std::chrono::steady_clock::time_point deadline) {
    int low = static_cast<int>(need);
    setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &low, sizeof low);
    for (;;) {
        int avail = 0;
        if (ioctl(fd, FIONREAD, &avail) != 0) return false;
        if (avail >= 0 && static_cast<std::size_t>(avail) >= need) return true;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd, POLLIN | POLLRDHUP, 0};
        int rc = poll(&p, 1, static_cast<int>(left.count()));
        if (rc < 0 && errno != EINTR) return false;
        if (rc > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) {
            avail = 0;  // the peer is done sending: what is queued is all there will be
            return ioctl(fd, FIONREAD, &avail) == 0 && avail >= 0 && static_cast<std::size_t>(avail) >= need;
        }
    }
}

// True once the whole connect-ack is queued and well formed (pmix_connect_ack.h); `why` set
// otherwise.
bool connect_ack_acceptable(int fd, std::string& why) {
    const auto deadline = std::chrono::steady_clock::now() + kConnectAckWait;
    std::uint64_t body = 0;
    bool ok = wait_queued(fd, kConnectAckHeader, deadline);
    if (ok) {
        unsigned char hdr[kConnectAckHeader];
        ok = recv(fd, hdr, sizeof hdr, MSG_PEEK) == static_cast<ssize_t>(sizeof hdr);
        if (ok) std::memcpy(&body, hdr + 8, sizeof body);
        if (ok && body > kMaxConnectAckBody) {
            why = "its handshake announces " + std::to_string(body) + " bytes";
            ok = false;
        } else if (ok) {
            ok = wait_queued(fd, kConnectAckHeader + body, deadline);
        }
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof one);
    if (!ok) {
        if (why.empty()) why = "no complete handshake within " + std::to_string(kConnectAckWait.count()) + " s";
        return false;
    }
    std::string copy(kConnectAckHeader + body, '\0');
    if (recv(fd, copy.data(), copy.size(), MSG_PEEK) != static_cast<ssize_t>(copy.size())) {
        why = "handshake vanished";
        return false;
    }
    std::string bad;
    if (!pmix_connect_ack_well_formed(reinterpret_cast<const std::uint8_t*>(copy.data()) + kConnectAckHeader,
                                      body, &bad)) {
        why = "malformed handshake: " + bad;
        return false;
    }
    return true;
}

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
    std::string addr;
    unsigned port = 0;
    format_address(peer, addr, port);
    if (owner && *owner == geteuid()) {
        std::string why;
        if (connect_ack_acceptable(fd, why)) {
            pmix_handshake_begins(fd);  // its reply must not take PMIx's broken error path
            return true;
        }
        FTMPID_WARN("refused a PMIx connection from port %u: %s (%llu refused)", port, why.c_str(),
                    static_cast<unsigned long long>(++g_refused));
        return false;
    }
    std::uint64_t n = ++g_refused;
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
