// The job's host table (issue 15 item 7): its encoding, and how hostinfo and cominfo show it.
#include <catch2/catch.hpp>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/host_table.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/state.h"
#include "render.h"
#include "render_hosts.h"

using namespace ftmpi;
using namespace ftmpi::tools;

namespace {

proto::JobInfo three_host_job() {
    proto::JobInfo j;
    j.id = "ftmpi-9-1";
    j.program = "./app";
    j.nprocs = 6;
    j.comm_mode = proto::CommModeV::rebuild;
    // The local daemon runs ranks 0 and 1 only.
    for (std::uint32_t r = 0; r < 2; ++r) j.procs.push_back({r, static_cast<std::int32_t>(500 + r), "a", proto::RunStateV::running, 0, 0});
    proto::CommInfo c;
    c.name = "MPI_COMM_WORLD";
    for (std::uint32_t r = 0; r < 6; ++r) c.procs.push_back({r, r, proto::ProcStateV::ok});
    j.comms.push_back(c);
    j.hosts.push_back({"a", proto::HostStateV::ok, 100, {0, 1}, 0, 0});
    j.hosts.push_back({"b", proto::HostStateV::ok, 200, {2, 3}, 0, 9'000});
    j.hosts.push_back({"c", proto::HostStateV::failed, 300, {4, 5}, 0, 8'000});
    return j;
}

proto::Frame frame_of(const std::vector<std::uint8_t>& bytes) {
    proto::FrameDecoder dec;
    dec.feed(bytes.data(), bytes.size());
    proto::Frame f;
    REQUIRE(dec.next(f) == proto::ProtoStatus::ok);
    return f;
}

}  // namespace

TEST_CASE("host_table_update round-trips; forged counts and truncation are refused") {
    proto::HostTableUpdate m;
    m.hosts = three_host_job().hosts;
    proto::Frame f = frame_of(proto::encode(m));
    CHECK(f.type == static_cast<std::uint16_t>(proto::MsgType::host_table_update));
    proto::HostTableUpdate back;
    REQUIRE(proto::decode(f, back) == proto::ProtoStatus::ok);
    REQUIRE(back.hosts.size() == 3);
    CHECK(back.hosts[1].name == "b");
    CHECK(back.hosts[1].ranks == std::vector<std::uint32_t>{2, 3});
    CHECK(back.hosts[2].state == proto::HostStateV::failed);
    CHECK(back.hosts[2].last_heard_ms == 8'000);

    proto::Frame cut = f;
    cut.payload.resize(cut.payload.size() - 3);
    CHECK(proto::decode(cut, back) != proto::ProtoStatus::ok);
    proto::Frame forged = f;
    forged.payload[0] = forged.payload[1] = forged.payload[2] = forged.payload[3] = 0xff;  // 4 G hosts
    CHECK(proto::decode(forged, back) != proto::ProtoStatus::ok);
    proto::Frame bad_state = f;
    bad_state.payload[4 + 4 + 1] = 7;  // first host: u32 count, str "a" (4+1), state byte
    CHECK(proto::decode(bad_state, back) == proto::ProtoStatus::malformed);
    CHECK(back.hosts.size() == 3);  // untouched on failure
}

TEST_CASE("a snapshot carries each job's host table") {
    proto::Snapshot s;
    s.host.hostname = "a";
    s.jobs.push_back(three_host_job());
    proto::Snapshot back;
    REQUIRE(proto::decode(frame_of(proto::encode(s)), back) == proto::ProtoStatus::ok);
    REQUIRE(back.jobs.size() == 1);
    REQUIRE(back.jobs[0].hosts.size() == 3);
    CHECK(back.jobs[0].hosts[2].daemon_pid == 300);
}

TEST_CASE("hostinfo lists every host of the job: state, daemon, ranks, spares, heartbeat age") {
    DaemonAnswer a;
    a.ok = true;
    a.socket = "/tmp/x.sock";
    a.snap.host.hostname = "a";
    a.snap.host.now_ms = 9'120;
    a.snap.jobs.push_back(three_host_job());
    const std::string text = hostinfo_text({a}, 120, false);
    CHECK(text.find("host a  ok  daemon pid 100  ranks 0-1  spares 0  mpirun's host") != std::string::npos);
    CHECK(text.find("host b  ok  daemon pid 200  ranks 2-3  spares 0  heartbeat 120 ms ago") != std::string::npos);
    CHECK(text.find("host c  FAILED  daemon pid 300  ranks 4-5") != std::string::npos);
    const std::string js = hostinfo_json({a});
    CHECK(js.find("\"hosts\":[{\"name\":\"a\",\"state\":\"ok\",\"daemon_pid\":100,\"ranks\":[0,1],\"spares\":0,"
                  "\"heartbeat_age_ms\":null},{\"name\":\"b\",\"state\":\"ok\",\"daemon_pid\":200,\"ranks\":[2,3],"
                  "\"spares\":0,\"heartbeat_age_ms\":120},{\"name\":\"c\",\"state\":\"failed\"") != std::string::npos);
}

TEST_CASE("cominfo names each process's host, also for ranks of other hosts") {
    const auto j = three_host_job();
    CHECK(host_of_rank(j, 1) == "a");
    CHECK(host_of_rank(j, 3) == "b");
    CHECK(host_of_rank(j, 5) == "c");
    CHECK(host_of_rank(j, 6).empty());
    DaemonAnswer a;
    a.ok = true;
    a.snap.jobs.push_back(j);
    const std::string js = cominfo_json({a});
    CHECK(js.find("{\"rank\":3,\"state\":\"OK\",\"host\":\"b\",\"pid\":0}") != std::string::npos);
    CHECK(js.find("{\"rank\":0,\"state\":\"OK\",\"host\":\"a\",\"pid\":500}") != std::string::npos);
    const std::string text = cominfo_text({a}, 100, false);
    CHECK(text.find("  hosts:  a [0-1]  b [2-3]  c FAILED [4-5]") != std::string::npos);
    // A REBUILD replacement of rank 4 now on host b: the live host wins.
    auto moved = j;
    moved.hosts[1].ranks.push_back(4);
    CHECK(host_of_rank(moved, 4) == "b");
    auto details = comm_box(moved, moved.comms[0], 80, true);
    CHECK(plain(details[6]).find("world 4    pid 0       host b") != std::string::npos);
}

TEST_CASE("rank ranges") {
    CHECK(rank_ranges({}) == "-");
    CHECK(rank_ranges({3}) == "3");
    CHECK(rank_ranges({5, 0, 1, 2, 7, 8}) == "0-2,5,7-8");
}

TEST_CASE("job_mirror round-trips; no id, no process or a bad mode is refused") {
    proto::JobMirror m;
    m.jobid = "ftmpi-7-hosts";
    m.program = "./app";
    m.nprocs = 4;
    m.comm_mode = proto::CommMode::rebuild;
    m.msg_mode = proto::MsgMode::cont;
    proto::FrameDecoder dec;
    const auto bytes = proto::encode(m);
    dec.feed(bytes.data(), bytes.size());
    proto::Frame f;
    REQUIRE(dec.next(f) == proto::ProtoStatus::ok);
    CHECK(f.type == static_cast<std::uint16_t>(proto::MsgType::job_mirror));
    proto::JobMirror back;
    REQUIRE(proto::decode(f, back) == proto::ProtoStatus::ok);
    CHECK(back.jobid == m.jobid);
    CHECK(back.program == m.program);
    CHECK(back.nprocs == 4);
    CHECK(back.comm_mode == proto::CommMode::rebuild);
    CHECK(back.msg_mode == proto::MsgMode::cont);
    proto::Frame bad = f;
    bad.payload.back() = 9;  // no such message mode
    CHECK(proto::decode(bad, back) == proto::ProtoStatus::malformed);
    proto::JobMirror empty = m;
    empty.jobid.clear();
    proto::FrameDecoder d2;
    const auto b2 = proto::encode(empty);
    d2.feed(b2.data(), b2.size());
    REQUIRE(d2.next(f) == proto::ProtoStatus::ok);
    CHECK(proto::decode(f, back) == proto::ProtoStatus::malformed);
}
