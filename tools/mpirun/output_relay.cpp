// Output relay, optionally line-tagged.
#include "output_relay.h"

#include <unistd.h>

#include <cerrno>

namespace ftmpi::mpirun {

void write_fd(int fd, const char* data, std::size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        data += w;
        n -= static_cast<std::size_t>(w);
    }
}

namespace {
int fd_of(proto::OutputStream s) { return s == proto::OutputStream::out ? STDOUT_FILENO : STDERR_FILENO; }
}  // namespace

void OutputRelay::write(std::uint32_t rank, proto::OutputStream stream, const std::string& bytes,
                        const std::string& host) {
    const int fd = fd_of(stream);
    if (!tag_) {
        write_fd(fd, bytes.data(), bytes.size());
        return;
    }
    Partial& part = partial_[{rank, stream}];
    std::string& pending = part.bytes;
    const std::string prefix = "[" + std::to_string(rank) + (host.empty() ? "" : "," + host) + "] ";
    part.prefix = prefix;
    std::string out;
    std::size_t start = 0;
    for (;;) {
        std::size_t nl = bytes.find('\n', start);
        if (nl == std::string::npos) break;
        // Whole lines only, so lines of different ranks never interleave mid-line.
        out += prefix;
        out += pending;
        pending.clear();
        out.append(bytes, start, nl + 1 - start);
        start = nl + 1;
    }
    pending.append(bytes, start, std::string::npos);
    if (!out.empty()) write_fd(fd, out.data(), out.size());
}

void OutputRelay::flush_partial() {
    for (auto& [key, part] : partial_) {
        if (part.bytes.empty()) continue;
        std::string out = part.prefix + part.bytes + "\n";
        write_fd(fd_of(key.second), out.data(), out.size());
        part.bytes.clear();
    }
}

}  // namespace ftmpi::mpirun
