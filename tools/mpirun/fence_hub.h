// PMIx fences with data collection across hosts: mpirun gathers each daemon's local part and
// sends the concatenation to all of them, as PRRTE's grpcomm allgather does for its daemons.
//
// A fence is known by its participants' signature and the daemon's count of fences with that
// signature (FenceContribution). It completes when every daemon that still has a live
// participant has contributed; a daemon whose participants all died never contributes (PMIx
// on its host has nobody left to fence), so it is not waited for. A death while a fence is
// pending makes the result partial, as PMIx reports on one host (PMIX_ERR_PARTIAL_SUCCESS).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ftmpi_proto/hub_messages.h"
#include "spoke.h"

namespace ftmpi::mpirun {

class FenceHub {
public:
    // host_of_rank: the job's placement (index = rank), to know which hosts a signature names.
    explicit FenceHub(std::vector<std::uint32_t> host_of_rank) : host_of_rank_(std::move(host_of_rank)) {}

    // A daemon's local part; sends the results of fences that are now complete.
    void contribute(std::vector<Spoke>& spokes, std::size_t from, proto::FenceContribution c);
    // A rank exited or a daemon is gone: pending fences may now be complete; after a failure
    // (`death`) they are partial.
    void participants_changed(std::vector<Spoke>& spokes, bool death);

    std::size_t pending() const noexcept { return pending_.size(); }

private:
    struct Pending {
        std::map<std::size_t, std::string> blobs;  // by spoke index, so the order is stable
        bool partial = false;
    };
    using Key = std::pair<std::string, std::uint32_t>;

    bool needed(const Spoke& s, const std::string& signature) const;
    void complete_ready(std::vector<Spoke>& spokes);

    std::vector<std::uint32_t> host_of_rank_;
    std::map<Key, Pending> pending_;
};

}  // namespace ftmpi::mpirun
