// SPEC 6 / issue 17: a job whose peers are all on its host never loads libfabric (whose vendor
// libraries cost ~200 ms of start-up); a libfabric provider loads it when it is opened, and
// tcp loads the trimmed libftmpi_fabric_tcp.so when the build made it: then none of the
// vendor libraries (libpsm2, libinfinipath, rdma-core) is mapped, and the message still flows.
// usage: transport_lazy_libfabric_test   (exit 0 when all hold)
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "ftmpi/transport/endpoint.h"

using namespace ftmpi::transport;

namespace {

bool mapped(const char* name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(name) != std::string::npos) return true;
  }
  return false;
}

bool libfabric_mapped() { return mapped("libfabric.so") || mapped("libftmpi_fabric_tcp.so"); }

// One message through an endpoint to itself: the libfabric that was loaded works.
bool self_message(Endpoint& e, std::string* why) {
  if (e.insert_peers({e.address()}) != Status::ok) {
    *why = e.last_error();
    return false;
  }
  std::uint64_t out = 7, in = 0;
  int rctx = 0;
  bool done = false;
  if (e.recv(0, &in, sizeof in, 9, 0, &rctx) != Status::ok ||
      e.send(0, &out, sizeof out, 9, nullptr, &done) != Status::ok) {
    *why = e.last_error();
    return false;
  }
  Completion c;
  for (int i = 0; i < 10000000; ++i) {
    if (e.poll(&c, 1) != 0 && c.context == &rctx) break;
  }
  *why = "no self message";
  return c.context == &rctx && c.status == Status::ok && in == 7;
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
#ifdef FTMPI_EXPECT_FABRIC_TCP
  if (!mapped("libftmpi_fabric_tcp.so")) return fail("tcp did not load libftmpi_fabric_tcp.so", "");
  for (const char* vendor : {"libfabric.so.1", "libpsm2.so", "libinfinipath.so",
                             "libpsm_infinipath.so", "libibverbs.so", "librdmacm.so", "libefa.so"}) {
    if (mapped(vendor)) return fail("tcp through libftmpi_fabric_tcp.so mapped", vendor);
  }
#endif
  if (std::string why; !self_message(*t, &why)) return fail("tcp endpoint:", why);
  std::puts("lazy_libfabric: OK");
  return 0;
}
