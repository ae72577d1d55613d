// The per-job secret: made by mpirun, carried as one hex line on a launcher's stdin.
#include <poll.h>
#include <sodium.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "ftmpi_proto/job_auth.h"
#include "ftmpi_proto/job_auth_messages.h"

namespace ftmpi::proto {

namespace {

constexpr std::size_t kHexLen = 64;

std::int64_t now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

void auth::init_crypto() {
    // Function-local static: initialised once, thread-safe; sodium_init itself is idempotent.
    static const bool ready = sodium_init() >= 0;
    if (!ready) {
        std::fputs("ftmpi: libsodium failed to initialise; refusing to make a job secret\n", stderr);
        std::abort();
    }
}

JobSecret::~JobSecret() { sodium_memzero(key.data(), key.size()); }

JobSecret make_job_secret() {
    auth::init_crypto();
    JobSecret s;
    randombytes_buf(s.key.data(), s.key.size());
    return s;
}

std::string secret_to_hex(const JobSecret& secret) {
    char hex[kHexLen + 1];
    sodium_bin2hex(hex, sizeof hex, secret.key.data(), secret.key.size());
    std::string out(hex, kHexLen);
    sodium_memzero(hex, sizeof hex);
    return out;
}

bool secret_from_hex(std::string_view hex, JobSecret& out) {
    if (hex.size() != kHexLen) return false;
    for (char c : hex) {
        if (!is_hex(c)) return false;
    }
    JobSecret parsed;
    std::size_t len = 0;
    if (sodium_hex2bin(parsed.key.data(), parsed.key.size(), hex.data(), hex.size(), nullptr, &len, nullptr) != 0 ||
        len != parsed.key.size()) {
        return false;
    }
    out.key = parsed.key;
    return true;
}

ProtoStatus read_secret_line(int fd, int timeout_ms, JobSecret& out, std::string& why) {
    const std::int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    char line[kHexLen + 1];
    std::size_t got = 0;
    ProtoStatus st = ProtoStatus::ok;
    // One byte per read(): whatever follows the newline (the rest of stdin) is not ours to take.
    while (got < sizeof line) {
        pollfd p{fd, POLLIN, 0};
        int left = static_cast<int>(deadline - now_ms());
        int r = poll(&p, 1, left > 0 ? left : 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            why = std::string("poll on the secret's descriptor: ") + std::strerror(errno);
            st = ProtoStatus::io_error;
            break;
        }
        if (r == 0) {
            why = "no job secret on standard input within " + std::to_string(timeout_ms) + " ms";
            st = ProtoStatus::timed_out;
            break;
        }
        ssize_t n = read(fd, line + got, 1);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (n < 0) {
            why = std::string("reading the job secret: ") + std::strerror(errno);
            st = ProtoStatus::io_error;
            break;
        }
        if (n == 0) {
            why = "standard input closed after " + std::to_string(got) + " bytes of the job secret";
            st = ProtoStatus::closed;
            break;
        }
        char c = line[got++];
        bool fits = got <= kHexLen ? is_hex(c) : c == '\n';
        if (!fits) {
            why = "the job secret line is not 64 hex digits and a newline (wrong byte at offset " +
                  std::to_string(got - 1) + ")";
            st = ProtoStatus::malformed;
            break;
        }
    }
    if (st == ProtoStatus::ok && !secret_from_hex(std::string_view(line, kHexLen), out)) {
        why = "the job secret line does not decode";
        st = ProtoStatus::malformed;
    }
    sodium_memzero(line, sizeof line);
    return st;
}

}  // namespace ftmpi::proto
