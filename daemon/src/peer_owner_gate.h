// Who may talk to the embedded PMIx server (SPEC 5.2).
//
// PMIx 4 clients reach their server over loopback TCP, and PMIx's own handshake trusts the uid
// the client writes into it (a getuid shim suffices to lie). The kernel, however, records the
// owner of every socket. ftmpid therefore defines accept() and accept4() itself: the dynamic
// linker resolves libpmix's calls to these (an executable's definitions come first), and every
// TCP connection whose peer socket is not owned by the daemon's user is closed before PMIx ever
// reads a byte of it. An owner's connection is handed over only once its whole PMIx connect-ack
// has arrived (PMIx 4.2 would otherwise block on it; see peer_owner_gate.cpp). Unix-socket
// connections pass through untouched (the control server checks SO_PEERCRED itself).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ftmpi::daemon {

// The owner of the local TCP socket whose (local address, remote address) are exactly
// (`local`, `remote`), from /proc/net/tcp or /proc/net/tcp6; nullopt if there is none (the peer
// is on another host or already gone). `table_text` overrides the file contents (unit tests).
std::optional<uid_t> tcp_socket_owner(const sockaddr_storage& local, const sockaddr_storage& remote,
                                      const std::string* table_text = nullptr);

// How many TCP connections the gate has refused so far (for the log and the tests).
std::uint64_t refused_tcp_connections();

}  // namespace ftmpi::daemon
