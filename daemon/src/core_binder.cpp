// hwloc topology loading and per-rank CPU sets.
#include "core_binder.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <cstdlib>

namespace ftmpi::daemon {

namespace {
hwloc_topology_t topo_of(void* p) { return static_cast<hwloc_topology_t>(p); }
}  // namespace

CoreBinder::~CoreBinder() {
    if (topology_ != nullptr) hwloc_topology_destroy(topo_of(topology_));
}

bool CoreBinder::init() {
    // Start-up: hwloc dlopens its I/O plugins (GL pulls in X11, OpenCL, libxml2, pciaccess,
    // which scans PCI) in hwloc_topology_init, for objects we never look at; we need cores and
    // PUs only. A user's own setting wins.
    setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml,"
           "hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero", 0);
    hwloc_topology_t topo = nullptr;
    if (hwloc_topology_init(&topo) != 0) return false;
    // Cores and PUs are all we bind to: not reading the caches' and devices' sysfs files
    // halves the discovery.
    hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return false;
    }
    topology_ = topo;
    obj_type_ = HWLOC_OBJ_CORE;
    ncores_ = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (ncores_ <= 0) {  // some virtual machines expose no cores, only PUs
        obj_type_ = HWLOC_OBJ_PU;
        ncores_ = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    }
    return ncores_ > 0;
}

bool CoreBinder::cpu_set_for(std::uint32_t index, cpu_set_t& out) const {
    if (topology_ == nullptr || ncores_ <= 0) return false;
    hwloc_topology_t topo = topo_of(topology_);
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, static_cast<hwloc_obj_type_t>(obj_type_),
                                            index % static_cast<unsigned>(ncores_));
    if (obj == nullptr || obj->cpuset == nullptr) return false;
    CPU_ZERO(&out);
    return hwloc_cpuset_to_glibc_sched_affinity(topo, obj->cpuset, &out, sizeof out) == 0;
}

std::string CoreBinder::cpu_list(std::uint32_t index) const {
    if (topology_ == nullptr || ncores_ <= 0) return "";
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo_of(topology_), static_cast<hwloc_obj_type_t>(obj_type_),
                                            index % static_cast<unsigned>(ncores_));
    char* text = nullptr;
    if (obj == nullptr || obj->cpuset == nullptr || hwloc_bitmap_list_asprintf(&text, obj->cpuset) < 0) return "";
    std::string out = text;
    std::free(text);
    return out;
}

}  // namespace ftmpi::daemon
