// SPEC 6 / issue 17: a job whose peers are all on its host never loads libfabric (whose vendor
// libraries cost ~200 ms of start-up); a libfabric provider loads it when it is opened.
// usage: transport_lazy_libfabric_test   (exit 0 when both hold)
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "ftmpi/transport/endpoint.h"

using namespace ftmpi::transport;

namespace {

bool libfabric_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libfabric.so") != std::string::npos) return true;
  }
  return false;
}

int fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "lazy_libfabric: %s %s\n", what, detail.c_str());
  return 1;
}

}  // namespace

int main() {
  std::string err;
  auto a = Endpoint::open("shm", &err);
  auto b = Endpoint::open("", &err);  // the default is shm too
  if (a == nullptr || b == nullptr) return fail("open shm:", err);
  if (a->insert_peers({b->address()}) != Status::ok) return fail("insert:", a->last_error());
  if (b->insert_peers({a->address()}) != Status::ok) return fail("insert:", b->last_error());
  std::uint64_t out = 42, in = 0;
  int rctx = 0;
  bool done = false;
  if (b->recv(0, &in, sizeof in, 5, 0, &rctx) != Status::ok) return fail("recv", "");
  if (a->send(0, &out, sizeof out, 5, nullptr, &done) != Status::ok || !done) {
    return fail("send", a->last_error());
  }
  Completion c;
  for (int i = 0; i < 1000000 && b->poll(&c, 1) == 0; ++i) {
  }
  if (c.context != &rctx || c.status != Status::ok || in != 42) return fail("no message", "");
  if (libfabric_mapped()) return fail("libfabric.so is mapped in a shm-only process", "");
  auto t = Endpoint::open("tcp", &err);
  if (t == nullptr) return fail("open tcp:", err);
  if (!libfabric_mapped()) return fail("libfabric.so is not mapped after opening tcp", "");
  std::puts("lazy_libfabric: OK");
  return 0;
}
