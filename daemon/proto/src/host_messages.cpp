// Payload layouts of the host liveness / host failure messages (host_messages.h).
#include "ftmpi_proto/host_messages.h"

#include "ftmpi_proto/wire.h"

namespace ftmpi::proto {

const char* to_string(HostLoss c) noexcept {
    switch (c) {
        case HostLoss::link_closed: return "connection lost";
        case HostLoss::heartbeat_timeout: return "heartbeats stopped";
        case HostLoss::count_: break;
    }
    return "unknown";
}

namespace {

// A job has at most 65535 processes (PMIx local ranks are 16 bits): a longer list is hostile.
constexpr std::uint32_t kMaxRanks = 65536;

void write_fields(WireWriter& w, const Heartbeat& m) { w.u64(m.seq); }
void read_fields(WireReader& r, Heartbeat& m) { m.seq = r.u64(); }

void write_fields(WireWriter& w, const HostFailed& m) {
    w.u32(m.host_index);
    w.str(m.hostname);
    w.u8(static_cast<std::uint8_t>(m.cause));
    w.u32(static_cast<std::uint32_t>(m.ranks.size()));
    for (std::uint32_t r : m.ranks) w.u32(r);
}
void read_fields(WireReader& r, HostFailed& m) {
    m.host_index = r.u32();
    m.hostname = r.str();
    m.cause = r.enum_u8<HostLoss>(static_cast<std::uint8_t>(HostLoss::count_));
    const std::uint32_t n = r.u32();
    // No reserve(n): a lying count stops at the first missing byte instead of allocating.
    for (std::uint32_t i = 0; i < n && r.status() == ProtoStatus::ok; ++i) m.ranks.push_back(r.u32());
}

void u32_list(WireWriter& w, const std::vector<std::uint32_t>& v) {
    w.u32(static_cast<std::uint32_t>(v.size()));
    for (std::uint32_t x : v) w.u32(x);
}
std::vector<std::uint32_t> u32_list(WireReader& r) {
    const std::uint32_t n = r.u32();
    std::vector<std::uint32_t> v;
    for (std::uint32_t i = 0; i < n && r.status() == ProtoStatus::ok; ++i) v.push_back(r.u32());
    return v;
}

void write_fields(WireWriter& w, const SpawnRequest& m) {
    w.u32(m.origin_host);
    w.u32(m.request);
    w.u32(m.requester);
    w.u32(m.base);
    w.u32(m.count);
    w.str_list(m.env);
}
void read_fields(WireReader& r, SpawnRequest& m) {
    m.origin_host = r.u32();
    m.request = r.u32();
    m.requester = r.u32();
    m.base = r.u32();
    m.count = r.u32();
    m.env = r.str_list();
}

void write_fields(WireWriter& w, const SpawnPlace& m) {
    w.u32(m.origin_host);
    w.u32(m.request);
    w.u32(m.base);
    u32_list(w, m.host_of_new);
    w.str_list(m.env);
}
void read_fields(WireReader& r, SpawnPlace& m) {
    m.origin_host = r.u32();
    m.request = r.u32();
    m.base = r.u32();
    m.host_of_new = u32_list(r);
    m.env = r.str_list();
}

void write_fields(WireWriter& w, const SpawnStarted& m) {
    w.u32(m.origin_host);
    w.u32(m.request);
    w.boolean(m.ok);
    w.str(m.message);
}
void read_fields(WireReader& r, SpawnStarted& m) {
    m.origin_host = r.u32();
    m.request = r.u32();
    m.ok = r.boolean();
    m.message = r.str();
}

void write_fields(WireWriter& w, const SpawnDone& m) {
    w.u32(m.request);
    w.boolean(m.ok);
}
void read_fields(WireReader& r, SpawnDone& m) {
    m.request = r.u32();
    m.ok = r.boolean();
}

void write_fields(WireWriter& w, const ModexRequest& m) {
    w.u32(m.origin_host);
    w.u32(m.request);
    w.u32(m.rank);
}
void read_fields(WireReader& r, ModexRequest& m) {
    m.origin_host = r.u32();
    m.request = r.u32();
    m.rank = r.u32();
}

void write_fields(WireWriter& w, const ModexReply& m) {
    w.u32(m.origin_host);
    w.u32(m.request);
    w.i32(m.status);
    w.str(m.data);
}
void read_fields(WireReader& r, ModexReply& m) {
    m.origin_host = r.u32();
    m.request = r.u32();
    m.status = r.i32();
    m.data = r.str();
}

void write_fields(WireWriter& w, const SpareIndices& m) {
    w.u32(m.delay_ms);
    u32_list(w, m.indices);
}
void read_fields(WireReader& r, SpareIndices& m) {
    m.delay_ms = r.u32();
    m.indices = u32_list(r);
}

void write_fields(WireWriter& w, const FailuresTrapped& m) { w.u32(m.rank); }
void read_fields(WireReader& r, FailuresTrapped& m) { m.rank = r.u32(); }

bool consistent(const Heartbeat&) { return true; }
bool consistent(const FailuresTrapped& m) { return m.rank < kMaxRanks; }
// A job has at most 65535 processes.
bool consistent(const SpawnRequest& m) { return m.count > 0 && std::uint64_t{m.base} + m.count <= kMaxRanks; }
bool consistent(const SpawnPlace& m) {
    return !m.host_of_new.empty() && std::uint64_t{m.base} + m.host_of_new.size() <= kMaxRanks;
}
bool consistent(const SpawnStarted&) { return true; }
bool consistent(const SpawnDone&) { return true; }
bool consistent(const ModexRequest&) { return true; }
bool consistent(const ModexReply&) { return true; }
// Spares sit on process indices (below 65536), each once; a top-up never waits a minute.
bool consistent(const SpareIndices& m) {
    if (m.delay_ms > 60000 || m.indices.empty() || m.indices.size() > kMaxRanks) return false;
    for (std::size_t i = 0; i < m.indices.size(); ++i)
        if (m.indices[i] >= kMaxRanks || (i > 0 && m.indices[i] <= m.indices[i - 1])) return false;
    return true;
}
// At most one job's worth of processes, each named once.
bool consistent(const HostFailed& m) {
    if (m.ranks.size() > kMaxRanks) return false;
    for (std::size_t i = 1; i < m.ranks.size(); ++i)
        if (m.ranks[i] <= m.ranks[i - 1]) return false;
    return true;
}

#include "message_codec.inc"

}  // namespace

FTMPI_MESSAGE_CODEC(Heartbeat)
FTMPI_MESSAGE_CODEC(HostFailed)
FTMPI_MESSAGE_CODEC(SpawnRequest)
FTMPI_MESSAGE_CODEC(SpawnPlace)
FTMPI_MESSAGE_CODEC(SpawnStarted)
FTMPI_MESSAGE_CODEC(SpawnDone)
FTMPI_MESSAGE_CODEC(ModexRequest)
FTMPI_MESSAGE_CODEC(ModexReply)
FTMPI_MESSAGE_CODEC(SpareIndices)
FTMPI_MESSAGE_CODEC(FailuresTrapped)

#undef FTMPI_HOST_CODEC

}  // namespace ftmpi::proto
