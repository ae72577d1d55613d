// The job handshake over a socketpair: success, wrong secrets, truncated, silent, garbage,
// reflected and replayed messages (a hand-driven hostile peer on the other end).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/job_auth.h"
#include "ftmpi_proto/job_auth_messages.h"
#include "ftmpi_proto/unix_socket.h"

using namespace ftmpi::proto;

namespace {

struct Link {
    int a = -1, b = -1;
    Link() {
        int fds[2];
        REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
        a = fds[0];
        b = fds[1];
    }
    ~Link() {
        if (a >= 0) close(a);
        if (b >= 0) close(b);
    }
};

struct Outcome {
    ProtoStatus st;
    std::string why;
};

std::future<Outcome> auth_async(int fd, const JobSecret& s, AuthRole role, int timeout_ms = 3000) {
    return std::async(std::launch::async, [fd, &s, role, timeout_ms] {
        Outcome o{ProtoStatus::ok, {}};
        o.st = authenticate(fd, s, role, timeout_ms, o.why);
        return o;
    });
}

std::vector<std::uint8_t> read_n(int fd, std::size_t n) {
    std::vector<std::uint8_t> v(n);
    std::size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, v.data() + got, n - got);
        REQUIRE(r > 0);
        got += static_cast<std::size_t>(r);
    }
    return v;
}

void write_bytes(int fd, const std::vector<std::uint8_t>& v) { REQUIRE(write_all(fd, v) == ProtoStatus::ok); }

long elapsed_ms(std::chrono::steady_clock::time_point t0) {
    return static_cast<long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace

TEST_CASE("both sides with the job secret authenticate, and the next frame is intact", "[job_auth]") {
    for (int i = 0; i < 20; ++i) {
        JobSecret s = make_job_secret();
        Link l;
        auto acc = std::async(std::launch::async, [&] {
            std::string why;
            ProtoStatus st = authenticate(l.b, s, AuthRole::acceptor, 3000, why);
            // A frame right behind the handshake: the connector must not have eaten any of it.
            if (st == ProtoStatus::ok) st = write_all(l.b, frame_encode(0x0300, {1, 2, 3}));
            return Outcome{st, why};
        });
        auto con = auth_async(l.a, s, AuthRole::connector);
        Outcome c = con.get(), a = acc.get();
        REQUIRE(c.st == ProtoStatus::ok);
        REQUIRE(a.st == ProtoStatus::ok);
        FrameDecoder dec;
        Frame f;
        REQUIRE(read_frame(l.a, dec, f, std::chrono::milliseconds(2000)) == ProtoStatus::ok);
        CHECK(f.type == 0x0300);
        CHECK(f.payload == std::vector<std::uint8_t>{1, 2, 3});
    }
}

TEST_CASE("a wrong secret on either side fails on both sides", "[job_auth]") {
    JobSecret right = make_job_secret(), wrong = make_job_secret();
    for (int wrong_side = 0; wrong_side < 2; ++wrong_side) {
        Link l;
        auto acc = auth_async(l.b, wrong_side == 0 ? wrong : right, AuthRole::acceptor);
        auto con = auth_async(l.a, wrong_side == 1 ? wrong : right, AuthRole::connector);
        Outcome c = con.get();
        // The connector checks the acceptor's proof first and stops; the acceptor then sees EOF.
        close(l.a);
        l.a = -1;
        Outcome a = acc.get();
        CHECK(c.st == ProtoStatus::auth_failed);
        CHECK(c.why.find("does not match the job secret") != std::string::npos);
        CHECK(a.st != ProtoStatus::ok);
        CHECK(secret_to_hex(right).find(c.why) == std::string::npos);
    }
}

TEST_CASE("a connector without the secret is refused by the acceptor's check", "[job_auth]") {
    // The attacker skips the acceptor's proof check and answers with a made-up proof.
    JobSecret s = make_job_secret(), attacker = make_job_secret();
    Link l;
    auto acc = auth_async(l.b, s, AuthRole::acceptor);
    auth::Hello hello;
    hello.nonce = auth::make_nonce();
    write_bytes(l.a, auth::encode_hello(hello));
    auto reply = read_n(l.a, auth::kHelloProofSize);
    auth::Hello theirs;
    REQUIRE(auth::parse_hello(reply.data(), reply.size(), AuthRole::acceptor, theirs) == ProtoStatus::ok);
    auto guess = auth::compute_proof(attacker, AuthRole::connector, hello.nonce, theirs.nonce);
    write_bytes(l.a, std::vector<std::uint8_t>(guess.begin(), guess.end()));
    Outcome a = acc.get();
    CHECK(a.st == ProtoStatus::auth_failed);
    CHECK(a.why.find("connector's proof does not match") != std::string::npos);
    close(l.b);  // what the acceptor's owner does with a failed link
    l.b = -1;
    std::uint8_t b = 0;
    CHECK(read(l.a, &b, 1) == 0);  // EOF: no acceptance byte was sent before it
}

TEST_CASE("reflected messages never verify", "[job_auth]") {
    JobSecret s = make_job_secret();
    SECTION("the acceptor's own proof sent back as the connector's") {
        Link l;
        auto acc = auth_async(l.b, s, AuthRole::acceptor);
        auth::Hello hello;
        hello.nonce = auth::make_nonce();
        write_bytes(l.a, auth::encode_hello(hello));
        auto reply = read_n(l.a, auth::kHelloProofSize);
        write_bytes(l.a, std::vector<std::uint8_t>(reply.end() - 32, reply.end()));
        CHECK(acc.get().st == ProtoStatus::auth_failed);
    }
    SECTION("the acceptor's nonce echoed back as the connector's: still the acceptor's role in the MAC") {
        Link l, l2;
        auto acc = auth_async(l.b, s, AuthRole::acceptor);
        // A first session gives the attacker an acceptor proof over a nonce of its choice ...
        auto acc2 = auth_async(l2.b, s, AuthRole::acceptor);
        auth::Hello h2;
        h2.nonce = auth::make_nonce();
        write_bytes(l2.a, auth::encode_hello(h2));
        auto r2 = read_n(l2.a, auth::kHelloProofSize);
        // ... which it then offers in a second session whose nonces it mirrors.
        auth::Hello hello;
        hello.nonce = auth::make_nonce();
        write_bytes(l.a, auth::encode_hello(hello));
        auto reply = read_n(l.a, auth::kHelloProofSize);
        write_bytes(l.a, std::vector<std::uint8_t>(r2.end() - 32, r2.end()));
        CHECK(acc.get().st == ProtoStatus::auth_failed);
        close(l2.a);
        l2.a = -1;
        CHECK(acc2.get().st != ProtoStatus::ok);
    }
    SECTION("the connector's hello bounced back to it as the acceptor's") {
        Link l;
        auto con = auth_async(l.a, s, AuthRole::connector);
        auto hello = read_n(l.b, auth::kHelloSize);
        hello.resize(auth::kHelloProofSize, 0);  // same tag, role byte still 'connector'
        write_bytes(l.b, hello);
        Outcome c = con.get();
        CHECK(c.st == ProtoStatus::auth_failed);
        CHECK(c.why.find("not an ftmpi job handshake") != std::string::npos);
    }
    SECTION("the connector's nonce echoed with the acceptor role byte") {
        Link l;
        auto con = auth_async(l.a, s, AuthRole::connector);
        auto hello = read_n(l.b, auth::kHelloSize);
        hello[9] = static_cast<std::uint8_t>(AuthRole::acceptor);
        hello.resize(auth::kHelloProofSize, 0x55);
        write_bytes(l.b, hello);
        CHECK(con.get().st == ProtoStatus::auth_failed);
    }
}

TEST_CASE("a recorded session replayed to a new acceptor fails (fresh nonces)", "[job_auth]") {
    JobSecret s = make_job_secret();
    std::vector<std::uint8_t> hello, proof;
    {
        // Record what an honest connector sends by playing acceptor by hand.
        Link l;
        auto con = auth_async(l.a, s, AuthRole::connector);
        hello = read_n(l.b, auth::kHelloSize);
        auth::Hello c;
        REQUIRE(auth::parse_hello(hello.data(), hello.size(), AuthRole::connector, c) == ProtoStatus::ok);
        auth::Hello mine;
        mine.role = AuthRole::acceptor;
        mine.nonce = auth::make_nonce();
        mine.proof = auth::compute_proof(s, AuthRole::acceptor, mine.nonce, c.nonce);
        write_bytes(l.b, auth::encode_hello(mine));
        proof = read_n(l.b, auth::kProofSize);
        write_bytes(l.b, {auth::kAccept});
        REQUIRE(con.get().st == ProtoStatus::ok);
    }
    Link l;
    auto acc = auth_async(l.b, s, AuthRole::acceptor);
    write_bytes(l.a, hello);
    (void)read_n(l.a, auth::kHelloProofSize);
    write_bytes(l.a, proof);
    CHECK(acc.get().st == ProtoStatus::auth_failed);
}

TEST_CASE("truncated, silent, garbage and frame-speaking peers fail cleanly and in time", "[job_auth]") {
    JobSecret s = make_job_secret();
    SECTION("truncated hello, then close") {
        Link l;
        auto acc = auth_async(l.b, s, AuthRole::acceptor);
        write_bytes(l.a, std::vector<std::uint8_t>(auth::kTag.begin(), auth::kTag.end()));
        close(l.a);
        l.a = -1;
        CHECK(acc.get().st == ProtoStatus::closed);
    }
    SECTION("truncated acceptor hello, then close") {
        Link l;
        auto con = auth_async(l.a, s, AuthRole::connector);
        (void)read_n(l.b, auth::kHelloSize);
        write_bytes(l.b, std::vector<std::uint8_t>(auth::kTag.begin(), auth::kTag.end()));
        close(l.b);
        l.b = -1;
        CHECK(con.get().st == ProtoStatus::closed);
    }
    SECTION("silent peer, both roles") {
        for (AuthRole role : {AuthRole::acceptor, AuthRole::connector}) {
            Link l;
            auto t0 = std::chrono::steady_clock::now();
            Outcome o = auth_async(l.a, s, role, 200).get();
            long ms = elapsed_ms(t0);
            CHECK(o.st == ProtoStatus::timed_out);
            CHECK(ms >= 190);
            CHECK(ms < 2000);
            CHECK(o.why.find("peer silent") != std::string::npos);
        }
    }
    SECTION("a peer that stalls after its hello is cut off at the same deadline") {
        Link l;
        auto t0 = std::chrono::steady_clock::now();
        auto acc = auth_async(l.b, s, AuthRole::acceptor, 300);
        auth::Hello hello;
        hello.nonce = auth::make_nonce();
        write_bytes(l.a, auth::encode_hello(hello));
        CHECK(acc.get().st == ProtoStatus::timed_out);
        CHECK(elapsed_ms(t0) < 2000);
    }
    SECTION("oversized garbage") {
        Link l;
        int flags = fcntl(l.a, F_GETFL);
        REQUIRE(fcntl(l.a, F_SETFL, flags | O_NONBLOCK) == 0);
        std::vector<std::uint8_t> junk(1 << 20, 0xEE);
        ssize_t sent = write(l.a, junk.data(), junk.size());  // as much as the socket takes
        REQUIRE(sent > 0);
        auto t0 = std::chrono::steady_clock::now();
        Outcome o = auth_async(l.b, s, AuthRole::acceptor).get();
        CHECK(o.st == ProtoStatus::auth_failed);
        CHECK(elapsed_ms(t0) < 1000);
    }
    SECTION("a peer that sends frames without a handshake") {
        Link l;
        write_bytes(l.a, frame_encode(0x0301, std::vector<std::uint8_t>(100, 7)));
        Outcome o = auth_async(l.b, s, AuthRole::acceptor).get();
        CHECK(o.st == ProtoStatus::auth_failed);
    }
    SECTION("an acceptor whose verdict is not an acceptance") {
        Link l;
        auto con = auth_async(l.a, s, AuthRole::connector);
        auto hello = read_n(l.b, auth::kHelloSize);
        auth::Hello c;
        REQUIRE(auth::parse_hello(hello.data(), hello.size(), AuthRole::connector, c) == ProtoStatus::ok);
        auth::Hello mine;
        mine.role = AuthRole::acceptor;
        mine.nonce = auth::make_nonce();
        mine.proof = auth::compute_proof(s, AuthRole::acceptor, mine.nonce, c.nonce);
        write_bytes(l.b, auth::encode_hello(mine));
        (void)read_n(l.b, auth::kProofSize);
        write_bytes(l.b, {0x00});
        CHECK(con.get().st == ProtoStatus::auth_failed);
    }
}

TEST_CASE("parse_hello refuses every malformed hello", "[job_auth]") {
    auth::Hello h;
    h.role = AuthRole::acceptor;
    h.nonce = auth::make_nonce();
    auto good = auth::encode_hello(h);
    auth::Hello out;
    REQUIRE(good.size() == auth::kHelloProofSize);
    REQUIRE(auth::parse_hello(good.data(), good.size(), AuthRole::acceptor, out) == ProtoStatus::ok);
    CHECK(out.nonce == h.nonce);
    CHECK(auth::parse_hello(good.data(), good.size() - 1, AuthRole::acceptor, out) == ProtoStatus::truncated);
    good.push_back(0);
    CHECK(auth::parse_hello(good.data(), good.size(), AuthRole::acceptor, out) == ProtoStatus::malformed);
    good.pop_back();
    auto bad = good;
    bad[0] ^= 1;
    CHECK(auth::parse_hello(bad.data(), bad.size(), AuthRole::acceptor, out) == ProtoStatus::auth_failed);
    bad = good;
    bad[8] = 2;  // version
    CHECK(auth::parse_hello(bad.data(), bad.size(), AuthRole::acceptor, out) == ProtoStatus::auth_failed);
    bad = good;
    bad[9] = 7;  // role byte out of range
    CHECK(auth::parse_hello(bad.data(), bad.size(), AuthRole::acceptor, out) == ProtoStatus::malformed);
    CHECK(auth::parse_hello(nullptr, 0, AuthRole::connector, out) == ProtoStatus::truncated);
}
