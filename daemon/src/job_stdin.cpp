// mpirun's standard input, forwarded to rank 0 (stdin_chunk): the daemon holds what the pipe
// cannot take yet and writes it when the pipe drains, so a rank that does not read never
// blocks the loop. mpirun's end of file closes rank 0's stdin once everything was written.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "job_supervisor.h"
#include "log.h"

namespace ftmpi::daemon {

void JobSupervisor::stdin_data(std::uint64_t client, const proto::StdinChunk& chunk) {
    Job* job = job_for_client(client);
    if (job == nullptr || job->ranks.empty()) return;
    RankProc& r = job->ranks[0];
    if (r.remote || r.in_fd < 0) return;  // not ours, not forwarded, or already closed
    r.in_pending += chunk.bytes;
    r.in_eof = r.in_eof || chunk.eof;
    flush_stdin(r);
}

void JobSupervisor::flush_stdin(RankProc& r) {
    while (!r.in_pending.empty()) {
        ssize_t n = write(r.in_fd, r.in_pending.data(), r.in_pending.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n <= 0) {  // EPIPE: rank 0 closed its stdin or exited; the rest has nowhere to go
            r.in_pending.clear();
            r.in_eof = true;
            break;
        }
        r.in_pending.erase(0, static_cast<std::size_t>(n));
    }
    if (r.in_pending.empty() && r.in_eof) return close_stdin(r);
    const int fd = r.in_fd;
    if (!r.in_pending.empty() && !r.in_watched) {
        r.in_watched = true;
        // Woken when the pipe has room. The rank is found again by descriptor: RankProc
        // addresses move when REBUILD appends processes.
        loop_.add_fd(fd, EPOLLOUT, [this, fd](std::uint32_t) {
            for (auto& [id, job] : jobs_)
                for (RankProc& p : job->ranks)
                    if (p.in_fd == fd) return flush_stdin(p);
        });
    } else if (r.in_pending.empty() && r.in_watched) {
        r.in_watched = false;
        loop_.remove_fd(fd);
    }
}

void JobSupervisor::close_stdin(RankProc& r) {
    if (r.in_fd < 0) return;
    if (r.in_watched) loop_.remove_fd(r.in_fd);
    r.in_watched = false;
    close(r.in_fd);
    r.in_fd = -1;
    r.in_pending.clear();
}

}  // namespace ftmpi::daemon
