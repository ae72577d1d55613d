// libfabric, loaded only when a job needs it (SPEC 6): a process whose peers are all on its
// host never maps libfabric, so it never pays for the vendor libraries that come with it
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
  const char* library;  // the file it came from (FTMPI_DEBUG, tests)
};

// The libfabric that serves `provider` (resolve_provider's name), loaded once per process:
// libftmpi_fabric_tcp.so (transport/fabric_tcp: only tcp, net and ofi_rxm, none of the vendor
// libraries; ~1 ms instead of ~300) when the provider is made of those and that library is
// installed beside us and `vendor_libraries` is false, else the system's libfabric.so.1.
// nullptr (with *err) when neither loads.
const LibfabricApi* load_libfabric(const std::string& provider, bool vendor_libraries,
                                   std::string* err);

// Whether the trimmed library can serve `provider` ("tcp;ofi_rxm": yes; "verbs;ofi_rxm": no).
bool trimmed_libfabric_serves(const std::string& provider);

}  // namespace ftmpi::transport
