// The IPv4 address remote daemons connect back to mpirun at (and the local ranks publish):
// chosen by --iface/FTMPI_IFACE, else the local end of the route to the first remote host.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "ftmpi_knobs/knobs.h"
#include "host_plan.h"

namespace ftmpi::mpirun {

namespace {

std::string ipv4_text(const in_addr& a) {
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &a, buf, sizeof buf);
    return buf;
}

// "a.b.c.d/n" -> network and mask (host order); false if it is not a CIDR.
bool parse_cidr(const std::string& text, std::uint32_t& net, std::uint32_t& mask) {
    auto slash = text.find('/');
    if (slash == std::string::npos) return false;
    std::string bits = text.substr(slash + 1);
    if (bits.empty() || bits.size() > 2 || bits.find_first_not_of("0123456789") != std::string::npos) return false;
    const int n = std::atoi(bits.c_str());
    in_addr a{};
    if (n > 32 || inet_pton(AF_INET, text.substr(0, slash).c_str(), &a) != 1) return false;
    mask = n == 0 ? 0 : ~std::uint32_t{0} << (32 - n);
    net = ntohl(a.s_addr) & mask;
    return true;
}

HostStatus from_iface(const std::string& iface, std::string& ipv4_out, std::string& why) {
    std::uint32_t net = 0, mask = 0;
    const bool cidr = parse_cidr(iface, net, mask);
    if (!cidr && iface.find('/') != std::string::npos) {
        why = "invalid --iface/FTMPI_IFACE '" + iface + "' (an interface name or an IPv4 CIDR a.b.c.d/n)";
        return HostStatus::bad_syntax;
    }
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) {
        why = std::string("getifaddrs: ") + std::strerror(errno);
        return HostStatus::no_address;
    }
    std::optional<std::string> found;
    for (ifaddrs* a = list; a != nullptr && !found; a = a->ifa_next) {
        if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
        const in_addr addr = reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr;
        if (cidr ? (ntohl(addr.s_addr) & mask) == net : iface == a->ifa_name) found = ipv4_text(addr);
    }
    freeifaddrs(list);
    if (!found) {
        why = cidr ? "no local IPv4 address inside " + iface + " (--iface/FTMPI_IFACE)"
                   : "no interface '" + iface + "' with an IPv4 address (--iface/FTMPI_IFACE)";
        return HostStatus::no_address;
    }
    ipv4_out = *found;
    return HostStatus::ok;
}

// The kernel's choice: connect() on a UDP socket sends nothing but picks the route and the
// source address.
HostStatus from_route(const std::string& remote, std::string& ipv4_out, std::string& why) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* res = nullptr;
    if (int rc = getaddrinfo(remote.c_str(), "9", &hints, &res); rc != 0 || res == nullptr) {
        why = "cannot resolve host '" + remote + "' to an IPv4 address (" + gai_strerror(rc) +
              "); name it by address or choose the address with --iface";
        return HostStatus::no_address;
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in local{};
    socklen_t len = sizeof local;
    bool ok = fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
              getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0;
    const int err = errno;
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
    if (!ok) {
        why = "no route to host '" + remote + "' (" + std::strerror(err) + "); choose the address with --iface";
        return HostStatus::no_address;
    }
    if (ntohl(local.sin_addr.s_addr) == INADDR_LOOPBACK) {
        why = "host '" + remote + "' is reached over the loopback device (127.0.0.1), which no other host "
              "can connect to; choose the address with --iface";
        return HostStatus::no_address;
    }
    ipv4_out = ipv4_text(local.sin_addr);
    return HostStatus::ok;
}

}  // namespace

HostStatus connect_back_address(const std::string& iface_opt, const std::string& first_remote,
                                std::string& ipv4_out, std::string& why) {
    std::string iface = iface_opt;
    if (iface.empty())
        if (auto env = knobs::raw(knobs::Id::iface)) iface = *env;
    if (!iface.empty()) return from_iface(iface, ipv4_out, why);
    return from_route(first_remote, ipv4_out, why);
}

}  // namespace ftmpi::mpirun
