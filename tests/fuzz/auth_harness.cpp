// libFuzzer harness for the job handshake (job_auth.h): the hello parser, and authenticate()
// in both roles against a peer whose every byte is the fuzzer's. The peer's bytes are written
// into a socketpair whose sending side is then shut down, so authenticate() always meets the
// end of the stream instead of waiting out its timeout: a run that takes the timeout is a bug.
//
// Oracles: no crash or undefined behaviour; nothing the fuzzer writes may authenticate (it does
// not know the secret: ok from authenticate() aborts); a parsed hello has the expected role.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ftmpi_proto/job_auth.h"
#include "ftmpi_proto/job_auth_messages.h"

namespace {

using namespace ftmpi::proto;

[[noreturn]] void oracle_failed(const char* what) {
    std::fprintf(stderr, "fuzz oracle failed: %s\n", what);
    std::abort();
}

void run_role(AuthRole role, const std::uint8_t* data, std::size_t size) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return;
    // The socket buffer (>= 200 KiB) takes the whole input: fuzz inputs are a few KiB.
    std::size_t off = 0;
    while (off < size) {
        ssize_t w = send(fds[1], data + off, size - off, MSG_NOSIGNAL);
        if (w <= 0) break;
        off += static_cast<std::size_t>(w);
    }
    shutdown(fds[1], SHUT_WR);
    static const JobSecret secret = make_job_secret();
    std::string why;
    ProtoStatus st = authenticate(fds[0], secret, role, 2000, why);
    if (st == ProtoStatus::ok) oracle_failed("a peer without the secret authenticated");
    if (st == ProtoStatus::timed_out) oracle_failed("authenticate waited out its timeout on a closed stream");
    if (why.empty()) oracle_failed("a failure without a reason");
    close(fds[0]);
    close(fds[1]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    for (AuthRole role : {AuthRole::connector, AuthRole::acceptor}) {
        auth::Hello h;
        if (auth::parse_hello(data, size, role, h) == ProtoStatus::ok && h.role != role)
            oracle_failed("parse_hello accepted the wrong role");
    }
    run_role(AuthRole::acceptor, data, size);
    run_role(AuthRole::connector, data, size);
    return 0;
}
