// The mutual challenge-response of job_auth.h over a stream socket, bounded by one deadline.
#include "ftmpi_proto/job_auth.h"

#include <poll.h>
#include <sodium.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "ftmpi_proto/job_auth_messages.h"

namespace ftmpi::proto {

namespace {

using auth::Hello;
using auth::Nonce;
using auth::Proof;

std::int64_t now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Waits until fd is ready for `events` or the deadline passes.
ProtoStatus wait_ready(int fd, short events, std::int64_t deadline) {
    for (;;) {
        std::int64_t left = deadline - now_ms();
        if (left <= 0) return ProtoStatus::timed_out;
        pollfd p{fd, events, 0};
        int r = poll(&p, 1, static_cast<int>(left));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return ProtoStatus::io_error;
        if (r > 0) return ProtoStatus::ok;  // readable, writable, or an error/hang-up the call will see
    }
}

ProtoStatus send_all(int fd, const std::uint8_t* p, std::size_t n, std::int64_t deadline) {
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            p += w;
            n -= static_cast<std::size_t>(w);
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            ProtoStatus st = wait_ready(fd, POLLOUT, deadline);
            if (st != ProtoStatus::ok) return st;
            continue;
        }
        return errno == EPIPE || errno == ECONNRESET ? ProtoStatus::closed : ProtoStatus::io_error;
    }
    return ProtoStatus::ok;
}

// Exactly n bytes, never more: the peer's first frame may already sit behind the handshake.
ProtoStatus recv_exact(int fd, std::uint8_t* p, std::size_t n, std::int64_t deadline) {
    while (n > 0) {
        ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
        if (r > 0) {
            p += r;
            n -= static_cast<std::size_t>(r);
            continue;
        }
        if (r == 0) return ProtoStatus::closed;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            ProtoStatus st = wait_ready(fd, POLLIN, deadline);
            if (st != ProtoStatus::ok) return st;
            continue;
        }
        return errno == ECONNRESET ? ProtoStatus::closed : ProtoStatus::io_error;
    }
    return ProtoStatus::ok;
}

const char* role_name(AuthRole r) { return r == AuthRole::connector ? "connector" : "acceptor"; }

// Describes an I/O failure at one step; a closed or silent peer is as unproven as a wrong one.
ProtoStatus fail_io(ProtoStatus st, const char* step, int timeout_ms, std::string& why) {
    if (st == ProtoStatus::timed_out) {
        why = std::string("peer silent: no ") + step + " within " + std::to_string(timeout_ms) + " ms";
    } else if (st == ProtoStatus::closed) {
        why = std::string("peer closed the connection before ") + step;
    } else {
        why = std::string("socket error during ") + step + ": " + std::strerror(errno);
    }
    return st;
}

ProtoStatus run_connector(int fd, const JobSecret& secret, std::int64_t deadline, int timeout_ms, std::string& why) {
    Hello mine;
    mine.role = AuthRole::connector;
    mine.nonce = auth::make_nonce();
    auto out = auth::encode_hello(mine);
    if (ProtoStatus st = send_all(fd, out.data(), out.size(), deadline); st != ProtoStatus::ok)
        return fail_io(st, "sending our hello", timeout_ms, why);

    std::uint8_t in[auth::kHelloProofSize];
    if (ProtoStatus st = recv_exact(fd, in, sizeof in, deadline); st != ProtoStatus::ok)
        return fail_io(st, "the acceptor's hello", timeout_ms, why);
    Hello peer;
    if (ProtoStatus st = auth::parse_hello(in, sizeof in, AuthRole::acceptor, peer); st != ProtoStatus::ok) {
        why = std::string("the acceptor's hello is not an ftmpi job handshake (") + to_string(st) + ")";
        return ProtoStatus::auth_failed;
    }
    if (sodium_memcmp(peer.nonce.data(), mine.nonce.data(), mine.nonce.size()) == 0 ||
        !auth::verify_proof(secret, AuthRole::acceptor, peer.nonce, mine.nonce, peer.proof)) {
        why = "the acceptor's proof does not match the job secret";
        return ProtoStatus::auth_failed;
    }
    Proof proof = auth::compute_proof(secret, AuthRole::connector, mine.nonce, peer.nonce);
    if (ProtoStatus st = send_all(fd, proof.data(), proof.size(), deadline); st != ProtoStatus::ok)
        return fail_io(st, "sending our proof", timeout_ms, why);

    std::uint8_t verdict = 0;
    ProtoStatus st = recv_exact(fd, &verdict, 1, deadline);
    if (st == ProtoStatus::closed) {
        why = "the acceptor closed the connection after our proof: it refused the job secret";
        return ProtoStatus::auth_failed;
    }
    if (st != ProtoStatus::ok) return fail_io(st, "the acceptor's verdict", timeout_ms, why);
    if (verdict != auth::kAccept) {
        why = "the acceptor's verdict is not an acceptance";
        return ProtoStatus::auth_failed;
    }
    return ProtoStatus::ok;
}

ProtoStatus run_acceptor(int fd, const JobSecret& secret, std::int64_t deadline, int timeout_ms, std::string& why) {
    std::uint8_t in[auth::kHelloSize];
    if (ProtoStatus st = recv_exact(fd, in, sizeof in, deadline); st != ProtoStatus::ok)
        return fail_io(st, "the connector's hello", timeout_ms, why);
    Hello peer;
    if (ProtoStatus st = auth::parse_hello(in, sizeof in, AuthRole::connector, peer); st != ProtoStatus::ok) {
        why = std::string("the connector's hello is not an ftmpi job handshake (") + to_string(st) + ")";
        return ProtoStatus::auth_failed;
    }
    Hello mine;
    mine.role = AuthRole::acceptor;
    mine.nonce = auth::make_nonce();
    // Our proof reveals nothing usable to an unproven peer: it binds the acceptor role, which no
    // connector proof may carry, and our fresh nonce.
    mine.proof = auth::compute_proof(secret, AuthRole::acceptor, mine.nonce, peer.nonce);
    auto out = auth::encode_hello(mine);
    if (ProtoStatus st = send_all(fd, out.data(), out.size(), deadline); st != ProtoStatus::ok)
        return fail_io(st, "sending our hello", timeout_ms, why);

    Proof proof{};
    if (ProtoStatus st = recv_exact(fd, proof.data(), proof.size(), deadline); st != ProtoStatus::ok)
        return fail_io(st, "the connector's proof", timeout_ms, why);
    if (sodium_memcmp(peer.nonce.data(), mine.nonce.data(), mine.nonce.size()) == 0 ||
        !auth::verify_proof(secret, AuthRole::connector, peer.nonce, mine.nonce, proof)) {
        why = "the connector's proof does not match the job secret";
        return ProtoStatus::auth_failed;
    }
    const std::uint8_t verdict = auth::kAccept;
    if (ProtoStatus st = send_all(fd, &verdict, 1, deadline); st != ProtoStatus::ok)
        return fail_io(st, "sending our verdict", timeout_ms, why);
    return ProtoStatus::ok;
}

}  // namespace

ProtoStatus authenticate(int fd, const JobSecret& secret, AuthRole role, int timeout_ms, std::string& why) {
    auth::init_crypto();
    const std::int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    ProtoStatus st = role == AuthRole::connector ? run_connector(fd, secret, deadline, timeout_ms, why)
                                                 : run_acceptor(fd, secret, deadline, timeout_ms, why);
    if (st != ProtoStatus::ok) why = std::string("job authentication (") + role_name(role) + "): " + why;
    return st;
}

}  // namespace ftmpi::proto
