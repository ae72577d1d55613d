// One job's state on this host and the exit rules of daemon/README.md (SPEC 4.7).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "ftmpi_proto/hub_messages.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/state.h"
#include "upcall_queue.h"

namespace ftmpi::daemon {

struct RankProc {
    std::uint32_t rank = 0;        // process index (PMIx rank)
    std::uint32_t world_rank = 0;  // what users see: a REBUILD replacement shows the rank it took
    std::uint32_t local_rank = 0;  // index among the job's processes on this host
    int core = -1;                 // the core it is bound to (job_binding.cpp); -1: unbound
    // Several hosts: a process of this job placed on another host. Never forked here; `exited`
    // and `failed` become true when mpirun relays its failure (procs_failed).
    bool remote = false;
    pid_t pid = -1;        // also its process group id
    int out_fd = -1;       // -1 once closed (EOF)
    int err_fd = -1;
    // Forwarded stdin (rank 0 when mpirun forwards it; job_stdin.cpp): write end, bytes not yet
    // taken by the pipe, and whether mpirun's stdin ended (close once the bytes are written).
    int in_fd = -1;
    std::string in_pending;
    bool in_eof = false;
    bool in_watched = false;  // waiting for the pipe to take more
    bool connected = false;  // PMIx client_connected seen
    bool finalized = false;  // PMIx client_finalized seen
    bool exited = false;
    int wait_status = 0;
    bool failed = false;
    std::uint64_t exit_time_ms = 0;
};

// A hot spare (job_spares.cpp): a process of the job that waits inside MPI_Init with a process
// index of its own, outside MPI_COMM_WORLD, until a REBUILD hands it a failed rank.
struct SpareProc {
    std::uint32_t index = 0;  // its PMIx rank: the process index it takes when used
    pid_t pid = -1;           // also its process group id
    int out_fd = -1;          // its output pipes, read only once it holds a rank
    int err_fd = -1;
    int assign_fd = -1;       // write end of its FTMPI_SPARE_FD pipe
    bool connected = false;   // PMIx client_connected seen
};

// A communicator as its members last reported it (tools' state table, job_state.cpp). Keyed by
// (context id, leader world rank): disjoint communicators from one split share a context id.
struct CommEntry {
    proto::CommInfo info;
    std::set<std::uint32_t> holders;  // world ranks that reported it and have not freed it
};

enum class JobPhase : std::uint8_t {
    running,  // normal operation
    killing,  // outcome decided; SIGTERM sent, SIGKILL pending
};

struct Job {
    std::string id;             // FTMPI_JOBID, shown by the tools
    // The PMIx namespace: `id` plus 128 random bits. A PMIx client names its namespace in its
    // handshake and PMIx refuses unknown ones, so only a process told it (in its environment,
    // which other users cannot read) can join: the job secret of SPEC 5.2. Never logged or shown.
    std::string pmix_nspace;
    proto::LaunchJob spec;
    std::string exe;            // the resolved program; REBUILD replacements run it too
    // Random per job, in its processes' environment only (FTMPI_EVENT_SEAL) and in every
    // failure event the daemon sends: the library believes no failure event without it, so a
    // process's own PMIx_Notify_event cannot declare a peer dead (SPEC 5.2).
    std::string event_seal;
    std::uint64_t client = 0;   // control connection that launched it; 0 once gone
    std::vector<RankProc> ranks;
    JobPhase phase = JobPhase::running;
    std::optional<proto::JobEnded> outcome;  // first decided outcome wins
    std::optional<int> first_failure_code;  // non-ABORT modes: exit code if no rank survives
    // A rank that finished MPI (finalized) and then exited non-zero: not a failure the job
    // survives, but the job's result (SPEC 4.7: every process still in the job must exit 0).
    std::optional<int> finalized_error_code;
    // Launched in ABORT mode, but a rank here switched a communicator to another mode
    // (ReportKind::traps_failures): deaths are reported, not fatal (job_ending.cpp), and so
    // is another host's loss (job_hub_link.cpp; mpirun is told, host_messages.h).
    bool failures_trapped = false;
    std::uint64_t kill_timer = 0;
    std::uint64_t drain_timer = 0;
    bool output_paused = false;
    std::uint64_t start_ms = 0;
    std::map<std::pair<std::uint32_t, std::uint32_t>, CommEntry> comms;
    // Several hosts: this host's part of the job (absent for a job on one host), the fences
    // whose local part went to mpirun and wait for everybody's data, and how many fences of
    // each participant set this daemon has seen (the key that matches them across hosts).
    std::optional<proto::JobSlice> slice;
    std::map<std::pair<std::string, std::uint32_t>, Upcall> pending_fences;
    std::map<std::string, std::uint32_t> fence_count;
    // Hot spares by process index, how many to keep (FTMPI_SPARES; 0 once the job ends), and
    // the lowest process index that neither a spare nor a process of the job has had.
    std::map<std::uint32_t, SpareProc> spares;
    std::uint32_t spares_wanted = 0;
    std::uint32_t next_spare_index = 0;
    std::uint32_t spare_restarts = 0;  // spares that died while waiting and were started again
    // The newest host table mpirun pushed (host_table_update); empty: this host alone.
    std::vector<proto::JobHost> host_table;
    // Several hosts: the daemon's part does not end when its processes have all exited (it may
    // still take replacements) but when mpirun releases the job (job_release), i.e. once every
    // host is idle. `idle_reported`: the process count of the last host_idle sent (0: none).
    bool released = false;
    std::uint32_t idle_reported = 0;
    // A job mirrored for the tools (job_mirror): its ranks all run on other hosts; this entry
    // only carries mpirun's host table. No PMIx namespace, no process; it lives as long as the
    // connection of the mpirun that sent it.
    bool mirror = false;

    // Local processes only: a remote one is another daemon's.
    bool all_exited() const;
    bool pipes_open() const;
    RankProc* find_pid(pid_t pid);
    // True while some rank other than `rank` has not exited (and can be told of a failure);
    // a remote process counts until its failure is relayed.
    bool others_alive(std::uint32_t rank) const;
    // ABORT mode ends the job at a failure, unless the application switched one of its
    // communicators out of ABORT mode (FTMPI_Comm_set_mode; modes are per communicator, SPEC
    // 4.2): then the failure is reported like in the other modes and the processes'
    // communicators decide (one still in ABORT mode aborts the job from the library, ft.cpp).
    bool aborts_on_failure() const { return spec.comm_mode == proto::CommMode::abort && !failures_trapped; }
};

// A rank failed if it was killed by a signal, exited non-zero, or connected to PMIx and exited
// without finalizing. A process that never connected and exited 0 (e.g. `hostname`) is fine.
bool rank_failed(const RankProc& r);

// mpirun's exit code when this rank's failure decides the job: its exit status, 128+signal for
// a signal, 1 for a clean exit without PMIx_Finalize.
int failure_exit_code(const RankProc& r);

proto::RankExited describe_exit(const RankProc& r, bool job_continues);

// Exit code when every rank has exited without an earlier decided outcome (non-ABORT modes or
// no failure): 0 when at least one rank is still in the job, i.e. did not fail; a failed rank
// is out of the job, and every rank that did not fail finalized and exited 0 by definition.
int completed_exit_code(const Job& job);

// Human-readable "rank 1 (pid 42) killed by signal 9 (Killed)" etc.
std::string describe_failure(const RankProc& r);

std::uint64_t wall_clock_ms();

}  // namespace ftmpi::daemon
