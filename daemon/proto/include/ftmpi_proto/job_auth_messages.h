// The handshake messages of job_auth.h and the proofs they carry, apart from the socket I/O so
// that unit tests and the fuzz harness (tests/fuzz) can drive the parser directly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ftmpi_proto/job_auth.h"
#include "ftmpi_proto/status.h"

namespace ftmpi::proto::auth {

using Nonce = std::array<std::uint8_t, 32>;
using Proof = std::array<std::uint8_t, 32>;  // HMAC-SHA-256

// "FTMPAUTH": differs from a frame's magic in its first byte, so a peer that skips the
// handshake and sends frames straight away fails at once instead of being half-parsed.
inline constexpr std::array<std::uint8_t, 8> kTag = {'F', 'T', 'M', 'P', 'A', 'U', 'T', 'H'};
inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::size_t kHelloSize = 8 + 1 + 1 + 32;         // tag, version, role, nonce
inline constexpr std::size_t kHelloProofSize = kHelloSize + 32;  // acceptor's hello + its proof
inline constexpr std::size_t kProofSize = 32;
inline constexpr std::uint8_t kAccept = 0xA5;  // the acceptor's last byte: "your proof verified"

struct Hello {
    AuthRole role = AuthRole::connector;
    Nonce nonce{};
    Proof proof{};  // only in the acceptor's hello
};

// sodium_init() once per process (thread-safe); aborts with a message if libsodium cannot start,
// since going on would mean predictable secrets and nonces.
void init_crypto();

// Fresh nonce from libsodium's CSPRNG.
Nonce make_nonce();

// HMAC(secret, "ftmpi-job-auth-v1" | role | own nonce | peer nonce).
Proof compute_proof(const JobSecret& secret, AuthRole prover, const Nonce& own, const Nonce& peer);
// Constant time; false unless `proof` is exactly what the prover with that role would send.
bool verify_proof(const JobSecret& secret, AuthRole prover, const Nonce& prover_nonce,
                  const Nonce& verifier_nonce, const Proof& proof);

// The connector's hello (kHelloSize bytes) or the acceptor's (kHelloProofSize, with its proof).
std::vector<std::uint8_t> encode_hello(const Hello& h);

// Parses exactly one hello of the size its sender's role implies; refuses a wrong tag, version
// or role byte, a role other than `expected` (a reflected hello), or a wrong size. `out` is set
// only on ok; otherwise auth_failed (not ours), malformed (bad role byte) or truncated.
ProtoStatus parse_hello(const std::uint8_t* data, std::size_t n, AuthRole expected, Hello& out);

}  // namespace ftmpi::proto::auth
