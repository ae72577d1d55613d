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

bool consistent(const Heartbeat&) { return true; }
// At most one job's worth of processes, each named once.
bool consistent(const HostFailed& m) {
    if (m.ranks.size() > kMaxRanks) return false;
    for (std::size_t i = 1; i < m.ranks.size(); ++i)
        if (m.ranks[i] <= m.ranks[i - 1]) return false;
    return true;
}

template <typename M>
std::vector<std::uint8_t> encode_message(const M& m) {
    WireWriter w;
    write_fields(w, m);
    return frame_encode(M::kType, w.bytes());
}

template <typename M>
ProtoStatus decode_message(const Frame& f, M& out) {
    if (f.type != M::kType) return ProtoStatus::wrong_type;
    WireReader r(f.payload);
    M tmp;
    read_fields(r, tmp);
    ProtoStatus st = r.finish();
    if (st == ProtoStatus::ok && !consistent(tmp)) st = ProtoStatus::malformed;
    if (st == ProtoStatus::ok) out = std::move(tmp);
    return st;
}

}  // namespace

std::vector<std::uint8_t> encode(const Heartbeat& m) { return encode_message(m); }
std::vector<std::uint8_t> encode(const HostFailed& m) { return encode_message(m); }
ProtoStatus decode(const Frame& f, Heartbeat& out) { return decode_message(f, out); }
ProtoStatus decode(const Frame& f, HostFailed& out) { return decode_message(f, out); }

}  // namespace ftmpi::proto
