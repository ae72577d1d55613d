// Bounds-checked little-endian field codec.
#include "ftmpi_proto/wire.h"

#include <cstring>

namespace ftmpi::proto {

void WireWriter::u16(std::uint16_t v) {
    out_.push_back(static_cast<std::uint8_t>(v));
    out_.push_back(static_cast<std::uint8_t>(v >> 8));
}

void WireWriter::u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void WireWriter::u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void WireWriter::str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
}

void WireWriter::str_list(const std::vector<std::string>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& s : v) str(s);
}

void WireWriter::i32_list(const std::vector<std::int32_t>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (auto x : v) i32(x);
}

void WireWriter::u32_list(const std::vector<std::uint32_t>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (auto x : v) u32(x);
}

void WireWriter::blob(const std::vector<std::uint8_t>& b) {
    u32(static_cast<std::uint32_t>(b.size()));
    out_.insert(out_.end(), b.begin(), b.end());
}

void WireWriter::raw(const void* data, std::size_t n) {
    if (n == 0) return;
    const auto* p = static_cast<const std::uint8_t*>(data);
    out_.insert(out_.end(), p, p + n);
}

bool WireReader::take(std::size_t n) {
    if (status_ != ProtoStatus::ok) return false;
    if (remaining() < n) {
        status_ = ProtoStatus::truncated;
        return false;
    }
    return true;
}

std::uint8_t WireReader::u8() {
    if (!take(1)) return 0;
    return *p_++;
}

std::uint16_t WireReader::u16() {
    if (!take(2)) return 0;
    std::uint16_t v = static_cast<std::uint16_t>(p_[0] | (p_[1] << 8));
    p_ += 2;
    return v;
}

std::uint32_t WireReader::u32() {
    if (!take(4)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p_[i]) << (8 * i);
    p_ += 4;
    return v;
}

std::uint64_t WireReader::u64() {
    if (!take(8)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p_[i]) << (8 * i);
    p_ += 8;
    return v;
}

bool WireReader::boolean() {
    std::uint8_t v = u8();
    if (status_ == ProtoStatus::ok && v > 1) status_ = ProtoStatus::malformed;
    return v == 1;
}

std::string WireReader::str() {
    std::uint32_t n = u32();
    if (!take(n)) return {};
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
}

std::vector<std::string> WireReader::str_list() {
    std::uint32_t n = u32();
    // Each element needs at least its 4-byte length: a count the payload cannot hold is a lie,
    // and checking it first keeps reserve() from allocating on an attacker's say-so.
    if (status_ != ProtoStatus::ok) return {};
    if (n > remaining() / 4) {
        status_ = ProtoStatus::truncated;
        return {};
    }
    std::vector<std::string> v;
    v.reserve(n);
    for (std::uint32_t i = 0; i < n && status_ == ProtoStatus::ok; ++i) v.push_back(str());
    return v;
}

std::vector<std::int32_t> WireReader::i32_list() {
    std::vector<std::uint32_t> u = u32_list();
    return std::vector<std::int32_t>(u.begin(), u.end());
}

std::vector<std::uint32_t> WireReader::u32_list() {
    std::uint32_t n = u32();
    if (status_ != ProtoStatus::ok) return {};
    if (n > remaining() / 4) {
        status_ = ProtoStatus::truncated;
        return {};
    }
    std::vector<std::uint32_t> v;
    v.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) v.push_back(u32());
    return v;
}

std::vector<std::uint8_t> WireReader::blob() {
    std::uint32_t n = u32();
    if (!take(n)) return {};
    std::vector<std::uint8_t> b(p_, p_ + n);
    p_ += n;
    return b;
}

std::vector<std::uint8_t> WireReader::rest() {
    if (status_ != ProtoStatus::ok) return {};
    std::vector<std::uint8_t> b(p_, end_);
    p_ = end_;
    return b;
}

void WireReader::raw(void* out, std::size_t n) {
    if (n == 0) return;  // memset/memcpy with a null pointer would be undefined even for 0 bytes
    if (!take(n)) {
        std::memset(out, 0, n);
        return;
    }
    std::memcpy(out, p_, n);
    p_ += n;
}

ProtoStatus WireReader::finish() const {
    if (status_ != ProtoStatus::ok) return status_;
    return p_ == end_ ? ProtoStatus::ok : ProtoStatus::malformed;
}

}  // namespace ftmpi::proto
