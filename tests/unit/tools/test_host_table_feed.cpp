// mpirun's host table for the tools (tools/mpirun/host_table_feed.h): what each row says, and
// when the table is sent to the local daemon.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/host_table.h"
#include "ftmpi_proto/unix_socket.h"
#include "host_table_feed.h"

using namespace ftmpi;

namespace {

std::vector<mpirun::Spoke> three_hosts() {
    std::vector<mpirun::Spoke> spokes(3);
    // Spokes come in link order (remote ones first, mpirun's own host last): rows in host order.
    const std::uint32_t host[] = {1, 2, 0};
    const char* name[] = {"n2", "n3", "n1"};
    for (std::size_t i = 0; i < 3; ++i) {
        spokes[i].host = host[i];
        spokes[i].host_name = name[i];
        spokes[i].daemon_pid = 100 + static_cast<int>(host[i]);
        spokes[i].remote = host[i] != 0;
        spokes[i].last_heard_ms = spokes[i].remote ? 5000 + host[i] : 0;
    }
    return spokes;
}

}  // namespace

TEST_CASE("one row per daemon in host order: state, pid, ranks (replacements by the rank they took), heard") {
    auto spokes = three_hosts();
    spokes[1].lost = true;  // n3
    // Processes 0-5 round-robin; 6 and 7 replace ranks 2 and 5 (n3's) on n1 and n2; 8 is an
    // index gap of an interrupted rebuild and runs nowhere.
    const std::vector<std::uint32_t> host_of = {0, 1, 2, 0, 1, 2, 0, 1, 0xffffffffu};
    const std::vector<std::uint32_t> world = {0, 1, 2, 3, 4, 5, 2, 5, 8};
    const proto::HostTableUpdate t = mpirun::HostTableFeed::build(spokes, host_of, world);
    REQUIRE(t.hosts.size() == 3);
    CHECK(t.hosts[0].name == "n1");
    CHECK(t.hosts[0].state == proto::HostStateV::ok);
    CHECK(t.hosts[0].daemon_pid == 100);
    CHECK(t.hosts[0].ranks == std::vector<std::uint32_t>{0, 3, 2});
    CHECK(t.hosts[0].last_heard_ms == 0);  // mpirun's own host: not watched
    CHECK(t.hosts[1].name == "n2");
    CHECK(t.hosts[1].ranks == std::vector<std::uint32_t>{1, 4, 5});
    CHECK(t.hosts[1].last_heard_ms == 5001);
    CHECK(t.hosts[2].name == "n3");
    CHECK(t.hosts[2].state == proto::HostStateV::failed);
    CHECK(t.hosts[2].ranks == std::vector<std::uint32_t>{2, 5});
    CHECK(t.hosts[2].daemon_pid == 102);
}

TEST_CASE("sent at once, after a change, and again only when the refresh period passed") {
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) == 0);
    mpirun::HostTableFeed feed;
    CHECK_FALSE(feed.next_deadline().has_value());  // no sink: nothing to do
    feed.set_sink(sv[0]);
    const auto spokes = three_hosts();
    const std::vector<std::uint32_t> host_of = {0, 1, 2};
    const std::vector<std::uint32_t> world = {0, 1, 2};
    auto frames = [&] {
        std::uint8_t buf[65536];
        ssize_t n = read(sv[1], buf, sizeof buf);
        if (n <= 0) return 0;
        proto::FrameDecoder dec;
        dec.feed(buf, static_cast<std::size_t>(n));
        int count = 0;
        proto::Frame f;
        while (dec.next(f) == proto::ProtoStatus::ok) {
            proto::HostTableUpdate t;
            CHECK(proto::decode(f, t) == proto::ProtoStatus::ok);
            CHECK(t.hosts.size() == 3);
            ++count;
        }
        return count;
    };
    const auto t0 = mpirun::HostTableFeed::Clock::now();
    feed.tick(spokes, host_of, world, t0);
    CHECK(frames() == 1);
    feed.tick(spokes, host_of, world, t0 + std::chrono::milliseconds(10));
    CHECK(frames() == 0);
    CHECK(*feed.next_deadline() == t0 + mpirun::HostTableFeed::kRefresh);
    feed.changed();
    feed.tick(spokes, host_of, world, t0 + std::chrono::milliseconds(20));
    CHECK(frames() == 1);
    feed.tick(spokes, host_of, world, t0 + std::chrono::milliseconds(20) + mpirun::HostTableFeed::kRefresh);
    CHECK(frames() == 1);
    close(sv[1]);  // the daemon is gone: the feed stops
    feed.changed();
    feed.tick(spokes, host_of, world, t0 + std::chrono::seconds(5));
    CHECK_FALSE(feed.active());
    close(sv[0]);
}
