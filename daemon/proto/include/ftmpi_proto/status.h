// Status codes of the control-socket protocol shared by ftmpid, mpirun and the tools.
#pragma once

#include <cstdint>

namespace ftmpi::proto {

// One status type for the whole protocol layer; callers must look at it.
enum class [[nodiscard]] ProtoStatus : std::uint8_t {
    ok,
    need_more,     // decoder: the buffer holds only part of a frame so far
    bad_magic,     // the peer does not speak this protocol (or the stream lost sync)
    bad_version,   // a protocol version this build does not understand
    oversized,     // length field beyond the limit: refuse rather than allocate
    truncated,     // payload ended before a field did
    malformed,     // a field has an impossible value, or bytes are left over
    wrong_type,    // decode() asked for a message type the frame does not carry
    io_error,      // read/write on the socket failed
    closed,        // the peer closed the connection
    timed_out,     // no answer within the allowed time
    auth_failed,   // the peer did not present the daemon's secret
};

const char* to_string(ProtoStatus s) noexcept;

}  // namespace ftmpi::proto
