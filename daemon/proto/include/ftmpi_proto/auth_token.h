// The daemon's secret: a random token written to a 0600 file next to its control socket.
// Only the socket's owner can read it, so presenting it proves the client runs as that user.
#pragma once

#include <string>

#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

// "<socket path>.token"
std::string token_path_for_socket(const std::string& socket_path);

// 32 random bytes as 64 hex characters, from getrandom(2).
ProtoStatus token_generate(std::string& out);

// Writes atomically (temp file + rename) with mode 0600.
ProtoStatus token_write(const std::string& path, const std::string& token);

// Refuses a file not owned by the caller or readable by others; `why` explains a failure.
ProtoStatus token_read(const std::string& path, std::string& out, std::string& why);

// Constant-time comparison so the token cannot be guessed byte by byte from timing.
bool token_equal(const std::string& a, const std::string& b) noexcept;

}  // namespace ftmpi::proto
