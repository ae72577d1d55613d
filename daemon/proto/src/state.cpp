// Encoding of the state tables (Snapshot) and of the ranks' communicator reports.
#include "ftmpi_proto/state.h"

#include <unistd.h>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/unix_socket.h"
#include "ftmpi_proto/wire.h"

namespace ftmpi::proto {

const char* to_string(CommStateV s) noexcept {
    static const char* const names[] = {"OK", "DETECTED", "RECOVER", "RECOVERED", "FAILED"};
    return s < CommStateV::count_ ? names[static_cast<int>(s)] : "?";
}
const char* to_string(ProcStateV s) noexcept {
    static const char* const names[] = {"OK", "UNAVAILABLE", "JOINING", "FAILED"};
    return s < ProcStateV::count_ ? names[static_cast<int>(s)] : "?";
}
const char* to_string(CommModeV m) noexcept {
    static const char* const names[] = {"ABORT", "SHRINK", "BLANK", "REBUILD", "REBUILD_APPEND", "ULFM"};
    return m < CommModeV::count_ ? names[static_cast<int>(m)] : "?";
}
const char* to_string(MsgModeV m) noexcept {
    static const char* const names[] = {"NOP", "CONT"};
    return m < MsgModeV::count_ ? names[static_cast<int>(m)] : "?";
}
const char* to_string(RunStateV s) noexcept {
    static const char* const names[] = {"starting", "running", "finalized", "exited", "failed"};
    return s < RunStateV::count_ ? names[static_cast<int>(s)] : "?";
}

std::uint32_t CommInfo::valid() const {
    std::uint32_t n = 0;
    for (const auto& p : procs) n += p.state == ProcStateV::ok ? 1 : 0;
    return n;
}

namespace {

template <typename E>
void put(WireWriter& w, E e) { w.u8(static_cast<std::uint8_t>(e)); }
template <typename E>
E get(WireReader& r) { return r.enum_u8<E>(static_cast<std::uint8_t>(E::count_)); }

void write_comm_body(WireWriter& w, const CommInfo& c) {
    w.str(c.name);
    put(w, c.state);
    put(w, c.comm_mode);
    put(w, c.msg_mode);
    w.u32(c.size());
    for (const auto& p : c.procs) {
        w.u32(p.world_rank);
        put(w, p.state);
    }
}

void read_comm_body(WireReader& r, CommInfo& c) {
    c.name = r.str();
    c.state = get<CommStateV>(r);
    c.comm_mode = get<CommModeV>(r);
    c.msg_mode = get<MsgModeV>(r);
    std::uint32_t n = r.u32();
    if (r.status() != ProtoStatus::ok) return;
    if (n > r.remaining() / 5) {  // 5 bytes per entry: impossible count, read to the error
        while (r.status() == ProtoStatus::ok) (void)r.u64();
        return;
    }
    c.procs.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        c.procs[i].rank = i;
        c.procs[i].world_rank = r.u32();
        c.procs[i].state = get<ProcStateV>(r);
    }
}

}  // namespace

std::vector<std::uint8_t> encode_query_state(bool with_cpu) {
    WireWriter w;
    w.u32(with_cpu ? 1u : 0u);
    return frame_encode(static_cast<std::uint16_t>(MsgType::query_state), w.bytes());
}

std::vector<std::uint8_t> encode(const Snapshot& s) {
    WireWriter w;
    const HostInfo& h = s.host;
    w.str(h.hostname);
    w.str(h.address);
    w.i32(h.daemon_pid);
    w.boolean(h.private_daemon);
    w.u64(h.start_ms);
    w.u64(h.now_ms);
    w.u32(h.ncores);
    for (std::uint32_t l : h.load_x100) w.u32(l);
    w.u32(static_cast<std::uint32_t>(s.jobs.size()));
    for (const auto& j : s.jobs) {
        w.str(j.id);
        w.str(j.program);
        w.u32(j.nprocs);
        put(w, j.comm_mode);
        put(w, j.msg_mode);
        w.u64(j.start_ms);
        w.u32(static_cast<std::uint32_t>(j.procs.size()));
        for (const auto& p : j.procs) {
            w.u32(p.rank);
            w.i32(p.pid);
            w.str(p.host);
            put(w, p.state);
            w.i32(p.exit_code);
            w.u64(p.cpu_ms);
        }
        w.u32(static_cast<std::uint32_t>(j.comms.size()));
        for (const auto& c : j.comms) {
            w.u32(c.context_id);
            w.u32(c.key_context);
            w.u32(c.leader);
            write_comm_body(w, c);
        }
        write_hosts(w, j.hosts);
    }
    return frame_encode(static_cast<std::uint16_t>(MsgType::job_table), w.bytes());
}

ProtoStatus decode(const Frame& f, Snapshot& out) {
    if (f.type != static_cast<std::uint16_t>(MsgType::job_table)) return ProtoStatus::wrong_type;
    WireReader r(f.payload);
    Snapshot s;
    HostInfo& h = s.host;
    h.hostname = r.str();
    h.address = r.str();
    h.daemon_pid = r.i32();
    h.private_daemon = r.boolean();
    h.start_ms = r.u64();
    h.now_ms = r.u64();
    h.ncores = r.u32();
    for (std::uint32_t& l : h.load_x100) l = r.u32();
    std::uint32_t njobs = r.u32();
    for (std::uint32_t i = 0; i < njobs && r.status() == ProtoStatus::ok; ++i) {
        JobInfo j;
        j.id = r.str();
        j.program = r.str();
        j.nprocs = r.u32();
        j.comm_mode = get<CommModeV>(r);
        j.msg_mode = get<MsgModeV>(r);
        j.start_ms = r.u64();
        std::uint32_t np = r.u32();
        for (std::uint32_t k = 0; k < np && r.status() == ProtoStatus::ok; ++k) {
            ProcInfo p;
            p.rank = r.u32();
            p.pid = r.i32();
            p.host = r.str();
            p.state = get<RunStateV>(r);
            p.exit_code = r.i32();
            p.cpu_ms = r.u64();
            j.procs.push_back(std::move(p));
        }
        std::uint32_t nc = r.u32();
        for (std::uint32_t k = 0; k < nc && r.status() == ProtoStatus::ok; ++k) {
            CommInfo c;
            c.context_id = r.u32();
            c.key_context = r.u32();
            c.leader = r.u32();
            read_comm_body(r, c);
            j.comms.push_back(std::move(c));
        }
        read_hosts(r, j.hosts);
        s.jobs.push_back(std::move(j));
    }
    ProtoStatus st = r.finish();
    if (st == ProtoStatus::ok) out = std::move(s);
    return st;
}

std::vector<std::uint8_t> encode_report(const CommReport& rep) {
    WireWriter w;
    w.u32(kReportMagic);
    w.u8(1);
    w.u8(static_cast<std::uint8_t>(rep.kind));
    w.str(rep.jobid);
    w.u32(rep.reporter);
    w.u32(rep.comm.key_context);
    w.u32(rep.comm.leader);
    if (rep.kind == ReportKind::update) {
        w.u32(rep.comm.context_id);
        write_comm_body(w, rep.comm);
    }
    return std::move(w.bytes());
}

ProtoStatus decode_report(const std::uint8_t* data, std::size_t n, CommReport& out) {
    WireReader r(data, n);
    if (r.u32() != kReportMagic) return ProtoStatus::bad_magic;
    if (r.u8() != 1) return ProtoStatus::bad_version;
    std::uint8_t kind = r.u8();
    if (kind < 1 || kind > 4) return ProtoStatus::malformed;
    CommReport rep;
    rep.kind = static_cast<ReportKind>(kind);
    rep.jobid = r.str();
    rep.reporter = r.u32();
    rep.comm.key_context = r.u32();
    rep.comm.leader = r.u32();
    if (rep.kind == ReportKind::update) {
        rep.comm.context_id = r.u32();
        read_comm_body(r, rep.comm);
    }
    ProtoStatus st = r.finish();
    if (st == ProtoStatus::ok) out = std::move(rep);
    return st;
}

std::string daemon_registry_dir() { return runtime_base_dir() + "/daemons"; }
std::string daemon_registry_file(int pid) { return daemon_registry_dir() + "/" + std::to_string(pid); }

}  // namespace ftmpi::proto
