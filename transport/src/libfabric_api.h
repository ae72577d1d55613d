// libfabric, loaded only when a job needs it (SPEC 6): a process whose peers are all on its
// host never maps libfabric.so.1, so it never pays for the vendor libraries that come with it
// (libpsm2 and libinfinipath calibrate a timer with usleep in their constructors, ~100 ms each)
// nor for the providers' start-up scans. Only the few functions libfabric exports are looked
// up here; everything else in its API is inline and calls through the objects' ops tables.
#pragma once

#include <rdma/fabric.h>

#include <cstdint>
#include <string>

namespace ftmpi::transport {

struct LibfabricApi {
  int (*getinfo)(std::uint32_t version, const char* node, const char* service,
                 std::uint64_t flags, const fi_info* hints, fi_info** info);
  void (*freeinfo)(fi_info* info);
  fi_info* (*dupinfo)(const fi_info* info);
  int (*fabric)(fi_fabric_attr* attr, fid_fabric** fabric, void* context);
  const char* (*strerror)(int errnum);
};

// dlopen("libfabric.so.1") once per process; nullptr (with *err) when it cannot be loaded.
const LibfabricApi* load_libfabric(std::string* err);

// Whether libfabric has been loaded in this process (tests: a shm-only job must not).
bool libfabric_loaded();

}  // namespace ftmpi::transport
