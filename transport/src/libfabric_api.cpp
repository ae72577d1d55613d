#include "libfabric_api.h"

#include <dlfcn.h>

namespace ftmpi::transport {

namespace {

LibfabricApi g_api{};
bool g_loaded = false;

template <typename F>
bool resolve(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  return *out != nullptr;
}

}  // namespace

const LibfabricApi* load_libfabric(std::string* err) {
  if (g_loaded) return &g_api;
  // RTLD_LOCAL: its symbols stay out of the global namespace (the application's own libfabric,
  // if it has one, is not disturbed). Never unloaded: providers keep threads and atexit hooks.
  void* lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    if (err != nullptr) {
      const char* why = dlerror();
      *err = std::string("cannot load libfabric.so.1: ") + (why != nullptr ? why : "unknown");
    }
    return nullptr;
  }
  LibfabricApi api{};
  if (!resolve(lib, "fi_getinfo", &api.getinfo) || !resolve(lib, "fi_freeinfo", &api.freeinfo) ||
      !resolve(lib, "fi_dupinfo", &api.dupinfo) || !resolve(lib, "fi_fabric", &api.fabric) ||
      !resolve(lib, "fi_strerror", &api.strerror)) {
    if (err != nullptr) *err = "libfabric.so.1 lacks one of fi_getinfo/fi_freeinfo/fi_dupinfo/"
                               "fi_fabric/fi_strerror";
    return nullptr;
  }
  g_api = api;
  g_loaded = true;
  return &g_api;
}

bool libfabric_loaded() { return g_loaded; }

}  // namespace ftmpi::transport
