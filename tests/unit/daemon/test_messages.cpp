// Message codecs: round trips and malformed payloads.
#include <catch2/catch.hpp>

#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/wire.h"

using namespace ftmpi::proto;

namespace {
Frame to_frame(const std::vector<std::uint8_t>& bytes) {
    FrameDecoder dec;
    dec.feed(bytes.data(), bytes.size());
    Frame f;
    REQUIRE(dec.next(f) == ProtoStatus::ok);
    return f;
}
}  // namespace

TEST_CASE("launch_job round-trips every field", "[messages]") {
    LaunchJob m;
    m.argv = {"./a.out", "--flag", ""};
    m.env = {"A=1", "PATH=/bin", "EMPTY="};
    m.cwd = "/tmp/work";
    m.nprocs = 16;
    m.comm_mode = CommMode::rebuild_append;
    m.msg_mode = MsgMode::cont;
    m.tag_output = true;
    LaunchJob out;
    REQUIRE(decode(to_frame(encode(m)), out) == ProtoStatus::ok);
    CHECK(out.argv == m.argv);
    CHECK(out.env == m.env);
    CHECK(out.cwd == m.cwd);
    CHECK(out.nprocs == 16);
    CHECK(out.comm_mode == CommMode::rebuild_append);
    CHECK(out.msg_mode == MsgMode::cont);
    CHECK(out.tag_output);
}

TEST_CASE("job reports round-trip", "[messages]") {
    RankExited r;
    r.rank = 3;
    r.pid = 4242;
    r.signaled = true;
    r.code = 9;
    r.connected = true;
    r.failed = true;
    r.job_continues = true;
    r.time_ms = 1700000000123ull;
    RankExited r2;
    REQUIRE(decode(to_frame(encode(r)), r2) == ProtoStatus::ok);
    CHECK(r2.rank == 3);
    CHECK(r2.pid == 4242);
    CHECK(r2.signaled);
    CHECK(r2.code == 9);
    CHECK(r2.connected);
    CHECK_FALSE(r2.finalized);
    CHECK(r2.failed);
    CHECK(r2.job_continues);
    CHECK(r2.time_ms == 1700000000123ull);

    OutputChunk o;
    o.rank = 1;
    o.stream = OutputStream::err;
    o.bytes = std::string("bin\0ary\n", 8);
    OutputChunk o2;
    REQUIRE(decode(to_frame(encode(o)), o2) == ProtoStatus::ok);
    CHECK(o2.bytes == o.bytes);
    CHECK(o2.stream == OutputStream::err);

    JobEnded e{-7, JobEndReason::aborted, "why"};
    JobEnded e2;
    REQUIRE(decode(to_frame(encode(e)), e2) == ProtoStatus::ok);
    CHECK(e2.exit_code == -7);
    CHECK(e2.reason == JobEndReason::aborted);
    CHECK(e2.message == "why");
}

TEST_CASE("decode refuses a frame of another type", "[messages]") {
    KillJob k;
    JobEnded e;
    CHECK(decode(to_frame(encode(k)), e) == ProtoStatus::wrong_type);
}

TEST_CASE("every truncation of a valid payload is rejected", "[messages]") {
    LaunchJob m;
    m.argv = {"prog", "arg"};
    m.env = {"X=1"};
    m.cwd = "/";
    m.nprocs = 2;
    Frame full = to_frame(encode(m));
    for (std::size_t n = 0; n < full.payload.size(); ++n) {
        Frame cut{full.type, std::vector<std::uint8_t>(full.payload.begin(), full.payload.begin() + n)};
        LaunchJob out;
        CHECK(decode(cut, out) != ProtoStatus::ok);
    }
}

TEST_CASE("trailing bytes, bad enums and bad booleans are malformed", "[messages]") {
    Frame f = to_frame(encode(KillJob{}));
    f.payload.push_back(0);
    KillJob k;
    CHECK(decode(f, k) == ProtoStatus::malformed);

    Frame bad_enum{static_cast<std::uint16_t>(MsgType::kill_job), {200}};
    CHECK(decode(bad_enum, k) == ProtoStatus::malformed);

    LaunchJob m;
    m.argv = {"p"};
    Frame lf = to_frame(encode(m));
    lf.payload.back() = 7;  // tag_output must be 0 or 1
    LaunchJob out;
    CHECK(decode(lf, out) == ProtoStatus::malformed);
}

TEST_CASE("a list count larger than the payload fails without allocating it", "[messages]") {
    WireWriter w;
    w.u32(0xFFFFFFFFu);  // argv count
    Frame f{static_cast<std::uint16_t>(MsgType::launch_job), w.bytes()};
    LaunchJob out;
    CHECK(decode(f, out) == ProtoStatus::truncated);

    WireWriter s;
    s.u32(kProtocolVersion);
    s.u8(0);
    s.u32(0x7FFFFFFFu);  // token length
    Frame h{static_cast<std::uint16_t>(MsgType::hello), s.bytes()};
    Hello hello;
    CHECK(decode(h, hello) == ProtoStatus::truncated);
}
