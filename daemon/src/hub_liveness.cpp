#include "hub_liveness.h"

#include "ftmpi_proto/host_messages.h"

namespace ftmpi::daemon {

HubLiveness::HubLiveness(EventLoop& loop, proto::HeartbeatConfig config, Send send, Lost lost)
    : loop_(loop), clock_(config, EventLoop::Clock::now()), send_(std::move(send)), lost_(std::move(lost)) {
    arm();
}

HubLiveness::~HubLiveness() {
    if (timer_ != 0) loop_.cancel_timer(timer_);
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

}  // namespace ftmpi::daemon
