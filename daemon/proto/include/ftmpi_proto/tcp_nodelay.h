// PMIx (OpenPMIx 4, Debian 12) connects clients to their server over TCP on the loopback
// interface and leaves Nagle's algorithm on. A small message written while the previous one
// is still unacknowledged then waits for the peer's delayed ACK, up to 40 ms: a failure event
// sent to a survivor that had heard from the server a moment before reached it ~35 ms late.
// Both ends switch Nagle off on every TCP socket they hold (accepted sockets inherit it from
// a listening one on Linux).
#pragma once

namespace ftmpi::proto {

// Sets TCP_NODELAY on the TCP sockets of this process (only those connected to peer_port when
// it is not 0: a client must leave its application's own sockets alone); returns how many.
int disable_nagle_on_tcp_sockets(int peer_port = 0);

// The port of the PMIx server this process was started under (PMIX_SERVER_URI*), 0 if none.
int pmix_server_port();

}  // namespace ftmpi::proto
