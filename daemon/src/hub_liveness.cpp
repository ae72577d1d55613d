#include "hub_liveness.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>

#include "ftmpi_proto/host_messages.h"

namespace ftmpi::daemon {

HubLiveness::HubLiveness(EventLoop& loop, proto::HeartbeatConfig config, int link_fd, Send send, Lost lost)
    : loop_(loop),
      clock_(config, EventLoop::Clock::now()),
      link_fd_(link_fd),
      send_(std::move(send)),
      lost_(std::move(lost)) {
    arm();
}

HubLiveness::~HubLiveness() {
    if (timer_ != 0) loop_.cancel_timer(timer_);
    if (link_fd_ >= 0) close(link_fd_);
}

void HubLiveness::heard() {
    heard_once_ = true;
    clock_.heard(EventLoop::Clock::now());
}

void HubLiveness::arm() {
    const auto now = EventLoop::Clock::now();
    const auto delay = clock_.next_deadline() > now ? clock_.next_deadline() - now : EventLoop::Clock::duration(0);
    timer_ = loop_.add_timer(delay, [this] {
        timer_ = 0;
        tick();
    });
}

void HubLiveness::tick() {
    const auto now = EventLoop::Clock::now();
    // mpirun starts its heartbeats with the launch, after every daemon connected (which may
    // take longer than the timeout): the silence counts from its first frame. Before that a
    // lost mpirun shows as a closed link, and a daemon never launched ends by itself.
    if (!heard_once_) clock_.heard(now);
    clock_.looked(now);
    if (clock_.expired(now) && input_pending()) {
        // Our own absence is not mpirun's silence: a daemon that got no CPU (or whose loop was
        // busy) past the timeout finds mpirun's frames of that time waiting in the socket. The
        // loop reads them first (heard); then we look again.
        timer_ = loop_.add_timer(std::min<EventLoop::Clock::duration>(clock_.config().period, std::chrono::milliseconds(10)),
                                 [this] {
                                     timer_ = 0;
                                     tick();
                                 });
        return;
    }
    if (clock_.expired(now)) {
        if (!lost_reported_) {
            lost_reported_ = true;
            lost_(clock_.silence(now));  // may end the daemon; nothing of ours runs after it
        }
        return;
    }
    if (clock_.send_due(now)) {
        proto::Heartbeat hb;
        hb.seq = ++seq_;
        send_(proto::encode(hb));
        clock_.sent(now);
    }
    arm();
}

bool HubLiveness::input_pending() const {
    if (link_fd_ < 0) return false;
    pollfd p{link_fd_, POLLIN, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
}

}  // namespace ftmpi::daemon
