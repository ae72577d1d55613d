// Relay of the ranks' stdout/stderr to the launcher, with back-pressure: when the launcher
// reads slower than the ranks write, the pipes are unwatched until its queue drains, so the
// ranks block in write() instead of the daemon buffering without bound.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "job_supervisor.h"

namespace ftmpi::daemon {

namespace {
int& pipe_fd(RankProc& r, proto::OutputStream s) { return s == proto::OutputStream::out ? r.out_fd : r.err_fd; }
}  // namespace

void JobSupervisor::watch_pipes(Job& job, RankProc& rank) {
    if (job.output_paused) return;
    for (auto stream : {proto::OutputStream::out, proto::OutputStream::err}) {
        int fd = pipe_fd(rank, stream);
        if (fd < 0) continue;
        std::string id = job.id;
        std::uint32_t r = rank.rank;
        loop_.add_fd(fd, EPOLLIN, [this, id, r, stream](std::uint32_t) { on_pipe_readable(id, r, stream); });
    }
}

void JobSupervisor::on_pipe_readable(const std::string& job_id, std::uint32_t rank, proto::OutputStream stream) {
    Job* job = job_by_id(job_id);
    if (job == nullptr || rank >= job->ranks.size()) return;
    pump(*job, job->ranks[rank], stream, 4);
    if (job->client != 0 && control_.congested(job->client)) pause_output(*job);
    // The pipe's EOF may have been the last thing the job was waiting for.
    if (!job->pipes_open() && job->all_exited()) finish(job_id);
}

void JobSupervisor::pump(Job& job, RankProc& rank, proto::OutputStream stream, int max_reads) {
    int& fd = pipe_fd(rank, stream);
    char buf[65536];
    for (int i = 0; i < max_reads && fd >= 0; ++i) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        if (n <= 0) {
            close_pipe(rank, stream);
            return;
        }
        proto::OutputChunk chunk;
        chunk.rank = rank.world_rank;
        chunk.stream = stream;
        chunk.bytes.assign(buf, static_cast<std::size_t>(n));
        send_to_client(job, proto::encode(chunk));
    }
}

void JobSupervisor::close_pipe(RankProc& rank, proto::OutputStream stream) {
    int& fd = pipe_fd(rank, stream);
    if (fd < 0) return;
    loop_.remove_fd(fd);
    close(fd);
    fd = -1;
}

void JobSupervisor::pause_output(Job& job) {
    if (job.output_paused) return;
    job.output_paused = true;
    // Removing the descriptors (rather than clearing their event mask) matters: epoll reports
    // EPOLLHUP even for an empty mask, which would spin the loop once a writer exits.
    for (auto& r : job.ranks) {
        if (r.out_fd >= 0) loop_.remove_fd(r.out_fd);
        if (r.err_fd >= 0) loop_.remove_fd(r.err_fd);
    }
}

void JobSupervisor::resume_output(Job& job) {
    if (!job.output_paused) return;
    job.output_paused = false;
    for (auto& r : job.ranks) watch_pipes(job, r);
}

void JobSupervisor::client_drained(std::uint64_t client) {
    Job* job = job_for_client(client);
    if (job != nullptr) resume_output(*job);
}

}  // namespace ftmpi::daemon
