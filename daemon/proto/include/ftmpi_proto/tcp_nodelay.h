// PMIx (OpenPMIx 4, Debian 12) connects clients to their server over TCP on the loopback
// interface and leaves Nagle's algorithm on. A small message written while the previous one
// is still unacknowledged then waits for the peer's delayed ACK, up to 40 ms: a failure event
// sent to a survivor that had heard from the server a moment before reached it ~35 ms late.
// Both ends switch Nagle off on every TCP socket they hold (accepted sockets inherit it from
// a listening one on Linux).
#pragma once

namespace ftmpi::proto {

// Sets TCP_NODELAY on every TCP socket of this process; returns how many were set.
int disable_nagle_on_tcp_sockets();

}  // namespace ftmpi::proto
