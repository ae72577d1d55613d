// Payload layouts of the several-hosts messages (hub_messages.h), one write/read pair each.
#include "ftmpi_proto/hub_messages.h"

#include "ftmpi_proto/wire.h"

namespace ftmpi::proto {

namespace {

void write_fields(WireWriter& w, const DaemonHello& m) {
    w.u32(m.host_index);
    w.str(m.hostname);
    w.i32(m.pid);
    w.str(m.net_addr);
}
void read_fields(WireReader& r, DaemonHello& m) {
    m.host_index = r.u32();
    m.hostname = r.str();
    m.pid = r.i32();
    m.net_addr = r.str();
}

void write_fields(WireWriter& w, const JobSlice& m) {
    w.str(m.jobid);
    w.str(m.nspace);
    w.str(m.event_seal);
    w.u32(m.host_index);
    w.str_list(m.host_names);
    w.u32_list(m.host_of_rank);
    w.str(m.net_addr);
}
void read_fields(WireReader& r, JobSlice& m) {
    m.jobid = r.str();
    m.nspace = r.str();
    m.event_seal = r.str();
    m.host_index = r.u32();
    m.host_names = r.str_list();
    m.host_of_rank = r.u32_list();
    m.net_addr = r.str();
}
bool consistent(const JobSlice& m) {
    if (m.host_index >= m.host_names.size() || m.host_of_rank.empty() || m.jobid.empty() || m.nspace.empty())
        return false;
    for (std::uint32_t h : m.host_of_rank)
        if (h >= m.host_names.size()) return false;
    return true;
}

void write_fields(WireWriter& w, const FenceContribution& m) {
    w.str(m.signature);
    w.u32(m.seq);
    w.str(m.blob);
}
void read_fields(WireReader& r, FenceContribution& m) {
    m.signature = r.str();
    m.seq = r.u32();
    m.blob = r.str();
}

void write_fields(WireWriter& w, const FenceResult& m) {
    w.str(m.signature);
    w.u32(m.seq);
    w.boolean(m.partial);
    w.str(m.data);
}
void read_fields(WireReader& r, FenceResult& m) {
    m.signature = r.str();
    m.seq = r.u32();
    m.partial = r.boolean();
    m.data = r.str();
}

void write_fields(WireWriter& w, const ProcsFailed& m) { w.u32_list(m.ranks); }
void read_fields(WireReader& r, ProcsFailed& m) { m.ranks = r.u32_list(); }

void write_fields(WireWriter& w, const StdinChunk& m) {
    w.str(m.bytes);
    w.boolean(m.eof);
}
void read_fields(WireReader& r, StdinChunk& m) {
    m.bytes = r.str();
    m.eof = r.boolean();
}

void write_fields(WireWriter& w, const HostIdle& m) { w.u32(m.processes); }
void read_fields(WireReader& r, HostIdle& m) { m.processes = r.u32(); }

void write_fields(WireWriter&, const JobRelease&) {}
void read_fields(WireReader&, JobRelease&) {}

bool consistent(const DaemonHello&) { return true; }
bool consistent(const HostIdle&) { return true; }
bool consistent(const JobRelease&) { return true; }
bool consistent(const FenceContribution&) { return true; }
bool consistent(const FenceResult&) { return true; }
bool consistent(const ProcsFailed&) { return true; }
bool consistent(const StdinChunk&) { return true; }

#include "message_codec.inc"

}  // namespace

FTMPI_MESSAGE_CODEC(DaemonHello)
FTMPI_MESSAGE_CODEC(JobSlice)
FTMPI_MESSAGE_CODEC(FenceContribution)
FTMPI_MESSAGE_CODEC(FenceResult)
FTMPI_MESSAGE_CODEC(ProcsFailed)
FTMPI_MESSAGE_CODEC(StdinChunk)
FTMPI_MESSAGE_CODEC(HostIdle)
FTMPI_MESSAGE_CODEC(JobRelease)

#undef FTMPI_HUB_CODEC

}  // namespace ftmpi::proto
