// Provider selection and the libfabric-error-to-Status map.
#include <rdma/fi_errno.h>

#include <catch2/catch.hpp>

#include "ftmpi/transport/endpoint.h"
#include "provider.h"
#include "status_map.h"

using namespace ftmpi::transport;

TEST_CASE("resolve_provider: defaults, aliases, environment and errors") {
  std::string err;
  REQUIRE(resolve_provider("", "", &err) == "shm");  // the default
  REQUIRE(resolve_provider("shm", "tcp", &err) == "shm");  // an explicit choice wins
  REQUIRE(resolve_provider("", "tcp", &err) == "tcp;ofi_rxm");
  REQUIRE(resolve_provider("tcp", "", &err) == "tcp;ofi_rxm");
  REQUIRE(resolve_provider("tcp;ofi_rxm", "", &err) == "tcp;ofi_rxm");
  REQUIRE(resolve_provider("verbs", "", &err).empty());
  REQUIRE(err.find("verbs") != std::string::npos);
}

TEST_CASE("Endpoint::open rejects an unknown provider with a clear message") {
  std::string err;
  REQUIRE(Endpoint::open("carrier-pigeon", &err) == nullptr);
  REQUIRE(err.find("unknown provider 'carrier-pigeon'") != std::string::npos);
}

TEST_CASE("status_from_fi_error") {
  REQUIRE(status_from_fi_error(0) == Status::ok);
  REQUIRE(status_from_fi_error(FI_ETRUNC) == Status::truncated);
  REQUIRE(status_from_fi_error(FI_ECANCELED) == Status::canceled);
  REQUIRE(status_from_fi_error(FI_ENOMSG) == Status::no_message);
  REQUIRE(status_from_fi_error(FI_ECONNRESET) == Status::peer_failed);
  REQUIRE(status_from_fi_error(FI_ECONNREFUSED) == Status::peer_failed);
  REQUIRE(status_from_fi_error(FI_ENOMEM) == Status::error);
}

TEST_CASE("status_name covers every status") {
  REQUIRE(std::string(status_name(Status::ok)) == "ok");
  REQUIRE(std::string(status_name(Status::peer_failed)) == "peer_failed");
  REQUIRE(std::string(status_name(Status::no_message)) == "no_message");
}
