// The codec's field types that the library's formats use (monitor reports, consensus decisions,
// intercommunicator exchange, transport addresses): fixed-size raw fields, blobs, u32 lists and
// the rest of a payload; each refuses what the bytes cannot hold.
#include <catch2/catch.hpp>

#include <array>

#include "ftmpi_proto/wire.h"

using namespace ftmpi::proto;

TEST_CASE("raw, blob, u32_list and rest round-trip in order", "[wire]") {
    WireWriter w;
    const std::array<std::uint8_t, 3> fixed = {7, 8, 9};
    w.raw(fixed.data(), fixed.size());
    w.blob({1, 2, 3, 4});
    w.blob({});
    w.u32_list({5, 0xffffffffu});
    w.raw(nullptr, 0);  // an empty trailing field writes nothing
    w.u8(42);
    w.u8(43);
    WireReader r(w.bytes());
    std::array<std::uint8_t, 3> back{};
    r.raw(back.data(), back.size());
    CHECK(back == fixed);
    CHECK(r.blob() == std::vector<std::uint8_t>{1, 2, 3, 4});
    CHECK(r.blob().empty());
    CHECK(r.u32_list() == std::vector<std::uint32_t>{5, 0xffffffffu});
    CHECK(r.rest() == std::vector<std::uint8_t>{42, 43});
    CHECK(r.remaining() == 0);
    CHECK(r.finish() == ProtoStatus::ok);
}

TEST_CASE("short fields fail and stick without reading past the end", "[wire]") {
    SECTION("raw longer than the payload zero-fills") {
        std::vector<std::uint8_t> two = {1, 2};
        WireReader r(two);
        std::array<std::uint8_t, 4> out = {9, 9, 9, 9};
        r.raw(out.data(), out.size());
        CHECK(out == std::array<std::uint8_t, 4>{0, 0, 0, 0});
        CHECK(r.status() == ProtoStatus::truncated);
        CHECK(r.rest().empty());  // nothing after a failure
    }
    SECTION("a blob length beyond the payload") {
        WireWriter w;
        w.u32(1000);
        w.u8(1);
        WireReader r(w.bytes());
        CHECK(r.blob().empty());
        CHECK(r.finish() == ProtoStatus::truncated);
    }
    SECTION("a u32 list count beyond the payload is refused before any allocation") {
        WireWriter w;
        w.u32(0x40000000u);  // would be 4 GiB
        w.u32(1);
        WireReader r(w.bytes());
        CHECK(r.u32_list().empty());
        CHECK(r.finish() == ProtoStatus::truncated);
    }
    SECTION("bytes left over after the last field") {
        WireWriter w;
        w.u32_list({1});
        w.u8(0);
        WireReader r(w.bytes());
        CHECK(r.u32_list() == std::vector<std::uint32_t>{1});
        CHECK(r.finish() == ProtoStatus::malformed);
    }
}
