// Liveness between mpirun and the daemons of a job on several hosts (issue 15 item 4). Both
// ends run one HeartbeatClock per link: send a heartbeat every `period` when nothing else was
// sent, and declare the peer lost once nothing at all was heard for `timeout`. Any frame counts
// as a sign of life (output, fences), so a busy link needs no extra heartbeats.
//
// A closed TCP connection is the fast path (a killed host: the kernel resets the connection,
// detected in milliseconds); the clock catches what a closed connection cannot show: a cut
// link, a frozen host, a peer that stopped without closing. mpirun marks such a host failed;
// a daemon that stops hearing mpirun fences itself off (kills its ranks, removes its files,
// exits), so a cut-off host never goes on alone.
//
// Our own absence is not the peer's silence: the owner calls looked() at each wake of its loop,
// which wakes at least once a period (next_deadline). A wake much later than that means this
// process did not run meanwhile (stopped, starved of CPU, the whole machine paused for seconds:
// seen on this project's 2-core VM). The silence of that gap is not held against the peer: we
// were not listening, and a pause of the machine stopped the peer too. A peer that is really
// gone is declared one timeout after we run again (a killed host's reset connection is still
// seen at once), and a peer that stopped talking to us while we ran is judged as before.
//
// The clock never reads the time itself: every call takes `now`, so tests drive it with a fake
// clock and the owner's event loop decides when to look (next_deadline).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

namespace ftmpi::proto {

struct HeartbeatConfig {
    std::chrono::milliseconds period{100};    // heartbeat interval (mpirun --heartbeat-period)
    std::chrono::milliseconds timeout{1000};  // silence that counts as lost (--heartbeat-timeout)
};

// A usable pair: period >= 1 ms, timeout >= 2 periods (one late heartbeat is not a failure),
// both <= 1 hour. Fills `why` when not.
bool heartbeat_config_valid(const HeartbeatConfig& c, std::string& why);

class HeartbeatClock {
public:
    using Clock = std::chrono::steady_clock;
    using TimePoint = Clock::time_point;

    HeartbeatClock(HeartbeatConfig config, TimePoint now)
        : config_(config), last_heard_(now), last_sent_(now), last_looked_(now) {}

    // Something arrived from the peer / we wrote something to the peer.
    void heard(TimePoint now) { last_heard_ = now; }
    void sent(TimePoint now) { last_sent_ = now; }
    // The owner's loop woke (see above): a gap beyond two periods since its last wake is
    // excused, the peer's silence shifted by the excess.
    void looked(TimePoint now) {
        const auto expected = 2 * config_.period;
        if (now - last_looked_ > expected) {
            last_heard_ = std::min(now, last_heard_ + (now - last_looked_ - expected));
        }
        last_looked_ = now;
    }

    // Whether a heartbeat should go out now (a period passed since the last frame we sent).
    bool send_due(TimePoint now) const { return now - last_sent_ >= config_.period; }
    // Whether the peer has been silent longer than the timeout.
    bool expired(TimePoint now) const { return now - last_heard_ > config_.timeout; }
    // How long the peer has been silent (hostinfo's "age of the last heartbeat").
    std::chrono::milliseconds silence(TimePoint now) const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(now - last_heard_);
    }
    // The next moment something is due: a heartbeat to send or the expiry. An event loop
    // sleeps until then (or until a frame arrives).
    TimePoint next_deadline() const {
        const TimePoint send_at = last_sent_ + config_.period;
        const TimePoint expire_at = last_heard_ + config_.timeout + std::chrono::milliseconds(1);
        return send_at < expire_at ? send_at : expire_at;
    }
    const HeartbeatConfig& config() const { return config_; }

private:
    HeartbeatConfig config_;
    TimePoint last_heard_;
    TimePoint last_sent_;
    TimePoint last_looked_;
};

}  // namespace ftmpi::proto
