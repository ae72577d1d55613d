// FTMPI_NHOSTS / FTMPI_NET_ADDR as the transport reads them (one process, no namespaces):
// a job on several hosts opens shm and libfabric, and publishes FTMPI_NET_ADDR; a bad address
// fails Endpoint::open with a message naming FTMPI_NET_ADDR, never a crash or a loopback
// fallback; one host opens shm alone.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ftmpi/transport/endpoint.h"

using ftmpi::transport::Endpoint;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

std::unique_ptr<Endpoint> open_with(const char* nhosts, const char* addr, std::string* err) {
  setenv("FTMPI_NHOSTS", nhosts, 1);
  if (addr != nullptr) {
    setenv("FTMPI_NET_ADDR", addr, 1);
  } else {
    unsetenv("FTMPI_NET_ADDR");
  }
  err->clear();
  return Endpoint::open("", err);
}

// The libfabric part of the address ([magic][host][machine][pid][shm len][net len][shm][net]) as IPv4 text.
std::string published_net_addr(const Endpoint& ep) {
  const auto a = ep.address();
  if (a.size() < 36) return "";
  std::uint32_t shm_len = 0, net_len = 0;
  std::memcpy(&shm_len, a.data() + 28, 4);
  std::memcpy(&net_len, a.data() + 32, 4);
  if (net_len < sizeof(sockaddr_in) || a.size() < 36 + shm_len + sizeof(sockaddr_in)) return "";
  sockaddr_in sin{};
  std::memcpy(&sin, a.data() + 36 + shm_len, sizeof sin);
  char text[INET_ADDRSTRLEN] = {};
  if (sin.sin_family != AF_INET) return "";
  inet_ntop(AF_INET, &sin.sin_addr, text, sizeof text);
  return text;
}

}  // namespace

int main() {
  unsetenv("FTMPI_PROVIDER");
  std::string err;
  {
    auto ep = open_with("1", nullptr, &err);
    check(ep != nullptr && ep->provider_name() == "shm", "one host: shm only");
  }
  {
    auto ep = open_with("2", "127.0.0.1", &err);
    check(ep != nullptr && ep->provider_name() == "shm+tcp;ofi_rxm",
          "two hosts: shm+tcp;ofi_rxm (" + (ep ? ep->provider_name() : err) + ")");
    check(ep != nullptr && published_net_addr(*ep) == "127.0.0.1",
          "two hosts: publishes FTMPI_NET_ADDR (" + (ep ? published_net_addr(*ep) : err) + ")");
  }
  for (const char* bad : {"not-an-address", "300.1.2.3", "::1", "127.0.0.1:80", ""}) {
    auto ep = open_with("2", bad, &err);
    // An empty FTMPI_NET_ADDR counts as unset: libfabric picks, which must still open.
    if (*bad == '\0') {
      check(ep != nullptr, "empty FTMPI_NET_ADDR: the provider's choice (" + err + ")");
      continue;
    }
    check(ep == nullptr && err.find("FTMPI_NET_ADDR") != std::string::npos &&
              err.find(bad) != std::string::npos,
          std::string("refused FTMPI_NET_ADDR=") + bad + " (" + err + ")");
  }
  // 198.51.100.0/24 is TEST-NET-2, documentation only: no interface has it, binding fails.
  auto ep = open_with("2", "198.51.100.77", &err);
  check(ep == nullptr && err.find("FTMPI_NET_ADDR 198.51.100.77") != std::string::npos,
        "an address of no interface is refused (" + err + ")");
  std::printf("%s\n", failures == 0 ? "PASS net_addr" : "FAIL net_addr");
  return failures == 0 ? 0 : 1;
}
