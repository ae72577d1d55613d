// FrameDecoder: whole, split, back-to-back and hostile inputs.
#include <catch2/catch.hpp>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/wire.h"

using namespace ftmpi::proto;

namespace {
std::vector<std::uint8_t> raw_header(std::uint32_t magic, std::uint8_t version, std::uint16_t type, std::uint32_t len) {
    WireWriter w;
    w.u32(magic);
    w.u8(version);
    w.u8(0);
    w.u16(type);
    w.u32(len);
    return w.bytes();
}
}  // namespace

TEST_CASE("a frame fed in one piece decodes", "[frame]") {
    auto bytes = frame_encode(0x0012, {1, 2, 3});
    FrameDecoder dec;
    dec.feed(bytes.data(), bytes.size());
    Frame f;
    REQUIRE(dec.next(f) == ProtoStatus::ok);
    CHECK(f.type == 0x0012);
    CHECK(f.payload == std::vector<std::uint8_t>{1, 2, 3});
    CHECK(dec.next(f) == ProtoStatus::need_more);
}

TEST_CASE("a frame fed byte by byte decodes once complete", "[frame]") {
    auto bytes = frame_encode(7, std::vector<std::uint8_t>(1000, 0xab));
    FrameDecoder dec;
    Frame f;
    for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
        dec.feed(&bytes[i], 1);
        REQUIRE(dec.next(f) == ProtoStatus::need_more);
    }
    dec.feed(&bytes.back(), 1);
    REQUIRE(dec.next(f) == ProtoStatus::ok);
    CHECK(f.payload.size() == 1000);
}

TEST_CASE("back-to-back frames, including empty payloads, come out in order", "[frame]") {
    std::vector<std::uint8_t> stream;
    for (std::uint16_t t = 1; t <= 50; ++t) {
        auto b = frame_encode(t, std::vector<std::uint8_t>(t % 3 == 0 ? 0 : t, static_cast<std::uint8_t>(t)));
        stream.insert(stream.end(), b.begin(), b.end());
    }
    FrameDecoder dec;
    dec.feed(stream.data(), stream.size());
    Frame f;
    for (std::uint16_t t = 1; t <= 50; ++t) {
        REQUIRE(dec.next(f) == ProtoStatus::ok);
        CHECK(f.type == t);
        CHECK(f.payload.size() == (t % 3 == 0 ? 0u : t));
    }
    CHECK(dec.next(f) == ProtoStatus::need_more);
    CHECK(dec.buffered() == 0);
}

TEST_CASE("garbage is rejected as soon as the magic is wrong, and stays rejected", "[frame]") {
    FrameDecoder dec;
    const char junk[] = "GE";
    dec.feed(junk, 2);
    Frame f;
    CHECK(dec.next(f) == ProtoStatus::bad_magic);
    auto good = frame_encode(1, {});
    dec.feed(good.data(), good.size());
    CHECK(dec.next(f) == ProtoStatus::bad_magic);
}

TEST_CASE("an unknown protocol version is rejected", "[frame]") {
    auto h = raw_header(kFrameMagic, kProtocolVersion + 1, 1, 0);
    FrameDecoder dec;
    dec.feed(h.data(), h.size());
    Frame f;
    CHECK(dec.next(f) == ProtoStatus::bad_version);
}

TEST_CASE("an oversized length is rejected before any payload arrives", "[frame]") {
    auto h = raw_header(kFrameMagic, kProtocolVersion, 1, kMaxPayload + 1);
    FrameDecoder dec;
    dec.feed(h.data(), h.size());
    Frame f;
    CHECK(dec.next(f) == ProtoStatus::oversized);

    FrameDecoder small(16);
    auto h2 = raw_header(kFrameMagic, kProtocolVersion, 1, 17);
    small.feed(h2.data(), h2.size());
    CHECK(small.next(f) == ProtoStatus::oversized);
}

TEST_CASE("a truncated frame waits for more instead of reading past the end", "[frame]") {
    auto h = raw_header(kFrameMagic, kProtocolVersion, 1, 100);
    h.insert(h.end(), {1, 2, 3});
    FrameDecoder dec;
    dec.feed(h.data(), h.size());
    Frame f;
    CHECK(dec.next(f) == ProtoStatus::need_more);
    CHECK(dec.buffered() == h.size());
}

TEST_CASE("random byte streams never crash the decoder", "[frame][fuzz]") {
    std::uint32_t seed = 12345;
    for (int round = 0; round < 2000; ++round) {
        FrameDecoder dec(4096);
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(seed % 200));
        for (auto& b : bytes) {
            seed = seed * 1103515245u + 12345u;
            b = static_cast<std::uint8_t>(seed >> 16);
        }
        // Half the rounds start with a valid header so the length/version paths get exercised.
        if (round % 2 == 0) {
            auto h = raw_header(kFrameMagic, kProtocolVersion, static_cast<std::uint16_t>(seed), seed % 5000);
            bytes.insert(bytes.begin(), h.begin(), h.end());
        }
        dec.feed(bytes.data(), bytes.size());
        Frame f;
        ProtoStatus st;
        int guard = 0;
        while ((st = dec.next(f)) == ProtoStatus::ok && ++guard < 1000) {
        }
        CHECK(st != ProtoStatus::ok);
    }
}
