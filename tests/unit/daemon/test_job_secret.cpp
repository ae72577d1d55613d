// The per-job secret: hex form and read_secret_line's edge cases (a launcher's stdin).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "ftmpi_proto/job_auth.h"

using namespace ftmpi::proto;

namespace {

const std::string kHex = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";

struct Pipe {
    int r = -1, w = -1;
    Pipe() {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        r = fds[0];
        w = fds[1];
    }
    ~Pipe() {
        if (r >= 0) close(r);
        if (w >= 0) close(w);
    }
    void put(const std::string& s) const { REQUIRE(write(w, s.data(), s.size()) == static_cast<ssize_t>(s.size())); }
    void close_writer() {
        close(w);
        w = -1;
    }
    std::string rest() const {  // what read_secret_line left in the pipe (writer must be closed)
        std::string out;
        char buf[256];
        ssize_t n;
        while ((n = read(r, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
        return out;
    }
};

}  // namespace

TEST_CASE("job secrets are random and round-trip through hex", "[job_auth]") {
    JobSecret a = make_job_secret(), b = make_job_secret();
    CHECK(a.key != b.key);
    CHECK(a.key != JobSecret{}.key);
    std::string hex = secret_to_hex(a);
    CHECK(hex.size() == 64);
    CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
    JobSecret back;
    REQUIRE(secret_from_hex(hex, back));
    CHECK(back.key == a.key);
    REQUIRE(secret_from_hex(kHex, back));  // upper case accepted
    CHECK(back.key[0] == 0x00);
    CHECK(back.key[31] == 0xff);
}

TEST_CASE("secret_from_hex accepts exactly 64 hex digits and leaves out alone otherwise", "[job_auth]") {
    JobSecret out = make_job_secret();
    const auto before = out.key;
    CHECK_FALSE(secret_from_hex("", out));
    CHECK_FALSE(secret_from_hex(kHex.substr(1), out));
    CHECK_FALSE(secret_from_hex(kHex + "0", out));
    CHECK_FALSE(secret_from_hex(kHex.substr(0, 63) + "g", out));
    CHECK_FALSE(secret_from_hex(" " + kHex.substr(1), out));
    CHECK_FALSE(secret_from_hex(kHex.substr(0, 32) + ":" + kHex.substr(33), out));
    CHECK(out.key == before);
}

TEST_CASE("read_secret_line takes one line and leaves the rest of stdin unread", "[job_auth]") {
    Pipe p;
    p.put(kHex + "\nhello rank 0\n");
    p.close_writer();
    JobSecret s;
    std::string why;
    REQUIRE(read_secret_line(p.r, 1000, s, why) == ProtoStatus::ok);
    JobSecret want;
    REQUIRE(secret_from_hex(kHex, want));
    CHECK(s.key == want.key);
    CHECK(p.rest() == "hello rank 0\n");
}

TEST_CASE("read_secret_line assembles a line written in pieces", "[job_auth]") {
    Pipe p;
    std::thread writer([&] {
        for (std::size_t i = 0; i < kHex.size(); i += 16) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            p.put(kHex.substr(i, 16));
        }
        p.put("\n");
    });
    JobSecret s;
    std::string why;
    ProtoStatus st = read_secret_line(p.r, 5000, s, why);
    writer.join();
    CHECK(st == ProtoStatus::ok);
}

TEST_CASE("read_secret_line refuses bad lines without reading past the bad byte", "[job_auth]") {
    struct Case {
        std::string input;
        ProtoStatus want;
        std::string left;  // bytes it must not have consumed
    };
    const Case cases[] = {
        {kHex.substr(0, 63) + "\nREST", ProtoStatus::malformed, "REST"},   // too short
        {kHex + "0\nREST", ProtoStatus::malformed, "\nREST"},               // too long
        {kHex + "\r\nREST", ProtoStatus::malformed, "\nREST"},              // CRLF
        {"x" + kHex + "\n", ProtoStatus::malformed, kHex + "\n"},          // garbage at once
        {"\n" + kHex + "\n", ProtoStatus::malformed, kHex + "\n"},         // empty line
        {kHex.substr(0, 10), ProtoStatus::closed, ""},                     // EOF mid-line
        {"", ProtoStatus::closed, ""},                                     // EOF at once
    };
    for (const auto& c : cases) {
        Pipe p;
        if (!c.input.empty()) p.put(c.input);
        p.close_writer();
        JobSecret s;
        const auto before = s.key;
        std::string why;
        CHECK(read_secret_line(p.r, 1000, s, why) == c.want);
        CHECK_FALSE(why.empty());
        CHECK(why.find(kHex.substr(0, 10)) == std::string::npos);  // the secret is never echoed
        CHECK(s.key == before);
        CHECK(p.rest() == c.left);
    }
}

TEST_CASE("read_secret_line gives up after its timeout on a silent stdin", "[job_auth]") {
    Pipe p;
    p.put(kHex.substr(0, 20));  // part of a line, then nothing more; the writer stays open
    JobSecret s;
    std::string why;
    auto t0 = std::chrono::steady_clock::now();
    CHECK(read_secret_line(p.r, 150, s, why) == ProtoStatus::timed_out);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    CHECK(ms >= 140);
    CHECK(ms < 2000);
    CHECK(why.find("150 ms") != std::string::npos);
}

TEST_CASE("read_secret_line on a bad descriptor is an I/O error", "[job_auth]") {
    JobSecret s;
    std::string why;
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);  // readable by poll, read() fails: EBADF
    REQUIRE(fd >= 0);
    CHECK(read_secret_line(fd, 500, s, why) == ProtoStatus::io_error);
    close(fd);
}
