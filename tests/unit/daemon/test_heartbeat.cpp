// HeartbeatClock with a fake clock, its configuration rules, and the host-failure messages.
#include <catch2/catch.hpp>

#include "ftmpi_proto/heartbeat.h"
#include "ftmpi_proto/host_messages.h"
#include "ftmpi_proto/wire.h"

using namespace ftmpi::proto;
using std::chrono::milliseconds;

namespace {
const HeartbeatClock::TimePoint t0{};  // the fake clock's epoch
HeartbeatClock::TimePoint at(long ms) { return t0 + milliseconds(ms); }

Frame to_frame(const std::vector<std::uint8_t>& bytes) {
    FrameDecoder dec;
    dec.feed(bytes.data(), bytes.size());
    Frame f;
    REQUIRE(dec.next(f) == ProtoStatus::ok);
    return f;
}
}  // namespace

TEST_CASE("heartbeat: sends every period, expires only after the timeout of silence", "[heartbeat]") {
    HeartbeatClock c({milliseconds(100), milliseconds(1000)}, t0);
    CHECK_FALSE(c.send_due(at(99)));
    CHECK(c.send_due(at(100)));
    c.sent(at(100));
    CHECK_FALSE(c.send_due(at(150)));
    CHECK(c.next_deadline() == at(200));
    // Silence up to the timeout is fine; one millisecond beyond it is not.
    CHECK_FALSE(c.expired(at(1000)));
    CHECK(c.expired(at(1001)));
    CHECK(c.silence(at(750)) == milliseconds(750));
}

TEST_CASE("heartbeat: anything heard restarts the silence", "[heartbeat]") {
    HeartbeatClock c({milliseconds(100), milliseconds(300)}, t0);
    for (long t = 250; t <= 2500; t += 250) {
        CHECK_FALSE(c.expired(at(t)));
        c.heard(at(t));  // a peer that answers every 250 ms (< timeout) is never lost
    }
    CHECK(c.silence(at(2600)) == milliseconds(100));
    CHECK_FALSE(c.expired(at(2800)));
    CHECK(c.expired(at(2801)));
}

TEST_CASE("heartbeat: the deadline is the earlier of the next send and the expiry", "[heartbeat]") {
    HeartbeatClock c({milliseconds(100), milliseconds(250)}, t0);
    c.sent(at(400));  // we kept talking, the peer did not
    CHECK(c.next_deadline() == at(251));
    c.heard(at(400));
    CHECK(c.next_deadline() == at(500));
}

TEST_CASE("heartbeat: our own stop is not the peer's silence", "[heartbeat]") {
    HeartbeatClock c({milliseconds(100), milliseconds(1000)}, t0);
    // The loop wakes every period; the peer last spoke at 300 ms.
    for (long t = 100; t <= 500; t += 100) c.looked(at(t));
    c.heard(at(300));
    // Then this process stops for 3 s (the machine paused): the first look after it does not
    // find the peer lost, which was stopped too; 2 periods of the gap count, as any wake.
    c.looked(at(3500));
    CHECK_FALSE(c.expired(at(3500)));
    CHECK(c.silence(at(3500)) == milliseconds(400));
    // The peer is still silent while we run: it is lost one timeout after its last word, the
    // gap aside.
    for (long t = 3600; t <= 4100; t += 100) {
        c.looked(at(t));
        CHECK_FALSE(c.expired(at(t)));
    }
    c.looked(at(4200));
    CHECK(c.expired(at(4200)));
}

TEST_CASE("heartbeat: wakes at the period's pace excuse nothing", "[heartbeat]") {
    HeartbeatClock c({milliseconds(100), milliseconds(1000)}, t0);
    // A loop that wakes every 200 ms (2 periods: late, but not stopped) and a silent peer.
    for (long t = 200; t <= 1000; t += 200) {
        c.looked(at(t));
        CHECK_FALSE(c.expired(at(t)));
    }
    c.looked(at(1200));
    CHECK(c.expired(at(1200)));
}

TEST_CASE("heartbeat: configuration limits", "[heartbeat]") {
    std::string why;
    CHECK(heartbeat_config_valid({milliseconds(100), milliseconds(1000)}, why));
    CHECK(heartbeat_config_valid({milliseconds(1), milliseconds(2)}, why));
    CHECK_FALSE(heartbeat_config_valid({milliseconds(0), milliseconds(1000)}, why));
    CHECK_FALSE(heartbeat_config_valid({milliseconds(100), milliseconds(150)}, why));
    CHECK(why.find("twice") != std::string::npos);
    CHECK_FALSE(heartbeat_config_valid({milliseconds(100), milliseconds(4000 * 1000)}, why));
}

TEST_CASE("host messages round-trip", "[messages]") {
    Heartbeat h;
    h.seq = 0x1122334455667788ull;
    Heartbeat hout;
    REQUIRE(decode(to_frame(encode(h)), hout) == ProtoStatus::ok);
    CHECK(hout.seq == h.seq);

    HostFailed m;
    m.host_index = 2;
    m.hostname = "node-c";
    m.cause = HostLoss::heartbeat_timeout;
    m.ranks = {2, 5, 8, 11};
    HostFailed out;
    REQUIRE(decode(to_frame(encode(m)), out) == ProtoStatus::ok);
    CHECK(out.host_index == 2);
    CHECK(out.hostname == "node-c");
    CHECK(out.cause == HostLoss::heartbeat_timeout);
    CHECK(out.ranks == m.ranks);
    CHECK(decode(to_frame(encode(m)), hout) == ProtoStatus::wrong_type);
}

TEST_CASE("host_failed: hostile payloads are refused", "[messages]") {
    auto payload = [](std::uint8_t cause, std::vector<std::uint32_t> ranks, std::uint32_t claimed) {
        WireWriter w;
        w.u32(1);
        w.str("h");
        w.u8(cause);
        w.u32(claimed);
        for (std::uint32_t r : ranks) w.u32(r);
        Frame f;
        f.type = kHostFailedType;
        f.payload = w.bytes();
        return f;
    };
    HostFailed out;
    CHECK(decode(payload(0, {1, 2}, 2), out) == ProtoStatus::ok);
    CHECK(decode(payload(7, {1, 2}, 2), out) == ProtoStatus::malformed);       // unknown cause
    CHECK(decode(payload(0, {2, 1}, 2), out) == ProtoStatus::malformed);       // not sorted
    CHECK(decode(payload(0, {3, 3}, 2), out) == ProtoStatus::malformed);       // named twice
    CHECK(decode(payload(0, {1, 2}, 0xFFFFFFFF), out) == ProtoStatus::truncated);  // lying count
    CHECK(decode(payload(0, {1, 2}, 1), out) == ProtoStatus::malformed);       // bytes left over
}

// ---- mpirun's side (tools/mpirun/host_liveness.h, host_failure.h) ----
#include "host_failure.h"
#include "host_liveness.h"

TEST_CASE("mpirun: heartbeats to every watched link, a silent one reported once", "[heartbeat]") {
    using ftmpi::mpirun::HostLiveness;
    HostLiveness live({milliseconds(100), milliseconds(1000)});
    live.watch(1, t0);
    live.watch(2, t0);
    std::vector<std::size_t> sent_to;
    auto send = [&](std::size_t s, const std::vector<std::uint8_t>& frame) {
        Heartbeat hb;
        CHECK(decode(to_frame(frame), hb) == ProtoStatus::ok);
        sent_to.push_back(s);
        return true;
    };
    CHECK(live.tick(at(50), send).empty());
    CHECK(sent_to.empty());
    CHECK(live.next_deadline() == at(100));
    for (long t = 100; t <= 1000; t += 100) {
        live.heard(1, at(t));  // host 1 keeps talking, host 2 is silent
        CHECK(live.tick(at(t), send).empty());
    }
    CHECK(sent_to.size() == 20);  // both links, every period
    CHECK(live.silence(2, at(1000)) == milliseconds(1000));
    auto lost = live.tick(at(1001), send);
    REQUIRE(lost.size() == 1);
    CHECK(lost[0] == 2);
    // Host 1 goes silent later; mpirun's loop wakes every period (a wake seconds late would be
    // mpirun's own stop, which is excused: below).
    for (long t = 1100; t <= 2000; t += 100) CHECK(live.tick(at(t), send).empty());
    CHECK(live.tick(at(2001), send) == std::vector<std::size_t>{1});
    CHECK(live.tick(at(9000), send).empty());  // each reported once
    CHECK_FALSE(live.next_deadline().has_value());
}

TEST_CASE("mpirun: its own absence is not a daemon's silence (bytes waiting in the socket)", "[heartbeat]") {
    using ftmpi::mpirun::HostLiveness;
    HostLiveness live({milliseconds(100), milliseconds(1000)});
    live.watch(1, t0);
    auto send = [](std::size_t, const std::vector<std::uint8_t>&) { return true; };
    bool waiting = false;
    auto pending = [&](std::size_t s) { return s == 1 && waiting; };
    // mpirun's loop ran (every period) but did not read the link: the daemon's heartbeats of
    // that time wait unread. Silence past the timeout with bytes waiting is not a loss.
    for (long t = 100; t <= 1000; t += 100) CHECK(live.tick(at(t), send, pending).empty());
    waiting = true;
    CHECK(live.tick(at(1050), send, pending).empty());
    CHECK(live.next_deadline() <= at(1050));  // look again at once, after reading
    live.heard(1, at(1051));                   // the loop read them
    waiting = false;
    for (long t = 1100; t <= 2000; t += 100) CHECK(live.tick(at(t), send, pending).empty());
    CHECK(live.tick(at(2051), send, pending).empty());  // 1000 ms of silence is not yet more
    CHECK(live.tick(at(2052), send, pending) == std::vector<std::size_t>{1});  // then it is
}

TEST_CASE("mpirun: its own stop is not a daemon's silence (a wake seconds late)", "[heartbeat]") {
    using ftmpi::mpirun::HostLiveness;
    HostLiveness live({milliseconds(100), milliseconds(1000)});
    live.watch(1, t0);
    auto send = [](std::size_t, const std::vector<std::uint8_t>&) { return true; };
    CHECK(live.tick(at(100), send).empty());
    // The machine paused 3 s: mpirun and the daemon both stopped, nothing waits in the socket.
    CHECK(live.tick(at(3100), send).empty());
    // Still nothing while mpirun runs: lost one timeout after the daemon's silence began, the
    // gap beyond 2 periods (2800 ms) aside: at 1000 + 2800 ms.
    for (long t = 3200; t <= 3800; t += 100) CHECK(live.tick(at(t), send).empty());
    CHECK(live.tick(at(3801), send) == std::vector<std::size_t>{1});
}

TEST_CASE("mpirun: a lost host's line names the host, the cause, its ranks and what follows", "[heartbeat]") {
    using namespace ftmpi::mpirun;
    HostFailed m;
    m.hostname = "node-c";
    m.ranks = ranks_on_host(2, {0, 1, 2, 0, 1, 2});
    CHECK(m.ranks == std::vector<std::uint32_t>{2, 5});
    m.cause = HostLoss::heartbeat_timeout;
    CHECK(format_host_loss(m, CommMode::shrink, 1003) ==
          "ftmpi: host node-c lost (heartbeats stopped: nothing heard for 1003 ms): ranks 2, 5 failed; the job "
          "continues (SHRINK: survivors renumbered without them)\n");
    m.cause = HostLoss::link_closed;
    m.ranks = {4};
    CHECK(format_host_loss(m, CommMode::abort, 0) ==
          "ftmpi: host node-c lost (connection lost): rank 4 failed; ABORT mode: ending the job\n");
    // Launched in ABORT mode, left by the application (known to mpirun, or perhaps on the way).
    CHECK(format_host_loss(m, CommMode::abort, 0, AbortLeft::yes) ==
          "ftmpi: host node-c lost (connection lost): rank 4 failed; the job continues (ABORT left by the "
          "application: each communicator repairs by its own mode)\n");
    CHECK(format_host_loss(m, CommMode::abort, 0, AbortLeft::maybe) ==
          "ftmpi: host node-c lost (connection lost): rank 4 failed; ABORT mode: the job ends unless every "
          "surviving host's processes left it\n");
}

TEST_CASE("failures_trapped: round trip; a rank beyond a job's size is refused", "[heartbeat]") {
    FailuresTrapped m;
    m.rank = 7;
    Frame f = to_frame(encode(m));
    FailuresTrapped back;
    REQUIRE(decode(f, back) == ProtoStatus::ok);
    CHECK(back.rank == 7);
    HostFailed other;
    CHECK(decode(f, other) == ProtoStatus::wrong_type);
    m.rank = 65536;
    f = to_frame(encode(m));
    CHECK(decode(f, back) == ProtoStatus::malformed);
    f.payload.pop_back();  // truncated
    CHECK(decode(f, back) != ProtoStatus::ok);
}

// ---- REBUILD across hosts (tools/mpirun/respawn_hub.h, host_messages.h) ----
#include "respawn_hub.h"

TEST_CASE("respawn: least loaded surviving host first, ties to the lower index", "[respawn]") {
    using ftmpi::mpirun::RespawnHub;
    using ftmpi::mpirun::Spoke;
    std::vector<Spoke> spokes(3);
    for (std::uint32_t i = 0; i < 3; ++i) spokes[i].host = 2 - i;  // spoke order is not host order
    spokes[0].ranks_alive = 2;  // host 2
    spokes[1].ranks_alive = 2;  // host 1
    spokes[2].ranks_alive = 3;  // host 0
    CHECK(RespawnHub::place(spokes, 1) == std::vector<std::uint32_t>{1});
    CHECK(RespawnHub::place(spokes, 4) == std::vector<std::uint32_t>{1, 2, 0, 1});
    spokes[1].open = false;  // host 1 lost
    CHECK(RespawnHub::place(spokes, 2) == std::vector<std::uint32_t>{2, 0});
    spokes[0].ended = JobEnded{};
    spokes[2].open = false;
    CHECK(RespawnHub::place(spokes, 1).empty());  // nobody left
}

TEST_CASE("respawn and modex messages round-trip; impossible ones are refused", "[messages]") {
    SpawnRequest rq;
    rq.origin_host = 1;
    rq.request = 7;
    rq.requester = 3;
    rq.base = 6;
    rq.count = 2;
    rq.env = {"FTMPI_REPLACES=2,5", "FTMPI_REBUILD_PLAN=x"};
    SpawnRequest rq2;
    REQUIRE(decode(to_frame(encode(rq)), rq2) == ProtoStatus::ok);
    CHECK((rq2.origin_host == 1 && rq2.request == 7 && rq2.requester == 3 && rq2.base == 6 && rq2.count == 2));
    CHECK(rq2.env == rq.env);
    rq.count = 0;
    CHECK(decode(to_frame(encode(rq)), rq2) == ProtoStatus::malformed);
    rq.count = 65535;  // base + count beyond the job limit
    CHECK(decode(to_frame(encode(rq)), rq2) == ProtoStatus::malformed);

    SpawnPlace pl;
    pl.base = 6;
    pl.host_of_new = {0, 1};
    SpawnPlace pl2;
    REQUIRE(decode(to_frame(encode(pl)), pl2) == ProtoStatus::ok);
    CHECK(pl2.host_of_new == pl.host_of_new);
    pl.host_of_new.clear();
    CHECK(decode(to_frame(encode(pl)), pl2) == ProtoStatus::malformed);

    ModexReply mr;
    mr.origin_host = 2;
    mr.request = 9;
    mr.status = kModexNotFound;
    mr.data = std::string("\0\1\2", 3);
    ModexReply mr2;
    REQUIRE(decode(to_frame(encode(mr)), mr2) == ProtoStatus::ok);
    CHECK((mr2.origin_host == 2 && mr2.request == 9 && mr2.status == kModexNotFound && mr2.data == mr.data));
}
