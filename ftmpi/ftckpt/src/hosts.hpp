// Which host every member of an epoch runs on, for the host-aware placement (placement.hpp).
//
// Each process names its host by a 63-bit key: FNV-1a of MPI_Get_processor_name (the real
// host name on every host of a job), or of the name given to FTCKPT_Test_host_name. Keys
// travel in collectives the library makes anyway where it can: at FTCKPT_Init one allgather
// (Init is collective and communicates already), at FTCKPT_Recover inside the metadata
// allreduce (exchange_meta), never in a save. A key collision (two hosts taken for one) only
// weakens the placement to "copies may share that pair of hosts"; it never breaks recovery,
// since every member computes the same placement from the same keys.
#pragma once

#include <cstdint>
#include <vector>

#include "ckpt_state.hpp"
#include "ftckpt/placement.hpp"

namespace ftckpt {

// This process's host key, > 0 (0 marks "no entry": a BLANK gap).
std::uint64_t my_host_key();

// Epoch rank -> host number from one key per rank. A gap (key 0) joins the host of the
// nearest member before it (after it for leading gaps): it holds nothing, and this keeps a
// one-host job one host. All keys equal (or all 0): empty, i.e. one host.
std::vector<int> hosts_from_keys(const std::vector<std::uint64_t>& keys);

// The placement of epoch e: formula (1) with one host, host-aware with several.
Placement epoch_placement(const Epoch& e, int df, int sd);

}  // namespace ftckpt
