// Control connections: accept, authenticate, decode, queue replies.
//
// Closing a connection can run the client's on_close handler, which changes job state. To keep
// that from happening in the middle of a handler that is itself sending (send -> write error ->
// close -> on_close -> ...), closes triggered while writing are deferred to a zero-delay timer.
#include "control_server.h"

#include <fcntl.h>
#include <poll.h>

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ftmpi_proto/auth_token.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/unix_socket.h"
#include "log.h"

namespace ftmpi::daemon {

namespace {
constexpr std::size_t kMaxConnections = 256;
constexpr auto kAuthTimeout = std::chrono::seconds(5);
constexpr auto kFlushTimeout = std::chrono::seconds(5);
}  // namespace

ControlServer::~ControlServer() {
    for (auto& [id, c] : conns_) {
        loop_.remove_fd(c->fd);
        close(c->fd);
    }
    if (listen_fd_ >= 0) {
        loop_.remove_fd(listen_fd_);
        close(listen_fd_);
    }
}

Status ControlServer::listen(const std::string& path, std::string& why) {
    if (proto::unix_listen(path, listen_fd_, why) != proto::ProtoStatus::ok) return Status::system_error;
    path_ = path;
    loop_.add_fd(listen_fd_, EPOLLIN, [this](std::uint32_t) { on_accept(); });
    return Status::ok;
}

std::uint64_t ControlServer::adopt(int fd) {
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    auto c = std::make_unique<Connection>();
    c->id = next_id_++;
    c->fd = fd;
    c->authenticated = true;
    ever_authenticated_ = true;
    const std::uint64_t id = c->id;
    loop_.add_fd(fd, EPOLLIN | EPOLLRDHUP, [this, id](std::uint32_t ev) { on_io(id, ev); });
    conns_.emplace(id, std::move(c));
    return id;
}

void ControlServer::on_accept() {
    for (;;) {
        int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR) continue;
            return;  // EAGAIN, or a transient error such as EMFILE: try again on the next event
        }
        ucred cred{};
        socklen_t len = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid()) {
            FTMPID_WARN("dropping control connection from uid %d pid %d: not the daemon's user",
                        static_cast<int>(cred.uid), static_cast<int>(cred.pid));
            close(fd);
            continue;
        }
        if (conns_.size() >= kMaxConnections) {
            FTMPID_WARN("dropping control connection from pid %d: too many connections", static_cast<int>(cred.pid));
            close(fd);
            continue;
        }
        auto c = std::make_unique<Connection>();
        c->id = next_id_++;
        c->fd = fd;
        c->peer_pid = cred.pid;
        std::uint64_t id = c->id;
        c->timer = loop_.add_timer(kAuthTimeout, [this, id] { drop(id, "no authentication within 5 s"); });
        loop_.add_fd(fd, EPOLLIN | EPOLLRDHUP, [this, id](std::uint32_t ev) { on_io(id, ev); });
        conns_.emplace(id, std::move(c));
    }
}

void ControlServer::on_io(std::uint64_t id, std::uint32_t events) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    if (events & EPOLLOUT) {
        if (!flush(*it->second)) return;
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) on_readable(*it->second);
}

void ControlServer::on_readable(Connection& c) {
    const std::uint64_t id = c.id;
    char buf[65536];
    for (int budget = 0; budget < 16; ++budget) {  // bounded, so one client cannot starve the loop
        ssize_t n = read(c.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        if (n <= 0) {
            drop(id, n == 0 ? "" : "read error");
            return;
        }
        c.decoder.feed(buf, static_cast<std::size_t>(n));
        for (;;) {
            proto::Frame f;
            proto::ProtoStatus st = c.decoder.next(f);
            if (st == proto::ProtoStatus::need_more) break;
            if (st != proto::ProtoStatus::ok) {
                drop(id, std::string("malformed frame: ") + proto::to_string(st));
                return;
            }
            if (!c.authenticated) {
                handle_hello(c, f);
            } else if (!c.closing && handlers_.on_frame) {
                handlers_.on_frame(id, std::move(f));
            }
            // Handlers may have dropped this very connection.
            auto it = conns_.find(id);
            if (it == conns_.end() || it->second.get() != &c) return;
        }
    }
}

void ControlServer::handle_hello(Connection& c, const proto::Frame& f) {
    proto::Hello hello;
    if (f.type != static_cast<std::uint16_t>(proto::MsgType::hello)) {
        drop(c.id, std::string("unauthenticated: first message is ") +
                       proto::to_string(static_cast<proto::MsgType>(f.type)) + ", not hello");
        return;
    }
    if (proto::decode(f, hello) != proto::ProtoStatus::ok) {
        drop(c.id, "unauthenticated: malformed hello");
        return;
    }
    if (!proto::token_equal(hello.token, token_)) {
        drop(c.id, "unauthenticated: wrong token");
        return;
    }
    c.authenticated = true;
    // A tool's query must not count as the launcher a private daemon waits for.
    if (hello.kind != proto::ClientKind::tool) ever_authenticated_ = true;
    loop_.cancel_timer(c.timer);
    c.timer = 0;
    FTMPID_DEBUG("client %llu (pid %d) authenticated", static_cast<unsigned long long>(c.id), static_cast<int>(c.peer_pid));
    proto::HelloAck ack;
    ack.daemon_pid = getpid();
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    ack.hostname = host;
    send(c.id, proto::encode(ack));
}

void ControlServer::send(std::uint64_t client, std::vector<std::uint8_t> frame) {
    auto it = conns_.find(client);
    if (it == conns_.end() || frame.empty()) return;
    Connection& c = *it->second;
    c.out_bytes += frame.size();
    c.out.push_back(std::move(frame));
    flush(c);
}

bool ControlServer::congested(std::uint64_t client) const {
    auto it = conns_.find(client);
    return it != conns_.end() && it->second->out_bytes > kCongestedBytes;
}

void ControlServer::close_after_flush(std::uint64_t client) {
    auto it = conns_.find(client);
    if (it == conns_.end()) return;
    Connection& c = *it->second;
    c.closing = true;
    if (c.timer != 0) loop_.cancel_timer(c.timer);
    c.timer = loop_.add_timer(kFlushTimeout, [this, client] { drop(client, "client stopped reading"); });
    flush(c);
}

bool ControlServer::flush(Connection& c) {
    const bool was_congested = c.out_bytes > kCongestedBytes;
    while (!c.out.empty()) {
        auto& front = c.out.front();
        ssize_t n = ::send(c.fd, front.data() + c.out_offset, front.size() - c.out_offset, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) break;
            std::uint64_t id = c.id;
            c.out.clear();
            c.out_bytes = 0;
            loop_.add_timer(std::chrono::milliseconds(0), [this, id] { drop(id, "write error"); });
            return false;
        }
        c.out_offset += static_cast<std::size_t>(n);
        c.out_bytes -= static_cast<std::size_t>(n);
        if (c.out_offset == front.size()) {
            c.out.pop_front();
            c.out_offset = 0;
        }
    }
    update_interest(c);
    if (c.out.empty() && c.closing) {
        std::uint64_t id = c.id;
        loop_.add_timer(std::chrono::milliseconds(0), [this, id] { drop(id, ""); });
        return false;
    }
    if (was_congested && c.out_bytes <= kCongestedBytes && handlers_.on_drained) {
        std::uint64_t id = c.id;
        loop_.add_timer(std::chrono::milliseconds(0), [this, id] {
            if (handlers_.on_drained) handlers_.on_drained(id);
        });
    }
    return true;
}

void ControlServer::update_interest(Connection& c) {
    std::uint32_t ev = EPOLLIN | EPOLLRDHUP;
    if (!c.out.empty()) ev |= EPOLLOUT;
    loop_.set_events(c.fd, ev);
}

void ControlServer::drop(std::uint64_t id, const std::string& why) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    std::unique_ptr<Connection> c = std::move(it->second);
    conns_.erase(it);
    if (!why.empty()) {
        if (c->authenticated)
            FTMPID_INFO("closing client %llu (pid %d): %s", static_cast<unsigned long long>(id),
                        static_cast<int>(c->peer_pid), why.c_str());
        else
            FTMPID_WARN("dropping control connection from pid %d: %s", static_cast<int>(c->peer_pid), why.c_str());
    }
    if (c->timer != 0) loop_.cancel_timer(c->timer);
    loop_.remove_fd(c->fd);
    close(c->fd);
    if (c->authenticated && handlers_.on_close) handlers_.on_close(id);
}

bool ControlServer::peer_gone(std::uint64_t client) const {
    auto it = conns_.find(client);
    if (it == conns_.end()) return true;
    pollfd p{it->second->fd, POLLRDHUP, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

}  // namespace ftmpi::daemon
