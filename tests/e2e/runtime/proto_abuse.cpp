// Throws malformed, oversized, truncated and unauthenticated traffic at a running ftmpid and
// checks that the daemon drops each such connection. The driver then checks that the daemon is
// still alive and still runs jobs. Usage: proto_abuse <socket path>
//                                         proto_abuse --pmix <IPv4 address> <port>
//                                         proto_abuse --hold <socket path> <seconds>
// The second form does the same to the daemon's PMIx listener (loopback TCP): silent, half and
// lying connect-acks, all at once, each of which must be closed by the daemon.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ftmpi_proto/auth_token.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/unix_socket.h"
#include "ftmpi_proto/wire.h"

using namespace ftmpi::proto;

namespace {

int g_failures = 0;

std::vector<std::uint8_t> header(std::uint32_t magic, std::uint8_t version, std::uint16_t type, std::uint32_t len) {
    WireWriter w;
    w.u32(magic);
    w.u8(version);
    w.u8(0);
    w.u16(type);
    w.u32(len);
    return w.bytes();
}

// True if the daemon closes the connection within 3 s (anything it sends first is skipped).
bool closed_by_daemon(int fd) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) return true;
    }
    return false;
}

void expect_drop(const std::string& socket, const char* name, const std::vector<std::uint8_t>& bytes,
                 bool half_close = false) {
    int fd = -1;
    if (unix_connect(socket, fd) != ProtoStatus::ok) {
        std::printf("FAIL %s: cannot connect\n", name);
        ++g_failures;
        return;
    }
    (void)write_all(fd, bytes);
    if (half_close) shutdown(fd, SHUT_WR);
    bool dropped = closed_by_daemon(fd);
    std::printf("%s %s\n", dropped ? "ok  " : "FAIL", name);
    if (!dropped) ++g_failures;
    close(fd);
}

std::vector<std::uint8_t> concat(std::vector<std::uint8_t> a, const std::vector<std::uint8_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// PMIx 4.2's connect-ack: int32 index, uint32 tag, size_t length (host order), then the body.
std::vector<std::uint8_t> pmix_header(std::uint64_t body_len) {
    std::vector<std::uint8_t> h(16, 0);
    for (int i = 0; i < 8; ++i) h[8 + i] = static_cast<std::uint8_t>(body_len >> (8 * i));
    return h;
}

int pmix_abuse(const char* addr, int port) {
    struct Case {
        const char* name;
        std::vector<std::uint8_t> bytes;
        int fd = -1;
        bool closed = false;
    };
    const std::string http = "GET / HTTP/1.0\r\n\r\n";
    std::vector<std::uint8_t> noise(64);
    for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 11);
    std::vector<Case> cases = {
        {"silent connection", {}},
        {"half a header", {0, 0, 0, 16}},
        {"length beyond any credential", pmix_header(1ull << 40)},
        {"body shorter than announced", concat(pmix_header(200), std::vector<std::uint8_t>(20, 7))},
        {"http request", std::vector<std::uint8_t>(http.begin(), http.end())},
        {"complete connect-ack of noise", concat(pmix_header(noise.size()), noise)},
    };
    sockaddr_in sa {};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<std::uint16_t>(port));
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) return 2;
    for (Case& c : cases) {  // all at once: one slow peer must not hold up the others for ever
        c.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c.fd < 0 || connect(c.fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
            std::printf("FAIL %s: cannot connect\n", c.name);
            return 1;
        }
        if (!c.bytes.empty()) (void)write_all(c.fd, c.bytes);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::size_t open = cases.size();
    while (open > 0 && std::chrono::steady_clock::now() < deadline) {
        std::vector<pollfd> fds;
        for (Case& c : cases)
            if (!c.closed) fds.push_back({c.fd, POLLIN, 0});
        if (poll(fds.data(), fds.size(), 200) <= 0) continue;
        for (Case& c : cases) {
            if (c.closed) continue;
            pollfd p{c.fd, POLLIN, 0};
            if (poll(&p, 1, 0) <= 0) continue;
            char buf[256];
            if (read(c.fd, buf, sizeof buf) <= 0) {
                c.closed = true;
                --open;
            }
        }
    }
    for (Case& c : cases) {
        std::printf("%s pmix: %s\n", c.closed ? "ok  " : "FAIL", c.name);
        if (!c.closed) ++g_failures;
        close(c.fd);
    }
    std::printf("%d failure(s)\n", g_failures);
    return g_failures == 0 ? 0 : 1;
}

// An authenticated launcher-kind connection that never launches anything and never leaves:
// exit 0 when the daemon closes it within `seconds`, 1 otherwise.
int hold(const std::string& socket, int seconds) {
    std::string token, why;
    int fd = -1;
    if (token_read(token_path_for_socket(socket), token, why) != ProtoStatus::ok ||
        unix_connect(socket, fd) != ProtoStatus::ok) {
        std::fprintf(stderr, "hold: cannot connect: %s\n", why.c_str());
        return 2;
    }
    Hello hello;
    hello.token = token;
    (void)write_all(fd, encode(hello));
    std::printf("holding\n");
    std::fflush(stdout);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;
        if (read(fd, buf, sizeof buf) <= 0) {
            std::printf("closed by the daemon\n");
            return 0;
        }
    }
    std::printf("still open after %d s\n", seconds);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--hold") return hold(argv[2], std::atoi(argv[3]));
    if (argc == 4 && std::string(argv[1]) == "--pmix") return pmix_abuse(argv[2], std::atoi(argv[3]));
    if (argc != 2) {
        std::fprintf(stderr, "usage: proto_abuse <socket> | proto_abuse --pmix <address> <port>\n");
        return 2;
    }
    const std::string socket = argv[1];
    std::string token, why;
    if (token_read(token_path_for_socket(socket), token, why) != ProtoStatus::ok) {
        std::fprintf(stderr, "%s\n", why.c_str());
        return 2;
    }
    const std::string http = "GET / HTTP/1.0\r\n\r\n";
    expect_drop(socket, "garbage", std::vector<std::uint8_t>(http.begin(), http.end()));
    expect_drop(socket, "oversized length", header(kFrameMagic, kProtocolVersion, 1, 0xFFFFFFFFu));
    expect_drop(socket, "wrong version", header(kFrameMagic, 99, 1, 0));
    expect_drop(socket, "truncated frame", concat(header(kFrameMagic, kProtocolVersion, 1, 100), {1, 2, 3}), true);

    LaunchJob launch;
    launch.argv = {"/bin/true"};
    launch.nprocs = 1;
    expect_drop(socket, "launch without hello", encode(launch));

    Hello bad;
    bad.token = std::string(token.size(), 'x');
    expect_drop(socket, "wrong token", encode(bad));

    // A hello whose string length points far past the payload.
    WireWriter lying;
    lying.u32(kProtocolVersion);
    lying.u8(0);
    lying.u32(0x7fffffffu);
    expect_drop(socket, "hello with lying length", frame_encode(static_cast<std::uint16_t>(MsgType::hello), lying.bytes()));

    // Authenticated, then an unknown type (must be skipped) and a launch whose list count lies.
    Hello good;
    good.token = token;
    WireWriter bogus_launch;
    bogus_launch.u32(0x40000000u);  // argv count no payload could hold
    auto authed_garbage = concat(encode(good), frame_encode(0x7777, {1, 2, 3}));
    authed_garbage = concat(authed_garbage, frame_encode(static_cast<std::uint16_t>(MsgType::launch_job), bogus_launch.bytes()));
    expect_drop(socket, "authenticated malformed launch", authed_garbage);

    // Random bytes after a valid hello break framing.
    std::vector<std::uint8_t> noise(4096);
    for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
    expect_drop(socket, "authenticated noise", concat(encode(good), noise));

    std::printf("%d failure(s)\n", g_failures);
    return g_failures == 0 ? 0 : 1;
}
