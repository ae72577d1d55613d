// The per-job secret of a job on several hosts, and the handshake that proves it on a TCP link
// between mpirun and a remote ftmpid (issue 15 item 5, SPEC 5.2).
//
// mpirun makes the secret, writes it as one line of 64 hex digits into the launcher's standard
// input (never argv or the environment: both are visible in /proc to other users), and every
// connection a remote daemon opens back to mpirun runs authenticate() before any frame is read.
// Crypto is libsodium's (HMAC-SHA-256, randombytes, constant-time compare), none hand-written.
//
// The handshake (fixed-size messages, see job_auth_messages.h; C = connector, A = acceptor):
//   C -> A  hello   tag, version, role C, nonce_c
//   A -> C  hello   tag, version, role A, nonce_a, proof_a = HMAC(k, tag|A|nonce_a|nonce_c)
//   C -> A  proof_c = HMAC(k, tag|C|nonce_c|nonce_a)       (sent only after proof_a verified)
//   A -> C  accept  one byte                              (sent only after proof_c verified)
// Each proof binds the prover's role and both fresh nonces, so a reflected or replayed message
// never verifies; the secret itself never crosses the wire. What it does not give: secrecy or
// integrity of the frames after the handshake (an on-path attacker who can rewrite TCP could
// still hijack an authenticated stream; there is no session key).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

struct JobSecret {
    std::array<std::uint8_t, 32> key{};
    ~JobSecret();  // wipes the key (sodium_memzero) so it does not linger in freed memory
};

// 32 bytes from libsodium's CSPRNG. Aborts the process if libsodium cannot initialise: a job
// must never run with a predictable secret.
JobSecret make_job_secret();

// 64 lower-case hex digits, no newline.
std::string secret_to_hex(const JobSecret& secret);

// Exactly 64 hex digits (either case), nothing else; `out` is set only on success.
bool secret_from_hex(std::string_view hex, JobSecret& out);

// Reads exactly one line "<64 hex>\n" from fd (a launcher's stdin) within timeout_ms. Reads one
// byte at a time and stops at the newline, so whatever follows it in the stream stays unread.
// Errors: timed_out, closed (EOF before the newline), malformed (not 64 hex digits + '\n'; stops
// reading at the first wrong byte), io_error. `why` never contains the secret.
ProtoStatus read_secret_line(int fd, int timeout_ms, JobSecret& out, std::string& why);

enum class AuthRole : std::uint8_t { connector, acceptor };

// Mutual challenge-response on a connected stream socket (blocking or not): both sides prove the
// secret; poll-based, never longer than timeout_ms in total; reads exactly the handshake's bytes,
// so frames the peer sends right after it stay in the socket. ok only when both proved it;
// otherwise auth_failed (wrong secret, reflected or foreign message), timed_out, closed, io_error.
ProtoStatus authenticate(int fd, const JobSecret& secret, AuthRole role, int timeout_ms, std::string& why);

}  // namespace ftmpi::proto
