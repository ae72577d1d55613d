// The handshake's messages and proofs (job_auth_messages.h), on libsodium's HMAC-SHA-256.
#include "ftmpi_proto/job_auth_messages.h"

#include <sodium.h>

#include <cstring>

#include "ftmpi_proto/wire.h"

namespace ftmpi::proto::auth {

namespace {

// Domain separation: a MAC made with the job secret for any other purpose never passes as a proof.
constexpr char kProofLabel[] = "ftmpi-job-auth-v1";

}  // namespace

Nonce make_nonce() {
    init_crypto();
    Nonce n;
    randombytes_buf(n.data(), n.size());
    return n;
}

Proof compute_proof(const JobSecret& secret, AuthRole prover, const Nonce& own, const Nonce& peer) {
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, secret.key.data(), secret.key.size());
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(kProofLabel), sizeof kProofLabel - 1);
    const unsigned char role = static_cast<unsigned char>(prover);
    crypto_auth_hmacsha256_update(&st, &role, 1);
    crypto_auth_hmacsha256_update(&st, own.data(), own.size());
    crypto_auth_hmacsha256_update(&st, peer.data(), peer.size());
    Proof out;
    crypto_auth_hmacsha256_final(&st, out.data());
    sodium_memzero(&st, sizeof st);
    return out;
}

bool verify_proof(const JobSecret& secret, AuthRole prover, const Nonce& prover_nonce,
                  const Nonce& verifier_nonce, const Proof& proof) {
    Proof expected = compute_proof(secret, prover, prover_nonce, verifier_nonce);
    bool same = sodium_memcmp(expected.data(), proof.data(), expected.size()) == 0;
    sodium_memzero(expected.data(), expected.size());
    return same;
}

std::vector<std::uint8_t> encode_hello(const Hello& h) {
    WireWriter w;
    w.raw(kTag.data(), kTag.size());
    w.u8(kVersion);
    w.u8(static_cast<std::uint8_t>(h.role));
    w.raw(h.nonce.data(), h.nonce.size());
    if (h.role == AuthRole::acceptor) w.raw(h.proof.data(), h.proof.size());
    return std::move(w.bytes());
}

ProtoStatus parse_hello(const std::uint8_t* data, std::size_t n, AuthRole expected, Hello& out) {
    const std::size_t want = expected == AuthRole::acceptor ? kHelloProofSize : kHelloSize;
    if (n < want) return ProtoStatus::truncated;
    if (n > want) return ProtoStatus::malformed;
    WireReader r(data, n);
    std::array<std::uint8_t, kTag.size()> tag{};
    r.raw(tag.data(), tag.size());
    std::uint8_t version = r.u8();
    std::uint8_t role = r.u8();
    if (tag != kTag || version != kVersion) return ProtoStatus::auth_failed;
    if (role > static_cast<std::uint8_t>(AuthRole::acceptor)) return ProtoStatus::malformed;
    // The peer must hold the other role: our own hello sent back to us is refused here.
    if (static_cast<AuthRole>(role) != expected) return ProtoStatus::auth_failed;
    Hello h;
    h.role = expected;
    r.raw(h.nonce.data(), h.nonce.size());
    if (expected == AuthRole::acceptor) r.raw(h.proof.data(), h.proof.size());
    ProtoStatus st = r.finish();
    if (st == ProtoStatus::ok) out = h;
    return st;
}

}  // namespace ftmpi::proto::auth
