// The daemon's control socket: accepts connections, authenticates them with the token, frames
// the byte stream and queues replies without ever blocking the loop.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon_status.h"
#include "event_loop.h"
#include "ftmpi_proto/frame.h"

namespace ftmpi::daemon {

class ControlServer {
public:
    struct Handlers {
        std::function<void(std::uint64_t client, proto::Frame&& frame)> on_frame;  // authenticated only
        std::function<void(std::uint64_t client)> on_close;     // authenticated clients only
        std::function<void(std::uint64_t client)> on_drained;   // output queue fell below the limit
    };

    ControlServer(EventLoop& loop, std::string token) : loop_(loop), token_(std::move(token)) {}
    ~ControlServer();

    Status listen(const std::string& path, std::string& why);
    // Takes a connection that was authenticated elsewhere (a remote daemon's TCP link to
    // mpirun, proto::authenticate) and serves it like a control client; returns its id.
    std::uint64_t adopt(int fd);
    void set_handlers(Handlers h) { handlers_ = std::move(h); }

    // Queue a complete frame; silently dropped if the client is gone.
    void send(std::uint64_t client, std::vector<std::uint8_t> frame);
    // True while more than kCongestedBytes wait to be written: producers should pause.
    bool congested(std::uint64_t client) const;
    // Close once everything queued has been written (or the peer stops reading for too long).
    void close_after_flush(std::uint64_t client);
    std::size_t connection_count() const noexcept { return conns_.size(); }
    // True if the client has closed its end (or is unknown), asked without waiting for the
    // loop: a long launch checks it between ranks so that a launcher killed mid-launch stops it.
    bool peer_gone(std::uint64_t client) const;
    bool ever_authenticated() const noexcept { return ever_authenticated_; }
    // Closes at once, without flushing (a peer that stopped answering); the close handler runs.
    void close_now(std::uint64_t client, const std::string& why) { drop(client, why); }

    static constexpr std::size_t kCongestedBytes = 4u << 20;

private:
    struct Connection {
        std::uint64_t id = 0;
        int fd = -1;
        pid_t peer_pid = 0;
        bool authenticated = false;
        bool closing = false;
        proto::FrameDecoder decoder;
        std::deque<std::vector<std::uint8_t>> out;
        std::size_t out_offset = 0;  // into out.front()
        std::size_t out_bytes = 0;
        std::uint64_t timer = 0;     // authentication or flush deadline
    };

    void on_accept();
    void on_io(std::uint64_t id, std::uint32_t events);
    void on_readable(Connection& c);
    bool flush(Connection& c);  // false if the connection was closed
    void handle_hello(Connection& c, const proto::Frame& f);
    void drop(std::uint64_t id, const std::string& why);
    void update_interest(Connection& c);

    EventLoop& loop_;
    std::string token_;
    std::string path_;
    int listen_fd_ = -1;
    Handlers handlers_;
    std::uint64_t next_id_ = 1;
    bool ever_authenticated_ = false;
    std::unordered_map<std::uint64_t, std::unique_ptr<Connection>> conns_;
};

}  // namespace ftmpi::daemon
