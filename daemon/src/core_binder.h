// Core binding with hwloc: rank i runs on core (i mod number of cores). Oversubscription is
// normal, so several ranks may share a core.
#pragma once

#include <sched.h>

#include <cstdint>

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

private:
    void* topology_ = nullptr;  // hwloc_topology_t, kept opaque so hwloc stays out of headers
    int ncores_ = 0;
    int obj_type_ = 0;
};

}  // namespace ftmpi::daemon
