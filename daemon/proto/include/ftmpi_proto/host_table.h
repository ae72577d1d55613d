// The job's host table (issue 15 item 7): which hosts run the job, in what state, with which
// daemon and ranks. mpirun (the hub of a job on several hosts) owns it and pushes it to its
// local daemon as host_table_update whenever it changes and with each heartbeat round; the
// daemon keeps the newest one per job and puts it in the Snapshot it gives the tools
// (hostinfo, cominfo), which run on mpirun's host. A job that never received one (one host)
// is shown with one row: the daemon's own host, built by the daemon.
//
//   host_table_update: u32 count | count x JobHost
//   JobHost: str name | u8 state | i32 daemon pid | u32 n | n x u32 world rank | u32 spares
//            | u64 last heard (ms since the epoch, mpirun's clock; 0: mpirun's own host)
//
// A job on several hosts none of whose ranks runs on mpirun's host has no entry in the local
// daemon to hang the table on, so mpirun first sends job_mirror: the daemon then keeps an entry
// for the job without processes (no PMIx namespace, nothing forked) until that connection
// closes, and the tools find the job there like any other.
//   job_mirror: str job id | str program | u32 nprocs | u8 comm mode | u8 msg mode
//
// The ranks report their communicators to their own daemon (state.h, CommReport). For the
// tools on mpirun's host to show the communicators of every host, each remote daemon passes
// the reports it accepted to mpirun, which passes them to its local daemon:
//   comm_report_relay: str report (the rank's datagram, as it came)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftmpi_proto/modes.h"
#include "ftmpi_proto/status.h"
#include "ftmpi_proto/wire.h"

namespace ftmpi::proto {

struct Frame;

enum class HostStateV : std::uint8_t { ok, failed, count_ };
const char* to_string(HostStateV s) noexcept;  // "ok", "failed"

struct JobHost {
    std::string name;
    HostStateV state = HostStateV::ok;
    std::int32_t daemon_pid = 0;
    std::vector<std::uint32_t> ranks;  // world ranks running there (replacements included)
    std::uint32_t spares = 0;          // hot spares kept there (mpirun: SpareHub; one host: the daemon)
    std::uint64_t last_heard_ms = 0;   // when mpirun last heard from its daemon; 0: local host
};

struct HostTableUpdate {
    std::vector<JobHost> hosts;
};

std::vector<std::uint8_t> encode(const HostTableUpdate& m);  // a host_table_update frame
ProtoStatus decode(const Frame& f, HostTableUpdate& out);

struct JobMirror {
    static constexpr std::uint16_t kType = 0x0107;  // MsgType::job_mirror
    std::string jobid;
    std::string program;  // argv[0]
    std::uint32_t nprocs = 0;
    CommMode comm_mode = CommMode::abort;
    MsgMode msg_mode = MsgMode::nop;
};

std::vector<std::uint8_t> encode(const JobMirror& m);  // a job_mirror frame
// malformed: an empty job id or no process.
ProtoStatus decode(const Frame& f, JobMirror& out);

struct CommReportRelay {
    static constexpr std::uint16_t kType = 0x0108;  // MsgType::comm_report_relay
    std::string report;  // encode_report bytes; the receiver decodes them (decode_report)
};

std::vector<std::uint8_t> encode(const CommReportRelay& m);
ProtoStatus decode(const Frame& f, CommReportRelay& out);

// The list encoding, shared with the Snapshot (state.cpp).
void write_hosts(WireWriter& w, const std::vector<JobHost>& hosts);
void read_hosts(WireReader& r, std::vector<JobHost>& hosts);

}  // namespace ftmpi::proto
