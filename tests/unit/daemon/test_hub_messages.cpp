// Several-hosts messages (hub_messages.h): round trips, and hostile payloads refused without
// crashing or allocating what they claim.
#include <catch2/catch.hpp>

#include "ftmpi_proto/hub_messages.h"
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

JobSlice sample_slice() {
    JobSlice m;
    m.jobid = "ftmpi-42-hosts";
    m.nspace = "ftmpi-42-hosts-0123456789abcdef0123456789abcdef";
    m.event_seal = std::string(64, 'a');
    m.host_index = 2;
    m.host_names = {"n1", "n2", "n3"};
    m.host_of_rank = {0, 1, 2, 0, 1, 2};
    m.net_addr = "10.0.0.3";
    return m;
}
}  // namespace

TEST_CASE("job_slice round-trips every field", "[hub]") {
    const JobSlice m = sample_slice();
    JobSlice out;
    REQUIRE(decode(to_frame(encode(m)), out) == ProtoStatus::ok);
    CHECK(out.jobid == m.jobid);
    CHECK(out.nspace == m.nspace);
    CHECK(out.event_seal == m.event_seal);
    CHECK(out.host_index == 2);
    CHECK(out.host_names == m.host_names);
    CHECK(out.host_of_rank == m.host_of_rank);
    CHECK(out.net_addr == m.net_addr);
}

TEST_CASE("job_slice naming a host that does not exist is malformed", "[hub]") {
    JobSlice m = sample_slice();
    m.host_index = 3;
    JobSlice out;
    CHECK(decode(to_frame(encode(m)), out) == ProtoStatus::malformed);
    m = sample_slice();
    m.host_of_rank[4] = 7;
    CHECK(decode(to_frame(encode(m)), out) == ProtoStatus::malformed);
    m = sample_slice();
    m.host_of_rank.clear();
    CHECK(decode(to_frame(encode(m)), out) == ProtoStatus::malformed);
}

TEST_CASE("a huge rank count with few bytes is truncated, not allocated", "[hub]") {
    WireWriter w;
    w.u32(0xffffffffu);  // claims 4 billion ranks
    w.u32(1);
    Frame f;
    f.type = kProcsFailedType;
    f.payload = w.bytes();
    ProcsFailed out;
    CHECK(decode(f, out) == ProtoStatus::truncated);
}

TEST_CASE("fence, failure, stdin and hello messages round-trip", "[hub]") {
    FenceContribution c{"*", 3, std::string("\0blob\xff", 6)};
    FenceContribution c2;
    REQUIRE(decode(to_frame(encode(c)), c2) == ProtoStatus::ok);
    CHECK(c2.signature == "*");
    CHECK(c2.seq == 3);
    CHECK(c2.blob == c.blob);

    FenceResult r{"0,1,5", 1, true, "abc"};
    FenceResult r2;
    REQUIRE(decode(to_frame(encode(r)), r2) == ProtoStatus::ok);
    CHECK(r2.signature == "0,1,5");
    CHECK(r2.partial);
    CHECK(r2.data == "abc");

    ProcsFailed p{{4, 9}};
    ProcsFailed p2;
    REQUIRE(decode(to_frame(encode(p)), p2) == ProtoStatus::ok);
    CHECK(p2.ranks == std::vector<std::uint32_t>{4, 9});

    StdinChunk s{"line\n", true};
    StdinChunk s2;
    REQUIRE(decode(to_frame(encode(s)), s2) == ProtoStatus::ok);
    CHECK(s2.bytes == "line\n");
    CHECK(s2.eof);

    DaemonHello h{5, "node5", 1234, "10.1.1.5"};
    DaemonHello h2;
    REQUIRE(decode(to_frame(encode(h)), h2) == ProtoStatus::ok);
    CHECK(h2.host_index == 5);
    CHECK(h2.hostname == "node5");
    CHECK(h2.pid == 1234);
    CHECK(h2.net_addr == "10.1.1.5");
}

TEST_CASE("a message decoded as another type is refused", "[hub]") {
    ProcsFailed p{{1}};
    JobSlice out;
    CHECK(decode(to_frame(encode(p)), out) == ProtoStatus::wrong_type);
}

TEST_CASE("every truncation of a slice is refused", "[hub]") {
    const std::vector<std::uint8_t> whole = encode(sample_slice());
    for (std::size_t cut = kFrameHeaderSize; cut < whole.size(); ++cut) {
        Frame f;
        f.type = kJobSliceType;
        f.payload.assign(whole.begin() + kFrameHeaderSize, whole.begin() + static_cast<long>(cut));
        JobSlice out;
        CHECK(decode(f, out) != ProtoStatus::ok);
    }
}

TEST_CASE("host_idle and job_release round-trip; a truncated host_idle is refused", "[hub]") {
    HostIdle idle;
    idle.processes = 7;
    HostIdle back;
    REQUIRE(decode(to_frame(encode(idle)), back) == ProtoStatus::ok);
    CHECK(back.processes == 7);
    JobRelease rel;
    CHECK(decode(to_frame(encode(JobRelease{})), rel) == ProtoStatus::ok);
    Frame f = to_frame(encode(idle));
    f.payload.pop_back();
    CHECK(decode(f, back) == ProtoStatus::truncated);
    Frame g = to_frame(encode(JobRelease{}));
    g.payload.push_back(0);  // a release carries nothing
    CHECK(decode(g, rel) != ProtoStatus::ok);
    CHECK(decode(to_frame(encode(idle)), rel) == ProtoStatus::wrong_type);
}
