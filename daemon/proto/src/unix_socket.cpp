// Unix control-socket plumbing: private directory, listen, connect, blocking frame I/O.
#include "ftmpi_proto/unix_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ftmpi_knobs/knobs.h"

namespace ftmpi::proto {

namespace {

bool fill_address(const std::string& path, sockaddr_un& addr) {
    std::memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof addr.sun_path) return false;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    return true;
}

}  // namespace

ProtoStatus ensure_private_dir(const std::string& dir, std::string& why) {
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        why = "cannot create " + dir + ": " + std::strerror(errno);
        return ProtoStatus::io_error;
    }
    return check_private_dir(dir, why);
}

ProtoStatus check_private_dir(const std::string& dir, std::string& why) {
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        why = dir + " is not a directory";
        return ProtoStatus::io_error;
    }
    // Someone else's directory (e.g. a pre-created /tmp/ftmpi-$UID) could hold a fake daemon.
    if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        why = dir + " must be owned by this user with mode 0700";
        return ProtoStatus::auth_failed;
    }
    return ProtoStatus::ok;
}

ProtoStatus unix_connect(const std::string& path, int& fd_out) {
    sockaddr_un addr;
    if (!fill_address(path, addr)) {
        errno = ENAMETOOLONG;
        return ProtoStatus::io_error;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return ProtoStatus::io_error;
    while (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        if (errno == EINTR) continue;
        int saved = errno;
        close(fd);
        errno = saved;
        return ProtoStatus::io_error;
    }
    fd_out = fd;
    return ProtoStatus::ok;
}

ProtoStatus unix_listen(const std::string& path, int& fd_out, std::string& why) {
    sockaddr_un addr;
    if (!fill_address(path, addr)) {
        why = "socket path too long: " + path;
        return ProtoStatus::io_error;
    }
    int probe = -1;
    if (unix_connect(path, probe) == ProtoStatus::ok) {
        close(probe);
        why = "a daemon is already listening on " + path;
        return ProtoStatus::io_error;
    }
    unlink(path.c_str());  // stale socket of a daemon that died

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        why = std::string("socket: ") + std::strerror(errno);
        return ProtoStatus::io_error;
    }
    // umask makes the socket 0600 from its creation; chmod alone would leave a short window.
    mode_t old = umask(077);
    int rc = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    umask(old);
    if (rc != 0 || chmod(path.c_str(), 0600) != 0 || listen(fd, 64) != 0) {
        why = "cannot listen on " + path + ": " + std::strerror(errno);
        close(fd);
        return ProtoStatus::io_error;
    }
    fd_out = fd;
    return ProtoStatus::ok;
}

ProtoStatus write_all(int fd, const std::vector<std::uint8_t>& bytes) {
    std::size_t off = 0;
    while (off < bytes.size()) {
        ssize_t n = send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno == EPIPE || errno == ECONNRESET ? ProtoStatus::closed : ProtoStatus::io_error;
        }
        off += static_cast<std::size_t>(n);
    }
    return ProtoStatus::ok;
}

ProtoStatus read_frame(int fd, FrameDecoder& dec, Frame& out, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        ProtoStatus st = dec.next(out);
        if (st != ProtoStatus::need_more) return st;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return ProtoStatus::timed_out;
        pollfd p{fd, POLLIN, 0};
        int rc = poll(&p, 1, static_cast<int>(left.count()));
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return ProtoStatus::io_error;
        if (rc == 0) return ProtoStatus::timed_out;
        char buf[65536];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) return ProtoStatus::io_error;
        if (n == 0) return ProtoStatus::closed;
        dec.feed(buf, static_cast<std::size_t>(n));
    }
}

std::string runtime_base_dir() {
    std::string tmp = "/tmp";
    if (const char* env = std::getenv("TMPDIR"); env != nullptr && env[0] == '/') tmp = env;
    while (tmp.size() > 1 && tmp.back() == '/') tmp.pop_back();
    return tmp + "/ftmpi-" + std::to_string(geteuid());
}

std::string default_socket_path() {
    if (auto env = knobs::raw(knobs::Id::daemon_socket)) return *env;
    return runtime_base_dir() + "/ftmpid.sock";
}

}  // namespace ftmpi::proto
