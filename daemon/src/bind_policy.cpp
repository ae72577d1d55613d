// Binding decisions (bind_policy.h).
#include "bind_policy.h"

#include <algorithm>
#include <cctype>

namespace ftmpi::daemon {

namespace {

bool equals_nocase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// The value of NAME=... in env (the last one wins, as in a shell), or nothing.
std::optional<std::string_view> env_value(const std::vector<std::string>& env, std::string_view name) {
    std::optional<std::string_view> found;
    for (const auto& e : env)
        if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
            found = std::string_view(e).substr(name.size() + 1);
    return found;
}

}  // namespace

std::optional<BindPolicy> parse_bind_policy(std::string_view text) {
    if (equals_nocase(text, "auto")) return BindPolicy::automatic;
    if (equals_nocase(text, "core")) return BindPolicy::core;
    if (equals_nocase(text, "none")) return BindPolicy::none;
    return std::nullopt;
}

const char* to_string(BindPolicy policy) {
    switch (policy) {
    case BindPolicy::automatic: return "auto";
    case BindPolicy::core: return "core";
    case BindPolicy::none: return "none";
    }
    return "?";
}

BindPolicy job_bind_policy(const std::vector<std::string>& env, BindPolicy fallback) {
    const auto v = env_value(env, "FTMPI_BIND");
    if (!v) return fallback;
    return parse_bind_policy(*v).value_or(fallback);
}

bool job_reports_bindings(const std::vector<std::string>& env) {
    const auto v = env_value(env, "FTMPI_REPORT_BINDINGS");
    return v && (*v == "1" || equals_nocase(*v, "yes") || equals_nocase(*v, "on") || equals_nocase(*v, "true"));
}

int choose_core(BindPolicy policy, std::uint32_t job_local, const std::vector<std::uint32_t>& busy) {
    if (policy == BindPolicy::none || busy.empty()) return -1;
    if (policy == BindPolicy::automatic && job_local > busy.size()) return -1;
    // Least loaded, lowest index on ties: round robin at launch, and a replacement goes to the
    // core its failed predecessor left.
    return static_cast<int>(std::min_element(busy.begin(), busy.end()) - busy.begin());
}

std::string describe_binding(std::uint32_t world_rank, long pid, const std::string& host, int core,
                             const std::string& cpus, BindPolicy policy, std::uint32_t job_local,
                             std::uint32_t ncores) {
    std::string line = "ftmpi: rank " + std::to_string(world_rank) + " (pid " + std::to_string(pid) + ") on " +
                       host + ": ";
    if (core >= 0) return line + "bound to core " + std::to_string(core) + " (cpus " + cpus + ")\n";
    line += "not bound (--bind-to ";
    line += to_string(policy);
    if (policy == BindPolicy::automatic && ncores == 0) line += ": no topology";
    else if (policy == BindPolicy::automatic)
        line += ": " + std::to_string(job_local) + " processes on " + std::to_string(ncores) + " cores";
    return line + ")\n";
}

}  // namespace ftmpi::daemon
