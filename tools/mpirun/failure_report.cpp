// Formatting of failure reports, and the one way mpirun writes its lines to stderr.
#include "failure_report.h"

#include <cstdio>
#include <cstring>
#include <ctime>

#include <unistd.h>

#include "output_relay.h"

namespace ftmpi::mpirun {

namespace {

std::string clock_time(std::uint64_t ms) {
    time_t secs = static_cast<time_t>(ms / 1000);
    tm t{};
    localtime_r(&secs, &t);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02d:%02d:%02d.%03u", t.tm_hour, t.tm_min, t.tm_sec,
                  static_cast<unsigned>(ms % 1000));
    return buf;
}

const char* repair_of(proto::CommMode mode) {
    switch (mode) {
        case proto::CommMode::shrink: return "SHRINK: survivors renumbered without it";
        case proto::CommMode::blank: return "BLANK: its rank is left as a gap";
        // The survivors ask for the replacement when they repair MPI_COMM_WORLD.
        case proto::CommMode::rebuild: return "REBUILD: a replacement takes its rank at the repair";
        case proto::CommMode::rebuild_append: return "REBUILD_APPEND: a replacement is appended at the repair";
        case proto::CommMode::ulfm: return "ULFM: the application revokes, shrinks and agrees";
        // A job launched in ABORT mode continues only when the application switched its
        // communicators to another mode (FTMPI_Comm_set_mode): they repair as they were set.
        default: return "ABORT left by the application: each communicator repairs by its own mode";
    }
}

}  // namespace

std::string format_rank_failure(const proto::RankExited& m, proto::CommMode mode, const std::string& host) {
    std::string s = "ftmpi: rank " + std::to_string(m.rank) + " (pid " + std::to_string(m.pid) +
                    (host.empty() ? "" : " on " + host) + ") ";
    if (m.signaled) {
        const char* name = strsignal(m.code);
        s += "killed by signal " + std::to_string(m.code) + " (" + (name != nullptr ? name : "?") + ")";
    } else if (m.code != 0) {
        s += "exited with status " + std::to_string(m.code);
    } else {
        s += "exited without calling MPI_Finalize";
    }
    if (m.job_continues) {
        s += " at " + clock_time(m.time_ms) + "; the job continues (" + repair_of(mode) + ")";
    }
    return s + "\n";
}

std::string format_abort(const proto::AbortRequested& m) {
    // The rank's reason (MPI_Abort, a fatal error) comes without rank or code: named once, here.
    std::string s = "ftmpi: rank " + std::to_string(m.rank) + " aborted the job with code " + std::to_string(m.code);
    if (!m.message.empty()) s += ": " + m.message;
    return s + "\n";
}

void say(const std::string& line) { write_fd(STDERR_FILENO, line.data(), line.size()); }

}  // namespace ftmpi::mpirun
