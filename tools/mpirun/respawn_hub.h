// REBUILD across hosts, mpirun's part (issue 15 item 4; messages in host_messages.h): a
// daemon's spawn request is placed here, on the least loaded surviving hosts first, every daemon
// learns where the new processes run, and the requester's daemon hears once every chosen daemon
// started its share. Direct-modex requests for a process's data are routed to the daemon of its
// host, and the replies back to the asking host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ftmpi_proto/host_messages.h"
#include "spoke.h"

namespace ftmpi::mpirun {

class RespawnHub {
public:
    // `host_of_rank` (index = process index) grows by the new processes. `chosen[i]`, when
    // not kNoHost, is the host of process base + i already (a hot spare there takes it,
    // spare_hub.h); the others are placed by load.
    static constexpr std::uint32_t kNoHost = 0xffffffffu;
    void spawn_request(std::vector<Spoke>& spokes, std::size_t from, proto::SpawnRequest m,
                       std::vector<std::uint32_t>& host_of_rank, const std::vector<std::uint32_t>& chosen = {});
    void spawn_started(std::vector<Spoke>& spokes, std::size_t from, const proto::SpawnStarted& m);
    void modex_request(std::vector<Spoke>& spokes, std::size_t from, proto::ModexRequest m,
                       const std::vector<std::uint32_t>& host_of_rank);
    void modex_reply(std::vector<Spoke>& spokes, const proto::ModexReply& m);
    // Placements still waiting for their daemons' answers.
    bool pending() const noexcept { return !pending_.empty(); }
    // A host is gone: what it was to start counts as not started.
    void host_lost(std::vector<Spoke>& spokes, std::size_t lost);

    // The host of each of `count` new processes: the live spoke with the fewest live ranks
    // first (ties: the lower host index), counting the ones placed so far. Empty when no
    // daemon is left.
    static std::vector<std::uint32_t> place(const std::vector<Spoke>& spokes, std::uint32_t count,
                                            const std::vector<std::uint32_t>& chosen = {});

private:
    struct Pending {
        std::size_t origin = 0;          // the requester's spoke
        std::uint32_t request = 0;       // its daemon's number
        std::set<std::size_t> awaiting;  // chosen spokes that have not answered
        bool ok = true;
    };
    void finish_if_answered(std::vector<Spoke>& spokes, std::map<std::pair<std::uint32_t, std::uint32_t>, Pending>::iterator it);

    std::map<std::pair<std::uint32_t, std::uint32_t>, Pending> pending_;  // by (origin host, request)
};

}  // namespace ftmpi::mpirun
