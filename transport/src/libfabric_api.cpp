#include "libfabric_api.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <ftmpi/debug_log.h>

namespace ftmpi::transport {

namespace {

constexpr const char* kSystemLibrary = "libfabric.so.1";
constexpr const char* kTrimmedLibrary = "libftmpi_fabric_tcp.so";

// One slot per library: a process may open the trimmed one (tcp) and the system's (another
// provider) side by side; each is loaded once and never unloaded (providers keep threads and
// atexit hooks).
struct Loaded {
  bool tried = false;
  LibfabricApi api{};
  const LibfabricApi* result = nullptr;
  std::string error;
  std::string path;
};
Loaded g_system, g_trimmed;

template <typename F>
bool resolve(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  return *out != nullptr;
}

void load(Loaded* slot, const std::string& file) {
  slot->tried = true;
  slot->path = file;
  // RTLD_LOCAL: its symbols stay out of the global namespace (the application's own libfabric,
  // if it has one, is not disturbed).
  void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    slot->error = "cannot load " + file + ": " + (why != nullptr ? why : "unknown");
    return;
  }
  LibfabricApi api{};
  if (!resolve(lib, "fi_getinfo", &api.getinfo) || !resolve(lib, "fi_freeinfo", &api.freeinfo) ||
      !resolve(lib, "fi_dupinfo", &api.dupinfo) || !resolve(lib, "fi_fabric", &api.fabric) ||
      !resolve(lib, "fi_strerror", &api.strerror)) {
    slot->error = file + " lacks one of fi_getinfo/fi_freeinfo/fi_dupinfo/fi_fabric/fi_strerror";
    return;
  }
  api.library = slot->path.c_str();
  slot->api = api;
  slot->result = &slot->api;
}

// The directory of the object holding this code: libftmpi.so in lib/, or a program in bin/
// that links the transport statically (dladdr names the main program as it was started, so
// /proc/self/exe is asked instead).
std::string our_directory() {
  Dl_info info{};
  std::string self;
  if (dladdr(reinterpret_cast<void*>(&load_libfabric), &info) != 0 && info.dli_fname != nullptr &&
      info.dli_fname[0] == '/') {
    self = info.dli_fname;
  } else {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "";
    self.assign(buf, static_cast<std::size_t>(n));
  }
  const std::size_t slash = self.rfind('/');
  return slash == std::string::npos ? "" : self.substr(0, slash);
}

std::string trimmed_library_path() {
  const std::string dir = our_directory();
  if (dir.empty()) return "";
  for (const char* rel : {"/", "/../lib/"}) {
    const std::string candidate = dir + rel + kTrimmedLibrary;
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace

bool trimmed_libfabric_serves(const std::string& provider) {
  // A provider name is "core" or "core;utility"; the trimmed library has tcp, net and ofi_rxm.
  std::size_t start = 0;
  while (start <= provider.size()) {
    std::size_t end = provider.find(';', start);
    if (end == std::string::npos) end = provider.size();
    const std::string part = provider.substr(start, end - start);
    if (part != "tcp" && part != "net" && part != "ofi_rxm") return false;
    start = end + 1;
  }
  return !provider.empty();
}

const LibfabricApi* load_libfabric(const std::string& provider, bool vendor_libraries,
                                   std::string* err) {
  if (!vendor_libraries && trimmed_libfabric_serves(provider)) {
    if (!g_trimmed.tried) {
      const std::string path = trimmed_library_path();
      if (!path.empty()) {
        load(&g_trimmed, path);
      } else {
        g_trimmed.tried = true;
        g_trimmed.error = std::string(kTrimmedLibrary) + " not installed";
      }
      if (g_trimmed.result == nullptr) {
        FTMPI_DLOG("transport", "%s; loading %s instead", g_trimmed.error.c_str(), kSystemLibrary);
      }
    }
    if (g_trimmed.result != nullptr) return g_trimmed.result;
  }
  if (!g_system.tried) load(&g_system, kSystemLibrary);
  if (g_system.result == nullptr && err != nullptr) *err = g_system.error;
  return g_system.result;
}

}  // namespace ftmpi::transport
