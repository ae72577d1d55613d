// Which core a new process of a job is bound to (mpirun --bind-to, FTMPI_BIND). Pure decisions,
// no hwloc and no processes here (unit-tested); core_binder.h turns a core index into a CPU set.
//
// Like Open MPI: `auto` (the default) binds each process to a core of its own while the job's
// processes on this host fit on its cores, and binds nothing when they do not (oversubscribed:
// a process pinned to a core could wait for a busy neighbour there while another core idles;
// the kernel balances better). `core` always binds, the least loaded core first (round robin
// at launch, so 8 ranks on 2 cores share them 4 and 4). `none` never binds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ftmpi::daemon {

enum class BindPolicy : std::uint8_t { automatic, core, none };

std::optional<BindPolicy> parse_bind_policy(std::string_view text);
const char* to_string(BindPolicy policy);

// The job's policy from its environment (FTMPI_BIND=..., set by mpirun from --bind-to or its
// own environment); `fallback` when absent or invalid (mpirun refuses invalid values already).
BindPolicy job_bind_policy(const std::vector<std::string>& env, BindPolicy fallback);
// FTMPI_REPORT_BINDINGS=1 in the job's environment (mpirun --report-bindings).
bool job_reports_bindings(const std::vector<std::string>& env);

// The core for one more process of a job, or -1 to leave it unbound. `job_local` is how many
// of the job's processes will run on this host, the new one included; `busy[c]` counts the
// live processes (of every job of this daemon) bound to core c; ncores == busy.size().
int choose_core(BindPolicy policy, std::uint32_t job_local, const std::vector<std::uint32_t>& busy);

// One line for --report-bindings, e.g. "ftmpi: rank 1 (pid 42) on node7: bound to core 1 (cpus 1)".
std::string describe_binding(std::uint32_t world_rank, long pid, const std::string& host, int core,
                             const std::string& cpus, BindPolicy policy, std::uint32_t job_local,
                             std::uint32_t ncores);

}  // namespace ftmpi::daemon
