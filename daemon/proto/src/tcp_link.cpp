// TCP sockets of the several-hosts links (tcp_link.h).
#include "ftmpi_proto/tcp_link.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace ftmpi::proto {

namespace {

bool parse_ipv4(const std::string& text, in_addr& out) { return inet_pton(AF_INET, text.c_str(), &out) == 1; }

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

ProtoStatus tcp_listen(const std::string& ipv4, int& fd_out, std::uint16_t& port_out, std::string& why) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    if (!parse_ipv4(ipv4, sa.sin_addr)) {
        why = "not an IPv4 address: '" + ipv4 + "'";
        return ProtoStatus::malformed;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        why = errno_text("socket");
        return ProtoStatus::io_error;
    }
    socklen_t len = sizeof sa;
    if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(fd, 256) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
        why = errno_text(("cannot listen on " + ipv4).c_str());
        close(fd);
        return ProtoStatus::io_error;
    }
    fd_out = fd;
    port_out = ntohs(sa.sin_port);
    return ProtoStatus::ok;
}

ProtoStatus tcp_connect(const std::string& addr_port, int timeout_ms, int& fd_out, std::string& why) {
    const auto colon = addr_port.rfind(':');
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    char* end = nullptr;
    const std::string port_text = colon == std::string::npos ? std::string() : addr_port.substr(colon + 1);
    long port = std::strtol(port_text.c_str(), &end, 10);
    if (colon == std::string::npos || !parse_ipv4(addr_port.substr(0, colon), sa.sin_addr) || port_text.empty() ||
        *end != '\0' || port <= 0 || port > 65535) {
        why = "not an IPv4 ADDR:PORT: '" + addr_port + "'";
        return ProtoStatus::malformed;
    }
    sa.sin_port = htons(static_cast<std::uint16_t>(port));
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        why = errno_text("socket");
        return ProtoStatus::io_error;
    }
    int rc = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
    if (rc != 0 && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        do {
            rc = poll(&p, 1, timeout_ms);
        } while (rc < 0 && errno == EINTR);
        int err = 0;
        socklen_t len = sizeof err;
        if (rc == 0) {
            why = "no answer from " + addr_port + " within " + std::to_string(timeout_ms) + " ms";
            close(fd);
            return ProtoStatus::timed_out;
        }
        if (rc > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0) {
            errno = err;
            rc = err == 0 ? 0 : -1;
        } else {
            rc = -1;
        }
    }
    if (rc != 0) {
        why = errno_text(("cannot connect to " + addr_port).c_str());
        close(fd);
        return ProtoStatus::io_error;
    }
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // small frames, latency matters
    fd_out = fd;
    return ProtoStatus::ok;
}

std::string tcp_local_address(int fd) {
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0 || sa.sin_family != AF_INET) return {};
    char text[INET_ADDRSTRLEN] = {};
    return inet_ntop(AF_INET, &sa.sin_addr, text, sizeof text) != nullptr ? std::string(text) : std::string();
}

ProtoStatus tcp_route_source(const std::string& peer_ipv4, std::string& local_out, std::string& why) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(9);  // any port: a UDP connect only picks the route
    if (!parse_ipv4(peer_ipv4, sa.sin_addr)) {
        why = "not an IPv4 address: '" + peer_ipv4 + "'";
        return ProtoStatus::malformed;
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        why = errno_text(("no route to " + peer_ipv4).c_str());
        if (fd >= 0) close(fd);
        return ProtoStatus::io_error;
    }
    local_out = tcp_local_address(fd);
    close(fd);
    return local_out.empty() ? ProtoStatus::io_error : ProtoStatus::ok;
}

}  // namespace ftmpi::proto
