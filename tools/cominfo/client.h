// What cominfo and hostinfo share: finding the running daemons and asking each for its state
// table over the control socket (daemon/README.md), and turning the answers into text.
#pragma once

#include <string>
#include <vector>

#include "ftmpi_proto/state.h"

namespace ftmpi::tools {

struct DaemonAnswer {
    std::string socket;
    int pid = 0;           // from the registry, 0 if unknown
    bool ok = false;
    std::string error;     // when !ok
    proto::Snapshot snap;  // when ok
};

// Sockets to ask: `explicit_socket` alone if given; else $FTMPI_DAEMON_SOCKET alone if set;
// else the per-user default socket plus every daemon in /tmp/ftmpi-$UID/daemons/ (private
// daemons started by mpirun included). Each entry: (socket, registry pid or 0).
std::vector<std::pair<std::string, int>> discover(const std::string& explicit_socket);

// One query (connect, hello as a tool, query_state, job_table), at most ~1 s.
DaemonAnswer query_daemon(const std::string& socket, bool with_cpu);

// Every discovered daemon. Daemons whose registry entry is stale and whose socket is gone are
// left out; a daemon that does not answer is returned with ok = false.
std::vector<DaemonAnswer> query_all(const std::string& explicit_socket, bool with_cpu);

}  // namespace ftmpi::tools
