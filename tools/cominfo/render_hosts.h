// The job's hosts as the tools show them: mpirun's host table (ftmpi_proto/host_table.h),
// which the local daemon keeps and puts in its Snapshot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/state.h"
#include "render.h"

namespace ftmpi::tools {

// The process entry of world rank wr, or null (a daemon lists only the ranks it runs).
const proto::ProcInfo* proc_of(const proto::JobInfo& job, std::uint32_t wr);

// Host running world rank wr: the daemon's own entry, else mpirun's host table, else "".
std::string host_of_rank(const proto::JobInfo& job, std::uint32_t wr);

// Ranks as compact ranges, e.g. "0-3,6"; "-" when empty.
std::string rank_ranges(std::vector<std::uint32_t> ranks);

// Milliseconds since mpirun last heard from the host's daemon (at the snapshot's time
// now_ms); -1 for mpirun's own host, whose daemon is reached locally (no heartbeat).
std::int64_t heartbeat_age_ms(const proto::JobHost& h, std::uint64_t now_ms);

// hostinfo: one line per host of the job ("host NAME  ok  daemon pid P  ranks 0-3 ...").
std::vector<Line> job_host_lines(const proto::JobInfo& job, std::uint64_t now_ms, std::size_t width);

// cominfo's heading: "  hosts: a [0-1]  b FAILED [2-3]"; nothing for a job on one host.
std::vector<Line> job_hosts_summary(const proto::JobInfo& job, std::size_t width);

}  // namespace ftmpi::tools
