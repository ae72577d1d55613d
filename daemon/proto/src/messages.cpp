// Payload layouts of the control messages. Each message has one write_fields/read_fields pair
// so the field order is stated once per direction, side by side.
#include "ftmpi_proto/messages.h"

#include "ftmpi_proto/wire.h"

#include <cstdlib>

namespace ftmpi::proto {

std::vector<std::uint32_t> replaced_ranks(const std::vector<std::string>& env) {
    std::vector<std::uint32_t> out;
    for (const auto& e : env) {
        if (e.compare(0, 15, "FTMPI_REPLACES=") != 0) continue;
        const char* p = e.c_str() + 15;
        while (*p != '\0') {
            char* end = nullptr;
            unsigned long v = std::strtoul(p, &end, 10);
            if (end == p) break;
            out.push_back(static_cast<std::uint32_t>(v));
            p = *end == ',' ? end + 1 : end;
        }
    }
    return out;
}


const char* to_string(MsgType t) noexcept {
    switch (t) {
        case MsgType::hello: return "hello";
        case MsgType::hello_ack: return "hello_ack";
        case MsgType::error_reply: return "error_reply";
        case MsgType::launch_job: return "launch_job";
        case MsgType::job_started: return "job_started";
        case MsgType::output_chunk: return "output_chunk";
        case MsgType::rank_exited: return "rank_exited";
        case MsgType::job_ended: return "job_ended";
        case MsgType::abort_requested: return "abort_requested";
        case MsgType::kill_job: return "kill_job";
        case MsgType::query_state: return "query_state";
        case MsgType::job_table: return "job_table";
        case MsgType::proc_table: return "proc_table";
        case MsgType::comm_table: return "comm_table";
        case MsgType::host_table: return "host_table";
        case MsgType::host_table_update: return "host_table_update";
        case MsgType::job_mirror: return "job_mirror";
        case MsgType::comm_report_relay: return "comm_report_relay";
        case MsgType::comm_state_report: return "comm_state_report";
        case MsgType::proc_failed: return "proc_failed";
        case MsgType::respawn_request: return "respawn_request";
        case MsgType::respawn_done: return "respawn_done";
        case MsgType::daemon_hello: return "daemon_hello";
        case MsgType::daemon_heartbeat: return "daemon_heartbeat";
    }
    return "unknown";
}

namespace {

void write_fields(WireWriter& w, const Hello& m) {
    w.u32(m.protocol_version);
    w.u8(static_cast<std::uint8_t>(m.kind));
    w.str(m.token);
}
void read_fields(WireReader& r, Hello& m) {
    m.protocol_version = r.u32();
    m.kind = r.enum_u8<ClientKind>(static_cast<std::uint8_t>(ClientKind::count_));
    m.token = r.str();
}

void write_fields(WireWriter& w, const HelloAck& m) {
    w.u32(m.protocol_version);
    w.i32(m.daemon_pid);
    w.str(m.hostname);
}
void read_fields(WireReader& r, HelloAck& m) {
    m.protocol_version = r.u32();
    m.daemon_pid = r.i32();
    m.hostname = r.str();
}

void write_fields(WireWriter& w, const ErrorReply& m) { w.str(m.message); }
void read_fields(WireReader& r, ErrorReply& m) { m.message = r.str(); }

void write_fields(WireWriter& w, const LaunchJob& m) {
    w.str_list(m.argv);
    w.str_list(m.env);
    w.str(m.cwd);
    w.u32(m.nprocs);
    w.u8(static_cast<std::uint8_t>(m.comm_mode));
    w.u8(static_cast<std::uint8_t>(m.msg_mode));
    w.boolean(m.tag_output);
    w.boolean(m.forward_stdin);
}
void read_fields(WireReader& r, LaunchJob& m) {
    m.argv = r.str_list();
    m.env = r.str_list();
    m.cwd = r.str();
    m.nprocs = r.u32();
    m.comm_mode = r.enum_u8<CommMode>(static_cast<std::uint8_t>(CommMode::count_));
    m.msg_mode = r.enum_u8<MsgMode>(static_cast<std::uint8_t>(MsgMode::count_));
    m.tag_output = r.boolean();
    m.forward_stdin = r.boolean();
}

void write_fields(WireWriter& w, const JobStarted& m) {
    w.str(m.jobid);
    w.i32_list(m.pids);
}
void read_fields(WireReader& r, JobStarted& m) {
    m.jobid = r.str();
    m.pids = r.i32_list();
}

void write_fields(WireWriter& w, const OutputChunk& m) {
    w.u32(m.rank);
    w.u8(static_cast<std::uint8_t>(m.stream));
    w.str(m.bytes);
}
void read_fields(WireReader& r, OutputChunk& m) {
    m.rank = r.u32();
    m.stream = r.enum_u8<OutputStream>(static_cast<std::uint8_t>(OutputStream::count_));
    m.bytes = r.str();
}

void write_fields(WireWriter& w, const RankExited& m) {
    w.u32(m.rank);
    w.i32(m.pid);
    w.boolean(m.signaled);
    w.i32(m.code);
    w.boolean(m.connected);
    w.boolean(m.finalized);
    w.boolean(m.failed);
    w.boolean(m.job_continues);
    w.u64(m.time_ms);
}
void read_fields(WireReader& r, RankExited& m) {
    m.rank = r.u32();
    m.pid = r.i32();
    m.signaled = r.boolean();
    m.code = r.i32();
    m.connected = r.boolean();
    m.finalized = r.boolean();
    m.failed = r.boolean();
    m.job_continues = r.boolean();
    m.time_ms = r.u64();
}

void write_fields(WireWriter& w, const JobEnded& m) {
    w.i32(m.exit_code);
    w.u8(static_cast<std::uint8_t>(m.reason));
    w.str(m.message);
}
void read_fields(WireReader& r, JobEnded& m) {
    m.exit_code = r.i32();
    m.reason = r.enum_u8<JobEndReason>(static_cast<std::uint8_t>(JobEndReason::count_));
    m.message = r.str();
}

void write_fields(WireWriter& w, const AbortRequested& m) {
    w.u32(m.rank);
    w.i32(m.code);
    w.str(m.message);
}
void read_fields(WireReader& r, AbortRequested& m) {
    m.rank = r.u32();
    m.code = r.i32();
    m.message = r.str();
}

void write_fields(WireWriter& w, const KillJob& m) { w.u8(static_cast<std::uint8_t>(m.reason)); }
void read_fields(WireReader& r, KillJob& m) {
    m.reason = r.enum_u8<KillReason>(static_cast<std::uint8_t>(KillReason::count_));
}

template <typename M>
std::vector<std::uint8_t> encode_message(const M& m) {
    WireWriter w;
    write_fields(w, m);
    return frame_encode(static_cast<std::uint16_t>(M::kType), w.bytes());
}

template <typename M>
ProtoStatus decode_message(const Frame& f, M& out) {
    if (f.type != static_cast<std::uint16_t>(M::kType)) return ProtoStatus::wrong_type;
    WireReader r(f.payload);
    M tmp;
    read_fields(r, tmp);
    ProtoStatus st = r.finish();
    if (st == ProtoStatus::ok) out = std::move(tmp);
    return st;
}

}  // namespace

#define FTMPI_PROTO_CODEC(M)                                                        \
    std::vector<std::uint8_t> encode(const M& m) { return encode_message(m); }      \
    ProtoStatus decode(const Frame& f, M& out) { return decode_message(f, out); }

FTMPI_PROTO_CODEC(Hello)
FTMPI_PROTO_CODEC(HelloAck)
FTMPI_PROTO_CODEC(ErrorReply)
FTMPI_PROTO_CODEC(LaunchJob)
FTMPI_PROTO_CODEC(JobStarted)
FTMPI_PROTO_CODEC(OutputChunk)
FTMPI_PROTO_CODEC(RankExited)
FTMPI_PROTO_CODEC(JobEnded)
FTMPI_PROTO_CODEC(AbortRequested)
FTMPI_PROTO_CODEC(KillJob)

#undef FTMPI_PROTO_CODEC

}  // namespace ftmpi::proto
