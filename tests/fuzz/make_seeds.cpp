// Writes the fuzzers' seed corpus: a valid encode() of every message (and of several frames
// back to back), ranks' report datagrams, and honest handshake openings. libFuzzer mutates from
// these, so each decoder's happy path is covered from the first second.
//
//   fuzz_make_seeds DIR    writes DIR/frame/seed-* and DIR/auth/seed-*
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ftmpi_proto/host_messages.h"
#include "ftmpi_proto/hub_messages.h"
#include "ftmpi_proto/job_auth_messages.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/state.h"

using namespace ftmpi::proto;
using Bytes = std::vector<std::uint8_t>;

namespace {

int written = 0;

void put(const std::string& dir, const std::string& name, const Bytes& b) {
    std::ofstream(dir + "/seed-" + name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()),
                                                                 static_cast<std::streamsize>(b.size()));
    ++written;
}

Bytes cat(std::initializer_list<Bytes> parts) {
    Bytes out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

Snapshot sample_snapshot() {
    Snapshot s;
    s.host = HostInfo{"node1", "/tmp/ftmpi-0/ftmpid.sock", 4242, true, 1000, 2000, 2, {12, 34, 56}};
    JobInfo j;
    j.id = "job-1";
    j.program = "./heat";
    j.nprocs = 2;
    j.comm_mode = CommModeV::rebuild;
    j.procs.push_back(ProcInfo{0, 100, "node1", RunStateV::running, 0, 15});
    j.procs.push_back(ProcInfo{1, 101, "node2", RunStateV::failed, 137, 0});
    CommInfo c;
    c.name = "MPI_COMM_WORLD";
    c.context_id = 3;
    c.state = CommStateV::detected;
    c.procs.push_back(CommProcInfo{0, 0, ProcStateV::ok});
    c.procs.push_back(CommProcInfo{1, 1, ProcStateV::failed});
    j.comms.push_back(c);
    s.jobs.push_back(j);
    return s;
}

void frame_seeds(const std::string& d) {
    Bytes hello = encode(Hello{kProtocolVersion, ClientKind::launcher, std::string(64, 'a')});
    Bytes launch = encode(LaunchJob{{"./a.out", "-x"}, {"PATH=/usr/bin", "FTMPI_DEBUG=1"}, "/work", 4,
                                    CommMode::shrink, MsgMode::cont, true});
    Bytes exited = encode(RankExited{1, 4321, true, 9, true, false, true, true, 1700000000000ull});
    put(d, "hello", hello);
    put(d, "hello_ack", encode(HelloAck{kProtocolVersion, 77, "node1"}));
    put(d, "error_reply", encode(ErrorReply{"malformed message"}));
    put(d, "launch_job", launch);
    put(d, "job_started", encode(JobStarted{"job-1", {100, 101, 102}}));
    put(d, "output_chunk", encode(OutputChunk{2, OutputStream::err, "line\npartial"}));
    put(d, "rank_exited", exited);
    put(d, "job_ended", encode(JobEnded{3, JobEndReason::aborted, "rank 1 called MPI_Abort"}));
    put(d, "abort_requested", encode(AbortRequested{1, 3, "bye"}));
    put(d, "kill_job", encode(KillJob{KillReason::timeout}));
    put(d, "heartbeat", encode(Heartbeat{12345}));
    put(d, "host_failed", encode(HostFailed{1, "node2", HostLoss::heartbeat_timeout, {2, 3, 7}}));
    put(d, "failures_trapped", encode(FailuresTrapped{4}));
    put(d, "job_table", encode(sample_snapshot()));
    put(d, "daemon_hello", encode(DaemonHello{2, "node3", 999, "127.0.3.1"}));
    put(d, "job_slice", encode(JobSlice{"job-1", "job-1-" + std::string(32, 'c'), std::string(64, 'd'), 1,
                                        {"node1", "node2", "node3"}, {0, 1, 2, 1}, "127.0.2.1"}));
    put(d, "fence_contribution", encode(FenceContribution{"*", 3, std::string("\x01\x02pmix", 6)}));
    put(d, "fence_result", encode(FenceResult{"0,2", 3, true, "ab"}));
    put(d, "procs_failed", encode(ProcsFailed{{1, 4}}));
    put(d, "stdin_chunk", encode(StdinChunk{"input\n", true}));
    put(d, "host_idle", encode(HostIdle{3}));
    put(d, "job_release", encode(JobRelease{}));
    put(d, "job_mirror", encode(JobMirror{"ftmpi-12-hosts", "./app", 4, CommMode::rebuild, MsgMode::cont}));
    put(d, "query_state", encode_query_state(true));
    put(d, "stream", cat({hello, launch, exited, encode(KillJob{})}));
    CommReport rep;
    rep.jobid = "job-1";
    rep.reporter = 1;
    rep.comm = sample_snapshot().jobs[0].comms[0];
    put(d, "report_update", encode_report(rep));
    const auto update = encode_report(rep);
    put(d, "comm_report_relay", encode(CommReportRelay{std::string(update.begin(), update.end())}));
    rep.kind = ReportKind::freed;
    put(d, "report_freed", encode_report(rep));
}

void auth_seeds(const std::string& d) {
    auth::Hello c;
    c.role = AuthRole::connector;
    c.nonce = auth::make_nonce();
    auth::Hello a;
    a.role = AuthRole::acceptor;
    a.nonce = auth::make_nonce();
    a.proof = auth::compute_proof(make_job_secret(), AuthRole::acceptor, a.nonce, c.nonce);
    Bytes proof(auth::kProofSize, 0x42);
    put(d, "connector_hello", auth::encode_hello(c));
    put(d, "connector_hello_proof", cat({auth::encode_hello(c), proof}));
    put(d, "acceptor_hello", auth::encode_hello(a));
    put(d, "acceptor_hello_accept", cat({auth::encode_hello(a), Bytes{auth::kAccept}}));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    std::string root = argv[1];
    for (const char* sub : {"", "/frame", "/auth"}) mkdir((root + sub).c_str(), 0755);
    frame_seeds(root + "/frame");
    auth_seeds(root + "/auth");
    std::printf("wrote %d seeds under %s\n", written, root.c_str());
    return 0;
}
