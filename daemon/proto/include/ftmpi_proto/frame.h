// Framing of the control protocol: every message is a 12-byte header followed by a payload.
//
//   offset 0  u32 magic   'FTMP' (0x504D5446, little endian)
//   offset 4  u8  version (kProtocolVersion)
//   offset 5  u8  flags   (0; reserved)
//   offset 6  u16 type    (MsgType, see messages.h)
//   offset 8  u32 length  (payload bytes, at most the decoder's limit)
//
// A stream cannot be resynchronised after a bad header, so the decoder's errors are sticky and
// the owner of the connection is expected to drop it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

inline constexpr std::uint32_t kFrameMagic = 0x504D5446u;  // "FTMP" read as little endian
inline constexpr std::uint8_t kProtocolVersion = 1;
inline constexpr std::size_t kFrameHeaderSize = 12;
// Large enough for a launch request carrying a big environment; small enough that a hostile
// length field cannot make the daemon allocate much.
inline constexpr std::uint32_t kMaxPayload = 16u * 1024u * 1024u;

struct Frame {
    std::uint16_t type = 0;  // raw, so that types from newer peers can be skipped
    std::vector<std::uint8_t> payload;
};

// Builds header + payload in one buffer ready to write.
std::vector<std::uint8_t> frame_encode(std::uint16_t type, const std::vector<std::uint8_t>& payload);

// Incremental decoder for a byte stream; feed() whatever read() returned, then call next() until
// it stops returning ok.
class FrameDecoder {
public:
    explicit FrameDecoder(std::uint32_t max_payload = kMaxPayload) : max_payload_(max_payload) {}

    void feed(const void* data, std::size_t n);
    // ok: `out` holds the next frame. need_more: wait for more bytes. Anything else: the stream
    // is broken for good (every later call returns the same error).
    ProtoStatus next(Frame& out);

    std::size_t buffered() const noexcept { return buf_.size() - start_; }
    ProtoStatus error() const noexcept { return error_; }

private:
    std::uint32_t max_payload_;
    std::vector<std::uint8_t> buf_;
    std::size_t start_ = 0;
    ProtoStatus error_ = ProtoStatus::ok;
};

}  // namespace ftmpi::proto
