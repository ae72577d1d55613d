// The daemon's single event loop: epoll over descriptors plus one-shot timers. Every piece of
// daemon state is touched only from callbacks run here, so none of it needs locking.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

namespace ftmpi::daemon {

class EventLoop {
public:
    using FdHandler = std::function<void(std::uint32_t events)>;
    using TimerHandler = std::function<void()>;
    using Clock = std::chrono::steady_clock;

    EventLoop();
    ~EventLoop();
    EventLoop(const EventLoop&) = delete;
    EventLoop& operator=(const EventLoop&) = delete;

    bool ok() const noexcept { return epfd_ >= 0; }

    // `events` is an EPOLLIN/EPOLLOUT mask; EPOLLHUP/EPOLLERR are always reported.
    bool add_fd(int fd, std::uint32_t events, FdHandler handler);
    bool set_events(int fd, std::uint32_t events);
    // Safe to call from inside any handler, including the fd's own.
    void remove_fd(int fd);

    std::uint64_t add_timer(Clock::duration delay, TimerHandler handler);
    void cancel_timer(std::uint64_t id);

    // Runs until stop(); false if epoll itself failed.
    bool run();
    void stop() { running_ = false; }

private:
    struct Watch {
        std::uint32_t generation;
        std::shared_ptr<FdHandler> handler;
    };
    int next_timeout_ms() const;
    void run_due_timers();

    int epfd_ = -1;
    bool running_ = false;
    std::uint32_t generation_ = 0;
    std::unordered_map<int, Watch> watches_;
    std::uint64_t next_timer_id_ = 1;
    std::map<std::pair<Clock::time_point, std::uint64_t>, TimerHandler> timers_;
    std::unordered_map<std::uint64_t, Clock::time_point> timer_index_;
};

}  // namespace ftmpi::daemon
