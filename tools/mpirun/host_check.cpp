// Host list and host file checks (single host for now).
#include "host_check.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ftmpi::mpirun {

namespace {

bool parse_slots(const std::string& s, std::uint32_t& out) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = static_cast<std::uint32_t>(std::strtoul(s.c_str(), nullptr, 10));
    return out > 0;
}

std::string this_host() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return host;
}

HostStatus check_one(const std::string& name, std::string& why) {
    if (name.empty()) {
        why = "empty host name";
        return HostStatus::bad_syntax;
    }
    if (!is_local_host(name)) {
        why = "host '" + name + "' is not this machine (" + this_host() +
              "); only single-host runs are supported for now";
        return HostStatus::not_local;
    }
    return HostStatus::ok;
}

}  // namespace

bool is_local_host(const std::string& name) {
    if (name == "localhost" || name == "127.0.0.1" || name == "::1") return true;
    std::string host = this_host();
    if (name == host) return true;
    std::string short_host = host.substr(0, host.find('.'));
    if (name == short_host || name.substr(0, name.find('.')) == short_host) return true;
    // An address: compare with every local interface (no name resolution, which could block).
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return false;
    bool found = false;
    for (ifaddrs* a = list; a != nullptr && !found; a = a->ifa_next) {
        if (a->ifa_addr == nullptr) continue;
        char buf[INET6_ADDRSTRLEN] = {};
        if (a->ifa_addr->sa_family == AF_INET)
            inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
        else if (a->ifa_addr->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, buf, sizeof buf);
        found = name == buf;
    }
    freeifaddrs(list);
    return found;
}

HostStatus check_host_list(const std::vector<std::string>& hosts, std::uint32_t& slots, std::string& why) {
    for (const auto& entry : hosts) {
        std::string name = entry;
        std::uint32_t n = 1;
        // "name:slots", but an IPv6 address also contains ':' and carries no slot count.
        auto colon = entry.rfind(':');
        if (colon != std::string::npos && entry.find(':') == colon) {
            name = entry.substr(0, colon);
            if (!parse_slots(entry.substr(colon + 1), n)) {
                why = "invalid slot count in host '" + entry + "'";
                return HostStatus::bad_syntax;
            }
        }
        if (HostStatus st = check_one(name, why); st != HostStatus::ok) return st;
        slots += n;
    }
    return HostStatus::ok;
}

HostStatus check_hostfile(const std::string& path, std::uint32_t& slots, std::string& why) {
    // A directory reads as empty and a FIFO blocks open() forever: only a regular file will do.
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        why = "hostfile '" + path + "' is not a readable regular file";
        return HostStatus::unreadable;
    }
    const std::uint32_t slots_before = slots;
    bool any_host = false;
    std::ifstream in(path);
    if (!in) {
        why = "cannot read hostfile '" + path + "'";
        return HostStatus::unreadable;
    }
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        std::string name;
        if (!(words >> name)) continue;
        any_host = true;
        std::uint32_t n = 1;
        std::string word;
        while (words >> word) {
            std::string key = word.substr(0, word.find('='));
            std::string value = word.find('=') == std::string::npos ? "" : word.substr(word.find('=') + 1);
            std::uint32_t v = 0;
            if ((key != "slots" && key != "max_slots" && key != "max-slots") || !parse_slots(value, v)) {
                why = path + ":" + std::to_string(lineno) + ": cannot parse '" + word + "'";
                return HostStatus::bad_syntax;
            }
            if (key == "slots") n = v;
        }
        if (HostStatus st = check_one(name, why); st != HostStatus::ok) {
            why = path + ":" + std::to_string(lineno) + ": " + why;
            return st;
        }
        slots += n;
    }
    if (!any_host) {
        slots = slots_before;
        why = "hostfile '" + path + "' lists no host";
        return HostStatus::bad_syntax;
    }
    return HostStatus::ok;
}

}  // namespace ftmpi::mpirun
