// Unix-socket helpers shared by ftmpid and its clients. All descriptors are close-on-exec so
// they never leak into application processes.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

// Creates the directory if missing with mode 0700; refuses one owned by another user or
// accessible by group/others.
ProtoStatus ensure_private_dir(const std::string& dir, std::string& why);
// The same checks without creating anything (lstat: a symlink is refused, not followed).
ProtoStatus check_private_dir(const std::string& dir, std::string& why);

// Where this user's run files live: $TMPDIR (if absolute) or /tmp, then "ftmpi-$UID".
// Another local user may have pre-created that name; callers check it with the functions
// above and fall back to a mkdtemp directory rather than use it or wait on it.
std::string runtime_base_dir();

// Binds and listens (non-blocking socket, mode 0600). A stale socket file that nobody answers
// on is replaced; a live one is an error (`why` says so).
ProtoStatus unix_listen(const std::string& path, int& fd_out, std::string& why);

// Blocking connect; io_error with errno preserved when nobody listens.
ProtoStatus unix_connect(const std::string& path, int& fd_out);

// Writes all bytes (blocking descriptor), without SIGPIPE.
ProtoStatus write_all(int fd, const std::vector<std::uint8_t>& bytes);

// Reads one frame from a blocking descriptor, waiting at most `timeout`.
ProtoStatus read_frame(int fd, FrameDecoder& dec, Frame& out, std::chrono::milliseconds timeout);

// Default well-known socket: $FTMPI_DAEMON_SOCKET, else runtime_base_dir()/ftmpid.sock.
std::string default_socket_path();

}  // namespace ftmpi::proto
