// The job's hosts: --host entries, --hostfile lines, or the Slurm allocation; and whether a
// host name means this machine.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>
#include <fstream>
#include <sstream>

#include "host_plan.h"
#include "options.h"

namespace ftmpi::mpirun {

namespace {

// Slots per host: bounded like -n (PMIx local ranks are 16 bits), so a sum cannot overflow.
constexpr std::uint32_t kMaxSlots = 65535;

bool parse_slots(const std::string& s, std::uint32_t& out) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = static_cast<std::uint32_t>(std::strtoul(s.c_str(), nullptr, 10));
    return out > 0 && out <= kMaxSlots;
}

std::string this_host() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return host;
}

// A host name or IPv4 address as given to ssh/srun: letters, digits, '.', '-', '_'. A leading
// '-' would be read as an option by the launcher, so it is refused here.
bool valid_host_name(const std::string& name) {
    if (name.empty() || name.size() > 255 || name[0] == '-' || name[0] == '.') return false;
    return name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_") ==
           std::string::npos;
}

// Adds `name` with `slots`, merging duplicates (slots add) and every spelling of this machine.
HostStatus add_host(std::vector<Host>& hosts, const std::string& name, std::uint32_t slots, std::string& why) {
    if (!valid_host_name(name)) {
        why = name.empty() ? "empty host name" : "invalid host name '" + name + "' (letters, digits, '.', '-', '_')";
        return HostStatus::bad_syntax;
    }
    const bool local = is_local_host(name);
    for (Host& h : hosts) {
        if (h.name == name || (local && h.local)) {
            h.slots = std::min<std::uint32_t>(h.slots + slots, kMaxSlots);
            return HostStatus::ok;
        }
    }
    hosts.push_back(Host{name, slots, local});
    return HostStatus::ok;
}

// "name" or "name:N" (MPICH's form).
HostStatus parse_entry(const std::string& entry, std::vector<Host>& hosts, std::string& why) {
    std::string name = entry;
    std::uint32_t n = 1;
    if (auto colon = entry.find(':'); colon != std::string::npos) {
        name = entry.substr(0, colon);
        if (!parse_slots(entry.substr(colon + 1), n)) {
            why = "invalid slot count in host '" + entry + "' (1 to " + std::to_string(kMaxSlots) + ")";
            return HostStatus::bad_syntax;
        }
    }
    return add_host(hosts, name, n, why);
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

HostStatus parse_host_list(const std::vector<std::string>& entries, std::vector<Host>& hosts, std::string& why) {
    for (const auto& entry : entries)
        if (HostStatus st = parse_entry(entry, hosts, why); st != HostStatus::ok) return st;
    return HostStatus::ok;
}

HostStatus parse_hostfile(const std::string& path, std::vector<Host>& hosts, std::string& why) {
    // A directory reads as empty and a FIFO blocks open() forever: only a regular file will do.
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        why = "hostfile '" + path + "' is not a readable regular file";
        return HostStatus::unreadable;
    }
    std::ifstream in(path);
    if (!in) {
        why = "cannot read hostfile '" + path + "'";
        return HostStatus::unreadable;
    }
    std::vector<Host> found;
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        const std::string where = path + ":" + std::to_string(lineno) + ": ";
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        std::string entry;
        if (!(words >> entry)) continue;
        std::string word;
        std::optional<std::uint32_t> slots;
        while (words >> word) {
            std::string key = word.substr(0, word.find('='));
            std::string value = word.find('=') == std::string::npos ? "" : word.substr(word.find('=') + 1);
            std::uint32_t v = 0;
            if ((key != "slots" && key != "max_slots" && key != "max-slots") || !parse_slots(value, v)) {
                why = where + "cannot parse '" + word + "' (expected slots=N or max_slots=N, N in 1.." +
                      std::to_string(kMaxSlots) + ")";
                return HostStatus::bad_syntax;
            }
            if (key == "slots") slots = v;
        }
        if (slots && entry.find(':') != std::string::npos) {
            why = where + "slots given twice ('" + entry + "' and slots=)";
            return HostStatus::bad_syntax;
        }
        if (slots) entry += ":" + std::to_string(*slots);
        if (HostStatus s = parse_entry(entry, found, why); s != HostStatus::ok) {
            why = where + why;
            return s;
        }
    }
    if (found.empty()) {
        why = "hostfile '" + path + "' lists no host";
        return HostStatus::bad_syntax;
    }
    for (const Host& h : found)
        if (HostStatus s = add_host(hosts, h.name, h.slots, why); s != HostStatus::ok) return s;
    return HostStatus::ok;
}

HostStatus collect_hosts(const Options& opts, std::vector<Host>& hosts, bool& from_slurm, std::string& why) {
    hosts.clear();
    from_slurm = false;
    if (!opts.hostfile.empty())
        if (HostStatus st = parse_hostfile(opts.hostfile, hosts, why); st != HostStatus::ok) return st;
    if (HostStatus st = parse_host_list(opts.hosts, hosts, why); st != HostStatus::ok) return st;
    if (!hosts.empty() || !opts.hostfile.empty()) return HostStatus::ok;

    // Inside a Slurm allocation (not FTMPI_* knobs: Slurm's own variables).
    const char* nodelist = std::getenv("SLURM_JOB_NODELIST");
    if (nodelist == nullptr || *nodelist == '\0') nodelist = std::getenv("SLURM_NODELIST");
    if (nodelist == nullptr || *nodelist == '\0') return HostStatus::ok;
    std::vector<std::string> names;
    if (HostStatus st = expand_slurm_nodelist(nodelist, names, why); st != HostStatus::ok) {
        why = "SLURM_JOB_NODELIST: " + why;
        return st;
    }
    // Slots per node: the job's tasks per node. Inside a job step (mpirun started by srun),
    // SLURM_TASKS_PER_NODE describes the step, not the job, and may not even cover every node
    // (measured with Slurm 22.05: "1" for a 2-node job); the job's CPUs per node do.
    const bool in_step = std::getenv("SLURM_STEP_ID") != nullptr;
    const char* order[2] = {"SLURM_TASKS_PER_NODE", "SLURM_JOB_CPUS_PER_NODE"};
    if (in_step) std::swap(order[0], order[1]);
    std::vector<std::uint32_t> tasks(names.size(), 1);
    std::string mismatch;
    for (const char* var : order) {
        const char* text = std::getenv(var);
        if (text == nullptr || *text == '\0') continue;
        std::vector<std::uint32_t> counts;
        if (HostStatus st = expand_slurm_tasks(text, counts, why); st != HostStatus::ok) {
            why = std::string(var) + ": " + why;
            return st;
        }
        if (counts.size() == names.size()) {
            tasks = std::move(counts);
            mismatch.clear();
            break;
        }
        mismatch += std::string(mismatch.empty() ? "" : ", ") + var + " gives " + std::to_string(counts.size());
    }
    if (!mismatch.empty()) {
        why = mismatch + " nodes, SLURM_JOB_NODELIST " + std::to_string(names.size());
        return HostStatus::bad_syntax;
    }
    for (std::size_t i = 0; i < names.size(); ++i)
        if (HostStatus st = add_host(hosts, names[i], tasks[i], why); st != HostStatus::ok) return st;
    from_slurm = true;
    return HostStatus::ok;
}

}  // namespace ftmpi::mpirun
