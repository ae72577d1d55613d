// How the ends of ranks, daemons and hosts decide the job (daemon/README.md exit rules): a
// rank's failure (ABORT mode ends the job on every host), a daemon's job_ended, a lost link or
// host, and the combined exit code of a job on several hosts. Part of JobMonitor (job_monitor.h).
#include <sys/socket.h>

#include "exit_codes.h"
#include "failure_report.h"
#include "ftmpi/debug_log.h"
#include "ftmpi_proto/unix_socket.h"
#include "host_failure.h"
#include "job_monitor.h"

namespace ftmpi::mpirun {

void JobMonitor::on_rank_exited(std::size_t from, const proto::RankExited& m) {
    Spoke& s = spokes_[from];
    if (s.ranks_alive > 0) --s.ranks_alive;
    (m.failed ? s.ranks_failed : s.ranks_ok) += 1;
    if (!m.failed) {
        if (hub_) hub_->participants_changed(spokes_, false);
        return;
    }
    relay_->flush_partial();
    say(format_rank_failure(m, comm_mode_, several_hosts() ? s.host_name : std::string()));
    if (!several_hosts()) return;
    if (!first_failure_ || m.time_ms < first_failure_->time_ms) first_failure_ = m;
    // ABORT mode: this failure decides the job; the other hosts are stopped now rather than
    // after its daemon's kill grace, and their own failures that follow change nothing.
    if (!m.job_continues && comm_mode_ == proto::CommMode::abort && !decided_ && forced_exit_ < 0) {
        proto::JobEnded end;
        end.exit_code = failure_code(m);
        end.reason = proto::JobEndReason::rank_failed;
        decided_ = end;
        kill_others(from);
    }
    hub_->participants_changed(spokes_, true);
}

bool JobMonitor::on_job_ended(std::size_t from, const proto::JobEnded& m, int& exit_code) {
    Spoke& s = spokes_[from];
    if (!several_hosts()) {
        if (m.reason == proto::JobEndReason::launch_failed) say("ftmpi: cannot launch the job: " + m.message + "\n");
        if (m.reason == proto::JobEndReason::daemon_shutdown) say("ftmpi: " + m.message + "; the job was killed\n");
        if (m.reason == proto::JobEndReason::killed && forced_exit_ < 0) say("ftmpi: job " + m.message + "\n");
        exit_code = forced_exit_ >= 0 ? forced_exit_ : normalize_exit(m.exit_code);
        return true;
    }
    s.ended = m;
    if (liveness_) liveness_->forget(from);  // it closes its link next; nothing more to watch
    const bool deciding = m.reason == proto::JobEndReason::rank_failed || m.reason == proto::JobEndReason::aborted ||
                          m.reason == proto::JobEndReason::launch_failed ||
                          m.reason == proto::JobEndReason::daemon_shutdown;
    if (deciding && !decided_ && forced_exit_ < 0) {
        if (m.reason == proto::JobEndReason::launch_failed)
            say("ftmpi: cannot launch the job on host " + s.host_name + ": " + m.message + "\n");
        if (m.reason == proto::JobEndReason::daemon_shutdown)
            say("ftmpi: the daemon on host " + s.host_name + ": " + m.message + "; the job was killed\n");
        decided_ = m;
        kill_others(from);
    }
    for (const Spoke& other : spokes_)
        if (other.open && !other.ended) return false;
    exit_code = combined_exit_code();
    return true;
}

bool JobMonitor::on_spoke_lost(std::size_t from, int& exit_code) {
    Spoke& s = spokes_[from];
    s.open = false;
    if (s.ended) return false;  // a daemon closes its link after job_ended
    relay_->flush_partial();
    if (!several_hosts()) {
        say("ftmpi: lost connection to the daemon (ftmpid); the job's processes were killed with it\n");
        exit_code = forced_exit_ >= 0 ? forced_exit_ : 1;
        return true;
    }
    return on_host_lost(from, proto::HostLoss::link_closed, 0, exit_code);
}

bool JobMonitor::on_host_lost(std::size_t from, proto::HostLoss cause, long long silence_ms, int& exit_code) {
    Spoke& s = spokes_[from];
    s.open = false;
    if (liveness_) liveness_->forget(from);
    // A silent link may come back: the daemon must then see it closed (and fence itself off).
    if (cause == proto::HostLoss::heartbeat_timeout) shutdown(s.fd, SHUT_RDWR);
    if (s.ended) return false;
    s.lost = true;
    table_.changed();
    relay_->flush_partial();
    if (s.idle) {
        // Every process it was given had exited: the job loses nothing, in any mode; it only
        // cannot take replacements any more.
        say("ftmpi: host " + s.host_name + " lost (" + proto::to_string(cause) +
            "); none of the job's processes was running there\n");
        respawn_.host_lost(spokes_, from);
        if (!killing_ && !decided_ && forced_exit_ < 0) spares_.host_lost(spokes_, from);
        for (const Spoke& other : spokes_)
            if (other.open && !other.ended) {
                release_if_idle();
                return false;
            }
        exit_code = combined_exit_code();
        return true;
    }
    proto::HostFailed lost;
    lost.host_index = s.host;
    lost.hostname = s.host_name;
    lost.cause = cause;
    lost.ranks = ranks_on_host(s.host, host_of_rank_);
    bool others_alive = false;
    for (std::size_t i = 0; i < spokes_.size(); ++i)
        others_alive = others_alive || (i != from && spokes_[i].open && !spokes_[i].ended && spokes_[i].ranks_alive > 0);
    const bool ending = killing_ || decided_ || forced_exit_ >= 0;
    // Launched in ABORT mode, the job survives a host once the application left ABORT mode
    // (FTMPI_Comm_set_mode: modes are per communicator, SPEC 4.2; a daemon told us). Heard of
    // no such switch, the loss may still have followed one whose failures_trapped is on its
    // way: then the surviving daemons decide, each after reading its ranks' records (one whose
    // processes are all still in ABORT mode ends the job: job_hub_link.cpp), and their first
    // job_ended decides here (on_job_ended). With nobody left to ask, the job ends here.
    AbortLeft left = AbortLeft::no;
    if (comm_mode_ == proto::CommMode::abort)
        left = failures_trapped_ ? AbortLeft::yes : others_alive ? AbortLeft::maybe : AbortLeft::no;
    const bool survive = (comm_mode_ != proto::CommMode::abort || left != AbortLeft::no) && !ending;
    if (survive) {
        // Every process of the host at once: each daemon tells its ranks in ONE event, so the
        // application repairs once (its daemon, if alive but cut off, has fenced itself off).
        say(format_host_loss(lost, comm_mode_, silence_ms, left));
        const auto frame = proto::encode(lost);
        for (std::size_t i = 0; i < spokes_.size(); ++i)
            if (i != from && spokes_[i].open && !spokes_[i].ended) (void)proto::write_all(spokes_[i].fd, frame);
        s.ranks_failed += s.ranks_alive;
        if (!others_alive && !first_failure_) {
            proto::RankExited none;  // nobody is left anywhere: the job failed
            none.code = 1;
            first_failure_ = none;
        }
    } else {
        if (!killing_ && !decided_ && forced_exit_ < 0) say(format_host_loss(lost, proto::CommMode::abort, silence_ms));
        else say("ftmpi: lost connection to the daemon on host " + s.host_name + "\n");
        if (!decided_ && forced_exit_ < 0) {
            proto::JobEnded end;
            end.exit_code = 1;
            end.reason = proto::JobEndReason::rank_failed;
            end.message = "host " + s.host_name + " lost";
            decided_ = end;
        }
        kill_others(from);
    }
    s.ranks_alive = 0;
    respawn_.host_lost(spokes_, from);
    if (survive) spares_.host_lost(spokes_, from);  // its spares' indices go to live hosts
    hub_->participants_changed(spokes_, true);
    for (const Spoke& other : spokes_)
        if (other.open && !other.ended) {
            release_if_idle();
            return false;
        }
    exit_code = combined_exit_code();
    return true;
}

int JobMonitor::combined_exit_code() const {
    if (forced_exit_ >= 0) return forced_exit_;
    if (decided_) return normalize_exit(decided_->exit_code);
    // Every daemon completed. A daemon's non-zero code while some of its ranks did not fail is
    // a rank that finalized and then exited non-zero: the job's result.
    bool some_ok = false;
    for (const Spoke& s : spokes_) {
        if (s.ended && s.ended->exit_code != 0 && s.ranks_ok > 0) return normalize_exit(s.ended->exit_code);
        some_ok = some_ok || s.ranks_ok > 0;
    }
    if (some_ok) return 0;
    // Every rank of every host failed: the first failure's code.
    if (first_failure_) return normalize_exit(failure_code(*first_failure_));
    for (const Spoke& s : spokes_)
        if (s.ended && s.ended->exit_code != 0) return normalize_exit(s.ended->exit_code);
    return 0;
}

}  // namespace ftmpi::mpirun
