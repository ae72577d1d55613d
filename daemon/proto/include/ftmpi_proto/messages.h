// The messages of the control protocol between mpirun/tools and ftmpid.
//
// Conversation of one job (client = mpirun):
//   client -> hello(token)          daemon -> hello_ack        (or the daemon drops the connection)
//   client -> launch_job            daemon -> job_started | job_ended(launch_failed)
//                                   daemon -> output_chunk*, rank_exited*, abort_requested?
//   client -> kill_job (optional)   daemon -> job_ended, then the daemon closes the connection
//
// Type numbers are grouped so that later features slot in without renumbering:
//   0x00xx session, 0x001x job control (implemented), 0x01xx state tables for cominfo/hostinfo,
//   0x02xx failure notification and recovery (REBUILD respawn), 0x03xx daemon-to-daemon.
// A receiver logs and skips an authenticated frame whose type it does not know.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/modes.h"
#include "ftmpi_proto/status.h"

namespace ftmpi::proto {

enum class MsgType : std::uint16_t {
    hello = 0x0001,
    hello_ack = 0x0002,
    error_reply = 0x0003,

    launch_job = 0x0010,
    job_started = 0x0011,
    output_chunk = 0x0012,
    rank_exited = 0x0013,
    job_ended = 0x0014,
    abort_requested = 0x0015,
    kill_job = 0x0016,

    // Reserved: state tables (cominfo/hostinfo). query_state asks for a snapshot; the daemon
    // answers with one table message each; comm_state_report is a rank's own report.
    query_state = 0x0100,
    job_table = 0x0101,
    proc_table = 0x0102,
    comm_table = 0x0103,
    host_table = 0x0104,
    comm_state_report = 0x0105,
    host_table_update = 0x0106,  // mpirun -> its local daemon: the job's hosts (host_table.h)
    job_mirror = 0x0107,         // mpirun -> its local daemon: a job with no rank here (host_table.h)
    comm_report_relay = 0x0108,  // a rank's comm report, remote daemon -> mpirun -> local daemon

    // Reserved: failure notification and recovery.
    proc_failed = 0x0200,       // daemon -> daemons/tools: a process died (beyond rank_exited)
    respawn_request = 0x0201,   // REBUILD: start replacements for failed ranks
    respawn_done = 0x0202,

    // Reserved: daemon-to-daemon (several hosts).
    daemon_hello = 0x0300,
    daemon_heartbeat = 0x0301,
};

const char* to_string(MsgType t) noexcept;

enum class ClientKind : std::uint8_t { launcher, tool, daemon, count_ };
enum class OutputStream : std::uint8_t { out, err, count_ };
enum class JobEndReason : std::uint8_t {
    completed,      // every rank exited; exit_code follows the exit rules
    rank_failed,    // ABORT mode: a rank failed and the rest were killed
    aborted,        // a rank called PMIx_Abort / MPI_Abort
    killed,         // the client asked (kill_job)
    launch_failed,  // nothing or not everything could be started
    daemon_shutdown,
    count_
};
enum class KillReason : std::uint8_t { user_signal, timeout, client_request, count_ };

struct Hello {
    static constexpr MsgType kType = MsgType::hello;
    std::uint32_t protocol_version = kProtocolVersion;
    ClientKind kind = ClientKind::launcher;
    std::string token;  // contents of the daemon's token file
};

struct HelloAck {
    static constexpr MsgType kType = MsgType::hello_ack;
    std::uint32_t protocol_version = kProtocolVersion;
    std::int32_t daemon_pid = 0;
    std::string hostname;
};

struct ErrorReply {
    static constexpr MsgType kType = MsgType::error_reply;
    std::string message;
};

struct LaunchJob {
    static constexpr MsgType kType = MsgType::launch_job;
    std::vector<std::string> argv;  // argv[0] is resolved against PATH from `env` and `cwd`
    std::vector<std::string> env;   // complete environment, "NAME=value"
    std::string cwd;
    std::uint32_t nprocs = 0;
    CommMode comm_mode = CommMode::abort;
    MsgMode msg_mode = MsgMode::nop;
    bool tag_output = false;
    // mpirun forwards its standard input to rank 0 (stdin_chunk); otherwise every rank's stdin
    // is /dev/null.
    bool forward_stdin = false;
};

struct JobStarted {
    static constexpr MsgType kType = MsgType::job_started;
    std::string jobid;  // also the PMIx namespace
    std::vector<std::int32_t> pids;  // index = rank
};

struct OutputChunk {
    static constexpr MsgType kType = MsgType::output_chunk;
    std::uint32_t rank = 0;
    OutputStream stream = OutputStream::out;
    std::string bytes;  // arbitrary bytes, not necessarily whole lines
};

struct RankExited {
    static constexpr MsgType kType = MsgType::rank_exited;
    std::uint32_t rank = 0;
    std::int32_t pid = 0;
    bool signaled = false;       // true: `code` is a signal number; false: an exit status
    std::int32_t code = 0;
    bool connected = false;      // it had called PMIx_Init
    bool finalized = false;      // it had called PMIx_Finalize
    bool failed = false;         // by the exit rules (README)
    bool job_continues = false;  // failure survived (non-ABORT mode, others notified)
    std::uint64_t time_ms = 0;   // wall clock of the exit, ms since the epoch
};

struct JobEnded {
    static constexpr MsgType kType = MsgType::job_ended;
    std::int32_t exit_code = 0;  // what mpirun should exit with
    JobEndReason reason = JobEndReason::completed;
    std::string message;         // human-readable detail, may be empty
};

struct AbortRequested {
    static constexpr MsgType kType = MsgType::abort_requested;
    std::uint32_t rank = 0;
    std::int32_t code = 0;
    std::string message;
};

struct KillJob {
    static constexpr MsgType kType = MsgType::kill_job;
    KillReason reason = KillReason::client_request;
};

// encode() returns a complete frame (header + payload) ready to be written.
std::vector<std::uint8_t> encode(const Hello& m);
std::vector<std::uint8_t> encode(const HelloAck& m);
std::vector<std::uint8_t> encode(const ErrorReply& m);
std::vector<std::uint8_t> encode(const LaunchJob& m);
std::vector<std::uint8_t> encode(const JobStarted& m);
std::vector<std::uint8_t> encode(const OutputChunk& m);
std::vector<std::uint8_t> encode(const RankExited& m);
std::vector<std::uint8_t> encode(const JobEnded& m);
std::vector<std::uint8_t> encode(const AbortRequested& m);
std::vector<std::uint8_t> encode(const KillJob& m);

// decode() fills `out` only on ok; wrong_type if the frame carries another message.
ProtoStatus decode(const Frame& f, Hello& out);
ProtoStatus decode(const Frame& f, HelloAck& out);
ProtoStatus decode(const Frame& f, ErrorReply& out);
ProtoStatus decode(const Frame& f, LaunchJob& out);
ProtoStatus decode(const Frame& f, JobStarted& out);
ProtoStatus decode(const Frame& f, OutputChunk& out);
ProtoStatus decode(const Frame& f, RankExited& out);
ProtoStatus decode(const Frame& f, JobEnded& out);
ProtoStatus decode(const Frame& f, AbortRequested& out);
ProtoStatus decode(const Frame& f, KillJob& out);

// FTMPI_REPLACES=r0,r1,... in a spawn request's environment: the world ranks the new processes
// take (mpirun, the daemon and its respawn path all read it here).
std::vector<std::uint32_t> replaced_ranks(const std::vector<std::string>& env);

}  // namespace ftmpi::proto
