// epoll + timer loop. The epoll user data carries (generation, fd) so that an event queued for
// a descriptor that was closed and reused within one epoll_wait batch is ignored.
#include "event_loop.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "log.h"

namespace ftmpi::daemon {

EventLoop::EventLoop() { epfd_ = epoll_create1(EPOLL_CLOEXEC); }

EventLoop::~EventLoop() {
    if (epfd_ >= 0) close(epfd_);
}

bool EventLoop::add_fd(int fd, std::uint32_t events, FdHandler handler) {
    std::uint32_t gen = ++generation_;
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = (static_cast<std::uint64_t>(gen) << 32) | static_cast<std::uint32_t>(fd);
    if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) return false;
    watches_[fd] = Watch{gen, std::make_shared<FdHandler>(std::move(handler))};
    return true;
}

bool EventLoop::set_events(int fd, std::uint32_t events) {
    auto it = watches_.find(fd);
    if (it == watches_.end()) return false;
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = (static_cast<std::uint64_t>(it->second.generation) << 32) | static_cast<std::uint32_t>(fd);
    return epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev) == 0;
}

void EventLoop::remove_fd(int fd) {
    if (watches_.erase(fd) > 0) epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
}

std::uint64_t EventLoop::add_timer(Clock::duration delay, TimerHandler handler) {
    std::uint64_t id = next_timer_id_++;
    auto when = Clock::now() + delay;
    timers_.emplace(std::make_pair(when, id), std::move(handler));
    timer_index_[id] = when;
    return id;
}

void EventLoop::cancel_timer(std::uint64_t id) {
    auto it = timer_index_.find(id);
    if (it == timer_index_.end()) return;
    timers_.erase(std::make_pair(it->second, id));
    timer_index_.erase(it);
}

int EventLoop::next_timeout_ms() const {
    if (timers_.empty()) return -1;
    auto left = timers_.begin()->first.first - Clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count();
    if (ms < 0) return 0;
    return static_cast<int>(ms + 1);  // round up so we never wake just before the deadline
}

void EventLoop::run_due_timers() {
    auto now = Clock::now();
    while (!timers_.empty() && timers_.begin()->first.first <= now) {
        auto node = timers_.extract(timers_.begin());
        timer_index_.erase(node.key().second);
        node.mapped()();
    }
}

bool EventLoop::run() {
    running_ = true;
    epoll_event events[64];
    while (running_) {
        int n = epoll_wait(epfd_, events, 64, next_timeout_ms());
        if (n < 0) {
            if (errno == EINTR) continue;
            FTMPID_ERROR("epoll_wait failed: errno %d", errno);
            return false;
        }
        for (int i = 0; i < n && running_; ++i) {
            int fd = static_cast<int>(events[i].data.u64 & 0xffffffffu);
            auto gen = static_cast<std::uint32_t>(events[i].data.u64 >> 32);
            auto it = watches_.find(fd);
            if (it == watches_.end() || it->second.generation != gen) continue;
            auto handler = it->second.handler;  // keeps the callable alive if it removes itself
            (*handler)(events[i].events);
        }
        run_due_timers();
    }
    return true;
}

}  // namespace ftmpi::daemon
