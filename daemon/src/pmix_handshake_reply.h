// The replies of PMIx's connection handshake always "reach" a client that died inside it.
//
// libpmix 4.2.2's server answers a client's connect-ack with two blocking sends (a status, then
// the client's index), after it has made the client's peer record. When the client died in
// between (a rank SIGKILLed inside PMIx_Init), the second send fails with EPIPE/ECONNRESET and
// the handler takes its error path (ptl_base_connection_hdlr.c, "UNREACHABLE ... line 388"),
// which releases the rank's record twice (once itself, once through the peer's destructor) and
// closes the socket twice. The freed record stays linked in the namespace's rank list: at the
// job's end PMIx_server_finalize walks it and blocks for ever on a lock in freed memory (gdb:
// main thread in PMIx_server_finalize -> pthread_mutex_lock, every PMIx thread gone), so a
// daemon outlived its job until a watchdog ended it 5 s later (issue 16 item 2).
//
// ftmpid defines send() (libpmix's call resolves to it, like accept() in peer_owner_gate.h).
// For a connection the accept gate handed to PMIx, the handshake's sends report success when
// the peer is gone: PMIx then takes its success path, and the closed socket is seen by its
// receive event as an ordinary lost connection (pmix_ptl_base_lost_connection), the path every
// client killed after PMIx_Init takes. Any other send, and every send after the handshake's two,
// is passed through untouched. A connection is recognised by descriptor AND inode, so a number
// reused for another socket is never affected.
#pragma once

namespace ftmpi::daemon {

// Called by the accept gate for a connection it hands to PMIx.
void pmix_handshake_begins(int fd);

// How many handshake replies to a vanished client were reported as sent (log and tests).
unsigned long pmix_handshake_replies_to_the_dead();

}  // namespace ftmpi::daemon
