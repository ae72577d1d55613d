#include "monitor_socket.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "log.h"

namespace ftmpi::daemon {

MonitorSocket::~MonitorSocket() {
    if (fd_ >= 0) {
        loop_.remove_fd(fd_);
        close(fd_);
        unlink(path_.c_str());
    }
}

Status MonitorSocket::open(const std::string& path, std::string& why) {
    sockaddr_un addr{};
    if (path.size() >= sizeof addr.sun_path) {
        why = "monitor socket path too long: " + path;
        return Status::system_error;
    }
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
        why = std::string("socket: ") + std::strerror(errno);
        return Status::system_error;
    }
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    unlink(path.c_str());
    mode_t old = umask(077);
    int rc = bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    umask(old);
    if (rc != 0) {
        why = "bind " + path + ": " + std::strerror(errno);
        close(fd_);
        fd_ = -1;
        return Status::system_error;
    }
    chmod(path.c_str(), 0600);
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    int rcvbuf = 4 << 20;
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    path_ = path;
    loop_.add_fd(fd_, EPOLLIN, [this](std::uint32_t) { on_readable(); });
    return Status::ok;
}

void MonitorSocket::drain() {
    if (fd_ < 0) return;
    while (receive(256) == 256) {
    }
}

int MonitorSocket::receive(int budget) {
    static std::vector<std::uint8_t> buf(1u << 20);  // loop thread only
    int taken = 0;
    for (; taken < budget; ++taken) {
        iovec iov{buf.data(), buf.size()};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        ssize_t n = recvmsg(fd_, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0) {
            if (errno == EINTR) {
                --taken;
                continue;
            }
            return taken;  // EAGAIN
        }
        pid_t sender = 0;
        bool same_user = false;
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
                ucred cred;
                std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
                sender = cred.pid;
                same_user = cred.uid == geteuid();
            }
        }
        if (!same_user || sender <= 0 || (msg.msg_flags & MSG_TRUNC)) {
            FTMPID_WARN("dropping a monitor datagram from pid %d: %s", static_cast<int>(sender),
                        (msg.msg_flags & MSG_TRUNC) ? "too large" : "not the daemon's user");
            continue;
        }
        if (handler_) handler_(buf.data(), static_cast<std::size_t>(n), sender);
    }
    return taken;
}

}  // namespace ftmpi::daemon
