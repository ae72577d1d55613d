// Little-endian field encoding for message payloads. The reader never reads past the end and
// never allocates more than the bytes that remain could describe, so a hostile payload can only
// produce an error status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

class WireWriter {
public:
    void u8(std::uint8_t v) { out_.push_back(v); }
    void u16(std::uint16_t v);
    void u32(std::uint32_t v);
    void u64(std::uint64_t v);
    void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
    void boolean(bool v) { u8(v ? 1 : 0); }
    void str(const std::string& s);  // u32 length + bytes
    void str_list(const std::vector<std::string>& v);
    void i32_list(const std::vector<std::int32_t>& v);
    void raw(const void* data, std::size_t n);  // fixed-size field: bytes only, no length
    void blob(const std::vector<std::uint8_t>& b);  // u32 length + bytes
    void u32_list(const std::vector<std::uint32_t>& v);

    std::vector<std::uint8_t>& bytes() { return out_; }

private:
    std::vector<std::uint8_t> out_;
};

// Reads fields in order; the first failure sticks, so decoders read everything and check once.
class WireReader {
public:
    WireReader(const std::uint8_t* data, std::size_t n) : p_(data), end_(data + n) {}
    explicit WireReader(const std::vector<std::uint8_t>& v) : WireReader(v.data(), v.size()) {}

    std::uint8_t u8();
    std::uint16_t u16();
    std::uint32_t u32();
    std::uint64_t u64();
    std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
    bool boolean();  // anything but 0/1 is malformed
    std::string str();
    std::vector<std::string> str_list();
    std::vector<std::int32_t> i32_list();
    // Fixed-size field of exactly n bytes; on failure `out` is zero-filled.
    void raw(void* out, std::size_t n);
    std::vector<std::uint8_t> blob();
    std::vector<std::uint32_t> u32_list();
    // Everything not read yet (a trailing field whose length is the rest of the payload).
    std::vector<std::uint8_t> rest();

    // An enum stored as u8 whose valid values are [0, count).
    template <typename E>
    E enum_u8(std::uint8_t count) {
        std::uint8_t v = u8();
        if (status_ == ProtoStatus::ok && v >= count) status_ = ProtoStatus::malformed;
        return status_ == ProtoStatus::ok ? static_cast<E>(v) : E{};
    }

    // ok only if every field was read and no bytes are left over.
    ProtoStatus finish() const;
    ProtoStatus status() const noexcept { return status_; }
    std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }

private:
    bool take(std::size_t n);
    const std::uint8_t* p_;
    const std::uint8_t* end_;
    ProtoStatus status_ = ProtoStatus::ok;
};

}  // namespace ftmpi::proto
