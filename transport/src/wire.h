// What both endpoints put on their message streams, so that one matcher (matcher.h) serves
// them both: every message starts with a Header carrying the user's tag, and a large one is
// only announced on the stream; its payload moves by the endpoint's own protocol after the
// announcement matched a receive.
//
// Why matching is ours on both paths: libfabric 1.17's shm matched receives with ignore masks
// against unexpected messages with a stale mask (hangs, mismatches), and MPI_ANY_SOURCE must
// span a process's shm and libfabric peers, which no single provider's matching can do.
//
// The stream of one sender to one receiver:
//   - a message of up to the endpoint's inline size travels as [Header{tag, seq}][payload]
//     (shm; libfabric: seq 0);
//   - a larger one as [Header{tag, kRtsBit | how | seq}][Announce]. seq numbers the pair's
//     messages (shm: every accepted send, so that cancel_send can name one; libfabric: the
//     large ones). shm (shm_large.cpp): the payload waits in a bulk slot (kBulkBit) or in the
//     sender's buffer for CMA (kCmaBit); the receiver copies it and answers with a FIN, which
//     completes a CMA send (a staged one completed when it was staged: the FIN frees its
//     pages); without CMA, the FIN says kFinNak and the sender streams the payload
//     through its ring in kChunkBit records. libfabric (net_endpoint.h): the payload follows at
//     once as a tagged send with wire tag kBulkTag | seq (tcp;ofi_rxm: its rendezvous), which
//     the receiver posts a directed exact receive for once the announcement matched.
// Order: announcements and small messages share the pair's one ordered stream and are matched
// as they arrive, so MPI's non-overtaking rule holds on either path.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ftmpi::transport::wire {

// libfabric wire tag (net endpoint) of a large message's payload (| seq); the stream itself
// travels untagged (net_endpoint.h).
constexpr std::uint64_t kBulkTag = std::uint64_t{1} << 63;

// Header::info bits; the low 32 bits carry the sequence number of announcements and FINs.
constexpr std::uint64_t kRtsBit = std::uint64_t{1} << 63;  // an announcement follows
constexpr std::uint64_t kCmaBit = std::uint64_t{1} << 62;  // ... read it with CMA, then FIN
constexpr std::uint64_t kFinBit = std::uint64_t{1} << 61;  // the receiver is done with it
// An announcement sent through a private ring (the sender has the receiver's region mapped):
// the receiver may offer it the second part of the copy (shm_ring.h, split) ...
constexpr std::uint64_t kSplitOkBit = std::uint64_t{1} << 60;
// ... with this message back (a Split follows the header).
constexpr std::uint64_t kSplitBit = std::uint64_t{1} << 59;
// An announcement whose payload waits in a bulk slot of the sender's region (shm_ring.h):
// Announce::addr is the slot; the receiver copies it out, then FINs.
constexpr std::uint64_t kBulkBit = std::uint64_t{1} << 58;
// A piece of a large message's payload streamed through the ring after a kFinNak; Chunk
// follows the header, then the bytes.
constexpr std::uint64_t kChunkBit = std::uint64_t{1} << 57;
// shm: the sender asks to take back its message seq (cancel_send, shm_withdraw.cpp); the
// receiver drops it if it still waits unexpected and answers with a FIN, kFinWithdrawn or
// kFinKept.
constexpr std::uint64_t kWithdrawBit = std::uint64_t{1} << 56;

constexpr std::uint64_t kSeqMask = 0xffffffffull;
// No bit of these set: a small message (its number in the low bits).
constexpr std::uint64_t kControlMask = ~kSeqMask;

struct Header {
  std::uint64_t tag;   // the user's tag (0 for control messages)
  std::uint64_t info;  // no control bit: payload follows; else the bits above
};
struct Announce {
  std::uint64_t len;    // the message's length
  std::uint64_t addr;   // CMA: the sender's buffer; bulk: the slot
  std::uint64_t pid;    // CMA, bulk: the sender's process
  std::uint64_t token;  // bulk: the sender's region token (names the region with pid, uid)
};
struct Split {
  std::uint64_t generation;  // of the offer in the receiver's region
  std::uint64_t addr;        // the receiver's buffer
  std::uint64_t pid;         // the receiver's process
  std::uint64_t from;        // the sender writes bytes [from, len) of the message
  std::uint64_t len;
};
struct Chunk {
  std::uint64_t offset;  // where these bytes go in the message
};
enum FinStatus : std::uint64_t {
  kFinOk = 0,
  kFinNak = 1,
  kFinError = 2,
  kFinWithdrawn = 3,  // answers kWithdrawBit: dropped, never to be received
  kFinKept = 4,       // ... a receive matched it already
};
constexpr std::size_t kHeaderSize = sizeof(Header);
constexpr std::size_t kRtsSize = sizeof(Header) + sizeof(Announce);
constexpr std::size_t kFinSize = sizeof(Header) + sizeof(std::uint64_t);
constexpr std::size_t kSplitSize = sizeof(Header) + sizeof(Split);
constexpr std::size_t kChunkHeaderSize = sizeof(Header) + sizeof(Chunk);
// Messages from this size on are copied by both ends when they can (a smaller one is not
// worth the extra message: one side copies it in a few microseconds).
constexpr std::size_t kSplitMin = std::size_t{128} << 10;

constexpr bool tag_matches(std::uint64_t msg_tag, std::uint64_t want, std::uint64_t ignore) {
  return ((msg_tag ^ want) & ~ignore) == 0;
}

}  // namespace ftmpi::transport::wire
