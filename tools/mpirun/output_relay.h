// Writes the ranks' output to mpirun's stdout/stderr; with --tag-output every line gets a
// "[rank] " prefix ("[rank,host] " in a job on several hosts), which needs per-rank,
// per-stream buffering of partial lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "ftmpi_proto/messages.h"

namespace ftmpi::mpirun {

class OutputRelay {
public:
    explicit OutputRelay(bool tag_output) : tag_(tag_output) {}

    // `host` is empty on one host.
    void write(std::uint32_t rank, proto::OutputStream stream, const std::string& bytes, const std::string& host = "");
    // Emits buffered partial lines (tagged mode), each completed with a newline.
    void flush_partial();

private:
    bool tag_;
    struct Partial {
        std::string prefix;
        std::string bytes;
    };
    std::map<std::pair<std::uint32_t, proto::OutputStream>, Partial> partial_;
};

// write(2) until done; output to a closed pipe is dropped, not fatal.
void write_fd(int fd, const char* data, std::size_t n);

}  // namespace ftmpi::mpirun
