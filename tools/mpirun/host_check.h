// Validation of --host/--hostfile. Only this machine can run processes for now, so every host
// named must be this one; the slots given set the default process count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ftmpi::mpirun {

enum class [[nodiscard]] HostStatus { ok, bad_syntax, not_local, unreadable };

// Adds the slots of every entry ("name[:slots]"; no slots = 1) to `slots`.
HostStatus check_host_list(const std::vector<std::string>& hosts, std::uint32_t& slots, std::string& why);

// Lines "name [slots=N] [max_slots=N]"; '#' starts a comment.
HostStatus check_hostfile(const std::string& path, std::uint32_t& slots, std::string& why);

// True for localhost, this machine's host name (short or full) or one of its addresses.
bool is_local_host(const std::string& name);

}  // namespace ftmpi::mpirun
