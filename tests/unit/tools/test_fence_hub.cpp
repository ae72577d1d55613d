// mpirun's fence hub (tools/mpirun/fence_hub.h): when a fence across hosts completes, what
// every daemon gets, and that a host without live participants is not waited for.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "fence_hub.h"
#include "ftmpi_proto/hub_messages.h"
#include "ftmpi_proto/unix_socket.h"

using namespace ftmpi;

namespace {

// Three daemons on the far ends of socket pairs; ranks 0..5 placed round-robin on 3 hosts.
struct Fixture {
    std::vector<mpirun::Spoke> spokes;
    std::vector<int> far;
    Fixture() {
        for (std::uint32_t h = 0; h < 3; ++h) {
            int sv[2];
            REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
            mpirun::Spoke s;
            s.fd = sv[0];
            s.host = h;
            s.host_name = "h" + std::to_string(h);
            s.ranks_alive = 2;
            spokes.push_back(s);
            far.push_back(sv[1]);
        }
    }
    ~Fixture() {
        for (auto& s : spokes) close(s.fd);
        for (int fd : far) close(fd);
    }
    // The result the daemon of host `h` received, if any (within 100 ms).
    bool result_of(std::size_t h, proto::FenceResult& out) {
        proto::FrameDecoder dec;
        proto::Frame f;
        if (proto::read_frame(far[h], dec, f, std::chrono::milliseconds(100)) != proto::ProtoStatus::ok) return false;
        return proto::decode(f, out) == proto::ProtoStatus::ok;
    }
};

proto::FenceContribution part(const std::string& blob, const std::string& sig = "*", std::uint32_t seq = 0) {
    return proto::FenceContribution{sig, seq, blob};
}

}  // namespace

TEST_CASE("a fence completes once every host contributed, with the blobs in host order", "[fence_hub]") {
    Fixture fx;
    mpirun::FenceHub hub({0, 1, 2, 0, 1, 2});
    hub.contribute(fx.spokes, 2, part("C"));
    hub.contribute(fx.spokes, 0, part("A"));
    CHECK(hub.pending() == 1);
    proto::FenceResult r;
    CHECK_FALSE(fx.result_of(0, r));
    hub.contribute(fx.spokes, 1, part("B"));
    CHECK(hub.pending() == 0);
    for (std::size_t h = 0; h < 3; ++h) {
        REQUIRE(fx.result_of(h, r));
        CHECK(r.data == "ABC");
        CHECK(r.signature == "*");
        CHECK_FALSE(r.partial);
    }
}

TEST_CASE("fences with different signatures or counts are kept apart", "[fence_hub]") {
    Fixture fx;
    mpirun::FenceHub hub({0, 1, 2, 0, 1, 2});
    for (std::size_t h = 0; h < 3; ++h) hub.contribute(fx.spokes, h, part("x", "*", 1));
    hub.contribute(fx.spokes, 0, part("y", "*", 0));
    CHECK(hub.pending() == 1);
    // "0,3": only host 0 has participants, so its part alone completes it.
    hub.contribute(fx.spokes, 0, part("z", "0,3", 0));
    CHECK(hub.pending() == 1);
}

TEST_CASE("a host whose participants all died is not waited for; the result is partial", "[fence_hub]") {
    Fixture fx;
    mpirun::FenceHub hub({0, 1, 2, 0, 1, 2});
    hub.contribute(fx.spokes, 0, part("A"));
    hub.contribute(fx.spokes, 1, part("B"));
    fx.spokes[2].ranks_alive = 0;
    hub.participants_changed(fx.spokes, true);
    CHECK(hub.pending() == 0);
    proto::FenceResult r;
    REQUIRE(fx.result_of(0, r));
    CHECK(r.data == "AB");
    CHECK(r.partial);
    CHECK_FALSE(fx.result_of(2, r));  // it never asked
}

TEST_CASE("a lost daemon is not waited for", "[fence_hub]") {
    Fixture fx;
    mpirun::FenceHub hub({0, 1, 2});
    hub.contribute(fx.spokes, 0, part("A"));
    fx.spokes[1].open = false;
    hub.participants_changed(fx.spokes, true);
    CHECK(hub.pending() == 1);  // host 2 is still alive and has not contributed
    hub.contribute(fx.spokes, 2, part("C"));
    CHECK(hub.pending() == 0);
}
