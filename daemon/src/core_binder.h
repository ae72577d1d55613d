// Core binding with hwloc: core index -> CPU set. Which core a process gets is bind_policy.h's
// decision.
#pragma once

#include <sched.h>

#include <cstdint>
#include <string>

namespace ftmpi::daemon {

class CoreBinder {
public:
    CoreBinder() = default;
    ~CoreBinder();
    CoreBinder(const CoreBinder&) = delete;
    CoreBinder& operator=(const CoreBinder&) = delete;

    // Loads the machine topology; false leaves binding disabled (ranks run unbound).
    bool init();
    int ncores() const noexcept { return ncores_; }
    // The loaded hwloc_topology_t (opaque), or nullptr: PMIx's server reuses it.
    void* topology() const noexcept { return topology_; }

    // The set is computed in the daemon before fork, because hwloc is not async-signal-safe
    // and the child of a multithreaded process may only make such calls (sched_setaffinity).
    bool cpu_set_for(std::uint32_t index, cpu_set_t& out) const;
    // The CPUs of core `index` as a list ("0", "2,6"), for --report-bindings.
    std::string cpu_list(std::uint32_t index) const;

private:
    void* topology_ = nullptr;  // hwloc_topology_t, kept opaque so hwloc stays out of headers
    int ncores_ = 0;
    int obj_type_ = 0;
};

}  // namespace ftmpi::daemon
