// The shape of a PMIx client's connect-ack, checked before libpmix sees it.
//
// libpmix 4.2.2's server parses a new connection's connect-ack trusting its contents: 64 bytes
// of noise framed as a connect-ack killed ftmpid (found by tests/e2e/runtime/proto_abuse.cpp),
// and an unknown module name in an otherwise valid one takes an error path that releases the
// rank's record twice. So ftmpid only passes on connect-acks shaped exactly like those its own
// clients (simple PMIx 4.x clients, as the library and the ranks are) send:
//   string psec ("native" | "none"), u32 credential length (network order) + credential,
//   u8 type = 0 (simple client), string namespace (1..255 bytes) + u32 rank,
//   string version ("MAJOR.MINOR.RELEASE..."), string bfrops (a known module),
//   u8 buffer type (1 | 2), string gds (known modules, comma-separated), then any blob.
// Strings are NUL-terminated inside the body. Tools and launchers (other types) are refused:
// nothing but the job's processes talks to ftmpid through PMIx.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ftmpi::daemon {

// `body` is the connect-ack after its 16-byte header. On false, `why` says what was wrong.
bool pmix_connect_ack_well_formed(const std::uint8_t* body, std::size_t size, std::string* why);

}  // namespace ftmpi::daemon
