// Frame encoding and the incremental, hostile-input-safe decoder.
#include "ftmpi_proto/frame.h"

#include <cstring>

#include "ftmpi_proto/wire.h"

namespace ftmpi::proto {

const char* to_string(ProtoStatus s) noexcept {
    switch (s) {
        case ProtoStatus::ok: return "ok";
        case ProtoStatus::need_more: return "incomplete frame";
        case ProtoStatus::bad_magic: return "bad magic (not an ftmpi peer)";
        case ProtoStatus::bad_version: return "unsupported protocol version";
        case ProtoStatus::oversized: return "frame larger than the limit";
        case ProtoStatus::truncated: return "truncated payload";
        case ProtoStatus::malformed: return "malformed payload";
        case ProtoStatus::wrong_type: return "unexpected message type";
        case ProtoStatus::io_error: return "I/O error";
        case ProtoStatus::closed: return "connection closed";
        case ProtoStatus::timed_out: return "timed out";
        case ProtoStatus::auth_failed: return "authentication failed";
    }
    return "unknown status";
}

std::vector<std::uint8_t> frame_encode(std::uint16_t type, const std::vector<std::uint8_t>& payload) {
    WireWriter w;
    w.u32(kFrameMagic);
    w.u8(kProtocolVersion);
    w.u8(0);
    w.u16(type);
    w.u32(static_cast<std::uint32_t>(payload.size()));
    auto& out = w.bytes();
    out.insert(out.end(), payload.begin(), payload.end());
    return std::move(out);
}

void FrameDecoder::feed(const void* data, std::size_t n) {
    if (error_ != ProtoStatus::ok || n == 0) return;
    // Drop consumed bytes before growing, so a long-lived connection does not creep.
    if (start_ > 0 && start_ == buf_.size()) {
        buf_.clear();
        start_ = 0;
    } else if (start_ > 64 * 1024 && start_ * 2 > buf_.size()) {
        buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(start_));
        start_ = 0;
    }
    const auto* p = static_cast<const std::uint8_t*>(data);
    buf_.insert(buf_.end(), p, p + n);
}

ProtoStatus FrameDecoder::next(Frame& out) {
    if (error_ != ProtoStatus::ok) return error_;
    std::size_t avail = buf_.size() - start_;
    if (avail < kFrameHeaderSize) {
        // Reject garbage as soon as the magic is visibly wrong, without waiting for 12 bytes.
        for (std::size_t i = 0; i < avail && i < 4; ++i) {
            if (buf_[start_ + i] != ((kFrameMagic >> (8 * i)) & 0xffu)) return error_ = ProtoStatus::bad_magic;
        }
        return ProtoStatus::need_more;
    }
    WireReader hdr(buf_.data() + start_, kFrameHeaderSize);
    std::uint32_t magic = hdr.u32();
    std::uint8_t version = hdr.u8();
    (void)hdr.u8();  // flags, reserved
    std::uint16_t type = hdr.u16();
    std::uint32_t length = hdr.u32();
    if (magic != kFrameMagic) return error_ = ProtoStatus::bad_magic;
    if (version != kProtocolVersion) return error_ = ProtoStatus::bad_version;
    if (length > max_payload_) return error_ = ProtoStatus::oversized;
    if (avail < kFrameHeaderSize + length) return ProtoStatus::need_more;

    const std::uint8_t* body = buf_.data() + start_ + kFrameHeaderSize;
    out.type = type;
    out.payload.assign(body, body + length);
    start_ += kFrameHeaderSize + length;
    return ProtoStatus::ok;
}

}  // namespace ftmpi::proto
