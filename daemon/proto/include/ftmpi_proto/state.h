// State tables for the tools (cominfo, hostinfo) and the ranks' communicator reports.
//
//   tool   -> query_state (empty payload)        daemon -> job_table (a whole Snapshot)
//   rank   -> datagram on $FTMPI_MONITOR_SOCKET   (CommReport, see ftmpi/src/monitor.cpp)
//
// A Snapshot is self-contained: the daemon (host, pid, load, uptime) and every job it runs,
// with the job's processes and the communicators its ranks reported. Process states inside a
// communicator already include what the daemon knows itself (a dead rank is FAILED at once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/host_table.h"
#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

// Values as in ftmpi.h (FTMPI_COMM_*, FTMPI_PROC_*, FTMPI_COMM_MODE_*, FTMPI_MSG_MODE_*).
enum class CommStateV : std::uint8_t { ok, detected, recover, recovered, failed, count_ };
enum class ProcStateV : std::uint8_t { ok, unavailable, joining, failed, count_ };
enum class CommModeV : std::uint8_t { abort, shrink, blank, rebuild, rebuild_append, ulfm, count_ };
enum class MsgModeV : std::uint8_t { nop, cont, count_ };
// A process as its daemon sees it.
enum class RunStateV : std::uint8_t { starting, running, finalized, exited, failed, count_ };

const char* to_string(CommStateV s) noexcept;  // "OK", "DETECTED", ...
const char* to_string(ProcStateV s) noexcept;  // "OK", "UNAVAILABLE", "JOINING", "FAILED"
const char* to_string(CommModeV m) noexcept;   // "ABORT", "SHRINK", "BLANK", "REBUILD", "REBUILD_APPEND", "ULFM"
const char* to_string(MsgModeV m) noexcept;    // "NOP", "CONT"
const char* to_string(RunStateV s) noexcept;   // "starting", "running", ...

struct CommProcInfo {
    std::uint32_t rank = 0;        // rank in the communicator
    std::uint32_t world_rank = 0;  // = index into JobInfo::procs
    ProcStateV state = ProcStateV::ok;
};

struct CommInfo {
    std::string name;
    std::uint32_t context_id = 0;   // current point-to-point context id
    std::uint32_t key_context = 0;  // context id at creation (a NOP repair changes context_id)
    std::uint32_t leader = 0;       // lowest member's world rank; with key_context names it in the job
    CommStateV state = CommStateV::ok;
    CommModeV comm_mode = CommModeV::abort;
    MsgModeV msg_mode = MsgModeV::nop;
    std::vector<CommProcInfo> procs;
    std::uint32_t size() const { return static_cast<std::uint32_t>(procs.size()); }
    std::uint32_t valid() const;  // processes in state OK
};

struct ProcInfo {
    std::uint32_t rank = 0;  // world rank
    std::int32_t pid = 0;
    std::string host;
    RunStateV state = RunStateV::starting;
    std::int32_t exit_code = 0;  // exit status, or 128+signal
    std::uint64_t cpu_ms = 0;    // user+system CPU time so far (0 once gone)
};

struct JobInfo {
    std::string id;
    std::string program;  // argv[0]
    std::uint32_t nprocs = 0;
    CommModeV comm_mode = CommModeV::abort;
    MsgModeV msg_mode = MsgModeV::nop;
    std::uint64_t start_ms = 0;
    std::vector<ProcInfo> procs;
    std::vector<CommInfo> comms;
    std::vector<JobHost> hosts;  // host_table.h: mpirun's table, or this host alone
};

struct HostInfo {
    std::string hostname;
    std::string address;  // control socket path (TCP address once several hosts exist)
    std::int32_t daemon_pid = 0;
    bool private_daemon = false;
    std::uint64_t start_ms = 0;
    std::uint64_t now_ms = 0;
    std::uint32_t ncores = 0;
    std::uint32_t load_x100[3] = {0, 0, 0};  // /proc/loadavg times 100
};

struct Snapshot {
    HostInfo host;
    std::vector<JobInfo> jobs;
};

std::vector<std::uint8_t> encode_query_state(bool with_cpu = false);  // payload: u32 flags, bit 0 = CPU times
std::vector<std::uint8_t> encode(const Snapshot& s);  // a job_table frame
struct Frame;
ProtoStatus decode(const Frame& f, Snapshot& out);

// A rank's report, sent as one Unix datagram (no frame header):
//   u32 magic 'FTMR' | u8 version 1 | u8 kind (1 update, 2 freed, 3 finalized, 4 traps_failures)
//   | str jobid | u32 world rank
//   | u32 key_context | u32 leader | [update: u32 context | str name | u8 state | u8 comm_mode | u8 msg_mode
//   | u32 size | size x (u32 world rank, u8 proc state)]
inline constexpr std::uint32_t kReportMagic = 0x524D5446u;  // "FTMR"
// `finalized`: the rank is inside MPI_Finalize and will exit normally (key fields 0). PMIx's own
// finalize message can be lost: the client gives up waiting for the server's answer after 2 s
// and exits, so on a starved machine the daemon could reap the rank before hearing of it and
// report a failure. This datagram is written by the rank itself before it exits, and the daemon
// reads its socket before reaping (Daemon::on_signals), so it is never late.
// `traps_failures`: in a job launched in ABORT mode the application switched a communicator to
// another mode (FTMPI_Comm_set_mode; modes are per communicator, SPEC 4.2). From then on this
// rank's daemon reports a death like in the other modes instead of ending the job, and the
// processes' communicators decide (one still in ABORT mode aborts the job from the library).
// Sent before FTMPI_Comm_set_mode returns and read before the daemon judges an exit, as above.
enum class ReportKind : std::uint8_t { update = 1, freed = 2, finalized = 3, traps_failures = 4 };
struct CommReport {
    ReportKind kind = ReportKind::update;
    std::string jobid;
    std::uint32_t reporter = 0;  // world rank of the sender
    CommInfo comm;               // for `freed`, only key_context and leader
};
std::vector<std::uint8_t> encode_report(const CommReport& r);
ProtoStatus decode_report(const std::uint8_t* data, std::size_t n, CommReport& out);

// Discovery of running daemons: each writes its socket path to
// /tmp/ftmpi-$UID/daemons/<pid> and removes it when it stops.
std::string daemon_registry_dir();
std::string daemon_registry_file(int pid);

}  // namespace ftmpi::proto
