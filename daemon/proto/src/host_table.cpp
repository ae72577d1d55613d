#include "ftmpi_proto/host_table.h"

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/messages.h"

namespace ftmpi::proto {

const char* to_string(HostStateV s) noexcept {
    static const char* const names[] = {"ok", "failed"};
    return s < HostStateV::count_ ? names[static_cast<int>(s)] : "?";
}

void write_hosts(WireWriter& w, const std::vector<JobHost>& hosts) {
    w.u32(static_cast<std::uint32_t>(hosts.size()));
    for (const JobHost& h : hosts) {
        w.str(h.name);
        w.u8(static_cast<std::uint8_t>(h.state));
        w.i32(h.daemon_pid);
        w.u32(static_cast<std::uint32_t>(h.ranks.size()));
        for (std::uint32_t r : h.ranks) w.u32(r);
        w.u32(h.spares);
        w.u64(h.last_heard_ms);
    }
}

void read_hosts(WireReader& r, std::vector<JobHost>& hosts) {
    // Every count is checked against the bytes left before anything is reserved, so a forged
    // count cannot make us allocate (a host takes at least 25 bytes, a rank 4).
    const std::uint32_t n = r.u32();
    if (r.status() == ProtoStatus::ok && n > r.remaining() / 25) {
        while (r.status() == ProtoStatus::ok) (void)r.u64();
        return;
    }
    for (std::uint32_t i = 0; i < n && r.status() == ProtoStatus::ok; ++i) {
        JobHost h;
        h.name = r.str();
        h.state = r.enum_u8<HostStateV>(static_cast<std::uint8_t>(HostStateV::count_));
        h.daemon_pid = r.i32();
        const std::uint32_t nr = r.u32();
        if (r.status() == ProtoStatus::ok && nr > r.remaining() / 4) {
            while (r.status() == ProtoStatus::ok) (void)r.u64();
            return;
        }
        for (std::uint32_t k = 0; k < nr && r.status() == ProtoStatus::ok; ++k) h.ranks.push_back(r.u32());
        h.spares = r.u32();
        h.last_heard_ms = r.u64();
        hosts.push_back(std::move(h));
    }
}

std::vector<std::uint8_t> encode(const HostTableUpdate& m) {
    WireWriter w;
    write_hosts(w, m.hosts);
    return frame_encode(static_cast<std::uint16_t>(MsgType::host_table_update), w.bytes());
}

ProtoStatus decode(const Frame& f, HostTableUpdate& out) {
    if (f.type != static_cast<std::uint16_t>(MsgType::host_table_update)) return ProtoStatus::wrong_type;
    WireReader r(f.payload);
    HostTableUpdate m;
    read_hosts(r, m.hosts);
    const ProtoStatus st = r.finish();
    if (st == ProtoStatus::ok) out = std::move(m);
    return st;
}

std::vector<std::uint8_t> encode(const JobMirror& m) {
    WireWriter w;
    w.str(m.jobid);
    w.str(m.program);
    w.u32(m.nprocs);
    w.u8(static_cast<std::uint8_t>(m.comm_mode));
    w.u8(static_cast<std::uint8_t>(m.msg_mode));
    return frame_encode(static_cast<std::uint16_t>(MsgType::job_mirror), w.bytes());
}

ProtoStatus decode(const Frame& f, JobMirror& out) {
    if (f.type != static_cast<std::uint16_t>(MsgType::job_mirror)) return ProtoStatus::wrong_type;
    WireReader r(f.payload);
    JobMirror m;
    m.jobid = r.str();
    m.program = r.str();
    m.nprocs = r.u32();
    m.comm_mode = r.enum_u8<CommMode>(static_cast<std::uint8_t>(CommMode::count_));
    m.msg_mode = r.enum_u8<MsgMode>(static_cast<std::uint8_t>(MsgMode::count_));
    ProtoStatus st = r.finish();
    if (st == ProtoStatus::ok && (m.jobid.empty() || m.nprocs == 0)) st = ProtoStatus::malformed;
    if (st == ProtoStatus::ok) out = std::move(m);
    return st;
}

std::vector<std::uint8_t> encode(const CommReportRelay& m) {
    WireWriter w;
    w.str(m.report);
    return frame_encode(static_cast<std::uint16_t>(MsgType::comm_report_relay), w.bytes());
}

ProtoStatus decode(const Frame& f, CommReportRelay& out) {
    if (f.type != static_cast<std::uint16_t>(MsgType::comm_report_relay)) return ProtoStatus::wrong_type;
    WireReader r(f.payload);
    CommReportRelay m;
    m.report = r.str();
    const ProtoStatus st = r.finish();
    if (st == ProtoStatus::ok) out = std::move(m);
    return st;
}

}  // namespace ftmpi::proto
