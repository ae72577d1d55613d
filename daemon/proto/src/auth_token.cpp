// Generation, storage and checking of the daemon's secret token.
#include "ftmpi_proto/auth_token.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ftmpi::proto {

std::string token_path_for_socket(const std::string& socket_path) { return socket_path + ".token"; }

ProtoStatus token_generate(std::string& out) {
    unsigned char raw[32];
    std::size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return ProtoStatus::io_error;
        }
        got += static_cast<std::size_t>(n);
    }
    static const char hex[] = "0123456789abcdef";
    out.clear();
    for (unsigned char c : raw) {
        out.push_back(hex[c >> 4]);
        out.push_back(hex[c & 15]);
    }
    return ProtoStatus::ok;
}

ProtoStatus token_write(const std::string& path, const std::string& token) {
    // Write a private temporary, then rename: a reader never sees a half-written token and the
    // file is never briefly readable by others.
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return ProtoStatus::io_error;
    bool ok = fchmod(fd, 0600) == 0 &&
              write(fd, token.data(), token.size()) == static_cast<ssize_t>(token.size());
    ok = (close(fd) == 0) && ok;
    if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
        unlink(tmp.c_str());
        return ProtoStatus::io_error;
    }
    return ProtoStatus::ok;
}

ProtoStatus token_read(const std::string& path, std::string& out, std::string& why) {
    // O_NONBLOCK: a FIFO another user put at this path must not block us in open() or read().
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        why = "cannot open " + path + ": " + std::strerror(errno);
        return ProtoStatus::io_error;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        close(fd);
        why = path + " is not a private file owned by this user";
        return ProtoStatus::auth_failed;
    }
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n <= 0) {
        why = "cannot read " + path;
        return ProtoStatus::io_error;
    }
    out.assign(buf, static_cast<std::size_t>(n));
    return ProtoStatus::ok;
}

bool token_equal(const std::string& a, const std::string& b) noexcept {
    if (a.size() != b.size() || a.empty()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace ftmpi::proto
