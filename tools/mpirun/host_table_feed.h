// mpirun's host table for the tools (issue 15 item 7; message in ftmpi_proto/host_table.h).
// mpirun is the only one that knows every host of a job on several hosts: which daemon serves
// it, which processes it runs, whether it still lives and when it was last heard. It sends that
// table to the daemon on its own host, where hostinfo and cominfo find it: the job's own entry
// there when ranks run on mpirun's host, else a mirror entry (job_mirror) that mpirun asked for.
// Sent at the start, at once after every change (a host lost, processes placed), and every
// refresh period so that the heartbeat ages the tools show stay current. The communicator
// reports of the other hosts' ranks take the same way (forward), so that cominfo there shows
// every communicator of the job.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "ftmpi_proto/host_table.h"
#include "spoke.h"

namespace ftmpi::mpirun {

class HostTableFeed {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kRefresh{250};

    // The local daemon's control connection (not owned); -1: nobody to tell.
    void set_sink(int fd) noexcept { sink_ = fd; }
    bool active() const noexcept { return sink_ >= 0; }
    void changed() noexcept { dirty_ = true; }
    // Sends the table when it changed or the refresh period passed.
    void tick(const std::vector<Spoke>& spokes, const std::vector<std::uint32_t>& host_of_process,
              const std::vector<std::uint32_t>& world_rank_of, Clock::time_point now);
    std::optional<Clock::time_point> next_deadline() const;
    // A remote rank's communicator report (comm_report_relay) for the tools: passed on as is.
    void forward(const std::vector<std::uint8_t>& frame);

    // One row per daemon of the job, in host order: failed when mpirun lost it; the world
    // ranks of the processes placed there (replacements included: they show the rank they
    // took); when its daemon was last heard (0: mpirun's own host, which is not watched).
    static proto::HostTableUpdate build(const std::vector<Spoke>& spokes,
                                        const std::vector<std::uint32_t>& host_of_process,
                                        const std::vector<std::uint32_t>& world_rank_of);

private:
    int sink_ = -1;
    bool dirty_ = true;
    std::optional<Clock::time_point> last_sent_;
};

}  // namespace ftmpi::mpirun
