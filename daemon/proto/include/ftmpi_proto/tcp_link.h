// TCP helpers for the links between mpirun and the remote daemons of a job (IPv4 only, as the
// hosts of SPEC 5.1). Every descriptor is close-on-exec, so none leaks into a rank.
#pragma once

#include <cstdint>
#include <string>

#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

// Listens on `ipv4`:any port (non-blocking socket, backlog for a whole job's daemons).
ProtoStatus tcp_listen(const std::string& ipv4, int& fd_out, std::uint16_t& port_out, std::string& why);

// Connects to "A.B.C.D:PORT" within timeout_ms; the descriptor returned is blocking.
ProtoStatus tcp_connect(const std::string& addr_port, int timeout_ms, int& fd_out, std::string& why);

// The local IPv4 address of a connected or bound socket ("" if not IPv4).
std::string tcp_local_address(int fd);

// The local IPv4 address from which `peer_ipv4` is routed (a UDP connect, nothing is sent).
ProtoStatus tcp_route_source(const std::string& peer_ipv4, std::string& local_out, std::string& why);

}  // namespace ftmpi::proto
