// Hot spares across hosts, mpirun's decisions (tools/mpirun/spare_hub.h) and their message
// (spare_indices, host_messages.h): each spoke is one end of a socketpair, so the test reads
// exactly what each daemon would be told.
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/host_messages.h"
#include "spare_hub.h"

using namespace ftmpi::proto;
using ftmpi::mpirun::SpareHub;
using ftmpi::mpirun::Spoke;

namespace {

struct Hosts {
    std::vector<Spoke> spokes;
    std::vector<int> far;  // the daemons' ends
    // Spoke k serves host `host_of_spoke[k]` (mpirun's own host comes last among the spokes).
    explicit Hosts(std::uint32_t n, std::vector<std::uint32_t> host_of_spoke = {}) {
        for (std::uint32_t i = 0; i < n; ++i) {
            int sv[2];
            REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
            Spoke s;
            s.fd = sv[0];
            s.host = i < host_of_spoke.size() ? host_of_spoke[i] : i;
            spokes.push_back(s);
            far.push_back(sv[1]);
        }
    }
    ~Hosts() {
        for (const Spoke& s : spokes) close(s.fd);
        for (int fd : far) close(fd);
    }
    // Every spare_indices host i was sent since the last call, in order.
    std::vector<SpareIndices> told(std::size_t i) {
        std::vector<SpareIndices> out;
        FrameDecoder dec;
        char buf[4096];
        ssize_t n;
        while ((n = read(far[i], buf, sizeof buf)) > 0) dec.feed(buf, static_cast<std::size_t>(n));
        Frame f;
        while (dec.next(f) == ProtoStatus::ok) {
            SpareIndices m;
            REQUIRE(decode(f, m) == ProtoStatus::ok);
            out.push_back(m);
        }
        return out;
    }
    std::vector<std::uint32_t> counts() const {
        std::vector<std::uint32_t> c;
        for (const Spoke& s : spokes) c.push_back(s.spares);
        return c;
    }
};

using V = std::vector<std::uint32_t>;

}  // namespace

TEST_CASE("spares: round robin over the hosts on the indices after the ranks", "[spares]") {
    Hosts h(3);
    SpareHub hub;
    hub.start(h.spokes, 4, 6);
    CHECK(h.counts() == V{2, 1, 1});
    auto t0 = h.told(0);
    REQUIRE(t0.size() == 1);
    CHECK(t0[0].indices == V{6, 9});
    CHECK(t0[0].delay_ms == 0);
    CHECK(h.told(1).at(0).indices == V{7});
    CHECK(h.told(2).at(0).indices == V{8});
}

TEST_CASE("spares: a repair takes the spare on its index; the top-up goes to the fewest", "[spares]") {
    Hosts h(3);
    SpareHub hub;
    hub.start(h.spokes, 2, 6);  // 6 on host 0, 7 on host 1
    (void)h.told(0), (void)h.told(1);
    CHECK(hub.claim(h.spokes, 6, 1) == V{0});
    CHECK(h.counts() == V{0, 1, 0});
    hub.top_up(h.spokes, SpareHub::kTopUpDelayMs);
    // Hosts 0 and 2 have none; the round robin goes on after host 1: host 2.
    auto t2 = h.told(2);
    REQUIRE(t2.size() == 1);
    CHECK(t2[0].indices == V{8});
    CHECK(t2[0].delay_ms == SpareHub::kTopUpDelayMs);
    CHECK(h.counts() == V{0, 1, 1});
    // Two at once (a lost host's ranks): both spares, on two hosts.
    CHECK(hub.claim(h.spokes, 7, 2) == V{1, 2});
    hub.top_up(h.spokes, 0);
    CHECK(h.counts() == V{1, 1, 0});  // round robin from after host 2: hosts 0, then 1
    CHECK(h.told(0).at(0).indices == V{9});
    CHECK(h.told(1).at(0).indices == V{10});
    CHECK(h.told(2).empty());
}

TEST_CASE("spares: round robin follows the hosts, not the order of the spokes", "[spares]") {
    Hosts h(3, {1, 2, 0});  // as mpirun has them: the remote hosts, then its own
    SpareHub hub;
    hub.start(h.spokes, 2, 6);
    CHECK(h.told(2).at(0).indices == V{6});  // host 0
    CHECK(h.told(0).at(0).indices == V{7});  // host 1
    CHECK(hub.claim(h.spokes, 6, 1) == V{0});
    hub.top_up(h.spokes, 0);
    CHECK(h.told(1).at(0).indices == V{8});  // host 2: next after host 1, and it has none
}

TEST_CASE("spares: a lost host's indices move to live hosts; no spare there is claimed", "[spares]") {
    Hosts h(3);
    SpareHub hub;
    hub.start(h.spokes, 2, 6);
    (void)h.told(0), (void)h.told(1);
    h.spokes[1].open = false;
    h.spokes[1].lost = true;
    hub.host_lost(h.spokes, 1);
    auto t2 = h.told(2);  // the emptiest live host after the cursor
    REQUIRE(t2.size() == 1);
    CHECK(t2[0].indices == V{7});
    CHECK(t2[0].delay_ms == 0);
    CHECK(h.counts() == V{1, 0, 1});
    // A host that dies between the move and the repair: its index gets no spare (kNoHost).
    h.spokes[2].open = false;
    CHECK(hub.claim(h.spokes, 6, 3) == V{0, SpareHub::kNoHost, SpareHub::kNoHost});
    hub.top_up(h.spokes, 0);
    CHECK(h.counts() == V{2, 0, 0});
    CHECK(h.told(0).at(0).indices == V{9, 10});
}

TEST_CASE("spares: indices skipped by an interrupted repair retire; none when no host lives", "[spares]") {
    Hosts h(2);
    SpareHub hub;
    hub.start(h.spokes, 2, 4);  // 4 on host 0, 5 on host 1
    CHECK(hub.claim(h.spokes, 6, 1) == V{SpareHub::kNoHost});  // 4 and 5 were skipped
    CHECK(hub.table().empty());
    for (Spoke& s : h.spokes) s.open = false;
    hub.top_up(h.spokes, 0);
    CHECK(hub.table().empty());
    CHECK(h.counts() == V{0, 0});
}

TEST_CASE("spare_indices round-trips; unsorted, repeated, too many or too late ones are refused", "[messages]") {
    SpareIndices m;
    m.delay_ms = 100;
    m.indices = {6, 9};
    FrameDecoder dec;
    auto bytes = encode(m);
    dec.feed(bytes.data(), bytes.size());
    Frame f;
    REQUIRE(dec.next(f) == ProtoStatus::ok);
    SpareIndices back;
    REQUIRE(decode(f, back) == ProtoStatus::ok);
    CHECK((back.delay_ms == 100 && back.indices == m.indices));
    auto refused = [](const SpareIndices& bad) {
        FrameDecoder d;
        auto b = encode(bad);
        d.feed(b.data(), b.size());
        Frame g;
        REQUIRE(d.next(g) == ProtoStatus::ok);
        SpareIndices out;
        return decode(g, out) == ProtoStatus::malformed;
    };
    SpareIndices bad = m;
    bad.indices = {9, 6};
    CHECK(refused(bad));
    bad.indices = {6, 6};
    CHECK(refused(bad));
    bad.indices = {};
    CHECK(refused(bad));
    bad.indices = {65536};
    CHECK(refused(bad));
    bad = m;
    bad.delay_ms = 60001;
    CHECK(refused(bad));
}
