// libFuzzer harness for the control protocol's decoders: the stream decoder (FrameDecoder) and
// every message decode() that the daemon, mpirun and the tools run on bytes from a peer
// (messages.h, state.h, host_messages.h, hub_messages.h), plus the ranks' report datagram (decode_report).
//
// Oracles beyond "no crash, no leak, no undefined behaviour" (ASan + UBSan):
//  - the stream decoded in one piece and in small pieces yields the same frames and status;
//  - a payload that decodes re-encodes to exactly the same bytes (the codec is canonical: a
//    decoder that accepts something its encoder would never write is a bug to look at).
// The same file is built into the gcc replay test (fuzz_replay.cpp) that CI runs on the corpus.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/host_messages.h"
#include "ftmpi_proto/hub_messages.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/state.h"

namespace {

using namespace ftmpi::proto;

[[noreturn]] void oracle_failed(const char* what, std::uint16_t type) {
    std::fprintf(stderr, "fuzz oracle failed: %s (frame type 0x%04x)\n", what, type);
    std::abort();
}

// Decodes `payload` as message M; if it is accepted, its encoding must give back the same bytes.
template <typename M>
void round_trip(const std::vector<std::uint8_t>& payload) {
    Frame f;
    f.type = static_cast<std::uint16_t>(M::kType);
    f.payload = payload;
    M m;
    if (decode(f, m) != ProtoStatus::ok) return;
    std::vector<std::uint8_t> again = encode(m);
    if (again != frame_encode(f.type, payload)) oracle_failed("decode accepted a non-canonical encoding", f.type);
}

// The state table has no kType member (job_table frames carry a Snapshot).
void round_trip_snapshot(const std::vector<std::uint8_t>& payload) {
    Frame f;
    f.type = static_cast<std::uint16_t>(MsgType::job_table);
    f.payload = payload;
    Snapshot s;
    if (decode(f, s) != ProtoStatus::ok) return;
    if (encode(s) != frame_encode(f.type, payload)) oracle_failed("snapshot re-encodes differently", f.type);
}

// Every message decoder, whatever type the frame claims: the fuzzer need not guess type numbers
// to reach a decoder, and a decoder must never trust the type check above it.
void decode_everything(const Frame& f) {
    round_trip<Hello>(f.payload);
    round_trip<HelloAck>(f.payload);
    round_trip<ErrorReply>(f.payload);
    round_trip<LaunchJob>(f.payload);
    round_trip<JobStarted>(f.payload);
    round_trip<OutputChunk>(f.payload);
    round_trip<RankExited>(f.payload);
    round_trip<JobEnded>(f.payload);
    round_trip<AbortRequested>(f.payload);
    round_trip<KillJob>(f.payload);
    round_trip<Heartbeat>(f.payload);
    round_trip<HostFailed>(f.payload);
    round_trip<FailuresTrapped>(f.payload);
    round_trip<DaemonHello>(f.payload);
    round_trip<JobSlice>(f.payload);
    round_trip<FenceContribution>(f.payload);
    round_trip<FenceResult>(f.payload);
    round_trip<ProcsFailed>(f.payload);
    round_trip<StdinChunk>(f.payload);
    round_trip<HostIdle>(f.payload);
    round_trip<JobRelease>(f.payload);
    round_trip<JobMirror>(f.payload);
    round_trip<CommReportRelay>(f.payload);
    round_trip_snapshot(f.payload);
    // And the type check itself: a frame of another type must be refused as wrong_type.
    LaunchJob lj;
    if (f.type != static_cast<std::uint16_t>(MsgType::launch_job) && decode(f, lj) != ProtoStatus::wrong_type)
        oracle_failed("decode ignored the frame type", f.type);
}

// Decodes a whole stream, feeding it `chunk` bytes at a time (0: in one piece).
ProtoStatus decode_stream(const std::uint8_t* data, std::size_t size, std::size_t chunk, std::vector<Frame>& frames) {
    // A small limit so that length fields near it are reachable by the fuzzer's short inputs.
    FrameDecoder dec(4096);
    ProtoStatus st = ProtoStatus::need_more;
    std::size_t fed = 0;
    do {
        std::size_t n = chunk == 0 ? size - fed : std::min(chunk, size - fed);
        dec.feed(data + fed, n);
        fed += n;
        Frame f;
        while ((st = dec.next(f)) == ProtoStatus::ok) frames.push_back(std::move(f));
    } while (fed < size && st == ProtoStatus::need_more);
    return st;
}

void report_round_trip(const std::uint8_t* data, std::size_t size) {
    CommReport rep;
    if (decode_report(data, size, rep) != ProtoStatus::ok) return;
    std::vector<std::uint8_t> again = encode_report(rep);
    if (again != std::vector<std::uint8_t>(data, data + size)) oracle_failed("report re-encodes differently", 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<Frame> whole, pieces;
    ProtoStatus st_whole = decode_stream(data, size, 0, whole);
    ProtoStatus st_pieces = decode_stream(data, size, 7, pieces);
    if (st_whole != st_pieces || whole.size() != pieces.size()) oracle_failed("split stream decodes differently", 0);
    for (std::size_t i = 0; i < whole.size(); ++i) {
        if (whole[i].type != pieces[i].type || whole[i].payload != pieces[i].payload)
            oracle_failed("split stream decodes differently", whole[i].type);
        decode_everything(whole[i]);
    }
    // Inputs that are not frames at all still reach every decoder as a bare payload.
    if (whole.empty()) {
        Frame bare;
        bare.type = static_cast<std::uint16_t>(size > 0 ? data[0] : 0);
        bare.payload.assign(data, data + size);
        decode_everything(bare);
    }
    report_round_trip(data, size);
    return 0;
}
