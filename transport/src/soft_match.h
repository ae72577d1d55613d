// Software tag matching, used over shm (libfabric 1.17).
//
// Why: shm 1.17 matches a receive against already-arrived (unexpected) messages with the
// ignore mask stored in the message's receive-queue slot, not the receive's own. Slots come
// from a free list shared with posted receives and are not cleared, so the mask is whatever the
// last queued receive in that slot had: a receive with an ignore mask misses messages that
// arrived before it (hangs), and an exact receive can take a message with another tag when the
// slot last held a wildcard receive. (prov/shm/src/smr_ep.c: the unexpected queue uses
// smr_match_tagged, which reads recv_entry->ignore; smr_get_tag never sets it. 1.16 had a
// separate smr_match_unexp.) Receives without an ignore mask are safe as long as no receive
// with one is ever posted: every slot then holds mask 0.
//
// So over shm every receive we post has ignore 0, and MPI's matching (masks, kAnyPeer) happens
// here, on headers:
//   - a message of up to inline_max bytes travels as [Header][payload] with wire tag kMsgTag
//     into one of a pool of bounce receives (FI_ADDR_UNSPEC, kMsgTag), copied out on match;
//   - a larger one is announced on the same stream ([Header][Announce]: kRtsBit, a per-pair
//     sequence number, length, and for CMA the sender's pid and buffer address). Up to the
//     inject size its payload follows at once with wire tag kBulkTag | seq, and the receiver,
//     once the announcement matched, posts a directed exact receive for it. Above that the
//     receiver reads the payload itself with process_vm_readv (CMA, as shm would) and answers
//     with a FIN (kFinBit | seq), which completes the send.
// Why not let shm move large messages: a shm sender learns that a large send is done from a
// response queue it drains strictly in order, so one send to a peer that died before reading it
// blocks the completion of every later large send to anybody (the ftckpt "during_save" tests).
// If CMA is refused (EPERM: ptrace restrictions), the FIN says so (kFinNak) and the sender falls
// back to sending the payload through shm (kBulkTag | seq, directed exact receive).
// Order: announcements and small messages share one stream per sender, which shm keeps in
// order (bounces are all alike, and a reposted bounce takes the oldest unexpected message
// first), and matching happens as each arrives, so MPI's non-overtaking rule holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ftmpi/transport/endpoint.h"

namespace ftmpi::transport::soft {

constexpr std::uint64_t kMsgTag = 0;                        // small messages, control
constexpr std::uint64_t kBulkTag = std::uint64_t{1} << 63;  // | seq: a large message's payload

// Header::info bits; the low 32 bits carry the sequence number of announcements and FINs.
constexpr std::uint64_t kRtsBit = std::uint64_t{1} << 63;  // an announcement follows
constexpr std::uint64_t kCmaBit = std::uint64_t{1} << 62;  // ... read it with CMA, then FIN
constexpr std::uint64_t kFinBit = std::uint64_t{1} << 61;  // the receiver is done with it
// An announcement sent through our ring (the sender has the receiver's region mapped): the
// receiver may offer it the second part of the copy (shm_ring.h, split) ...
constexpr std::uint64_t kSplitOkBit = std::uint64_t{1} << 60;
// ... with this message back (a Split follows the header).
constexpr std::uint64_t kSplitBit = std::uint64_t{1} << 59;
// An announcement whose payload waits in a bulk slot of the sender's region (shm_ring.h):
// Announce::addr is the slot; the receiver copies it out, then FINs.
constexpr std::uint64_t kBulkBit = std::uint64_t{1} << 58;

struct Header {
  std::uint64_t tag;   // the user's tag (0 for a FIN)
  std::uint64_t info;  // 0: payload follows; else the bits above
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
enum FinStatus : std::uint64_t { kFinOk = 0, kFinNak = 1, kFinError = 2 };
constexpr std::size_t kHeaderSize = sizeof(Header);
constexpr std::size_t kRtsSize = sizeof(Header) + sizeof(Announce);
constexpr std::size_t kFinSize = sizeof(Header) + sizeof(std::uint64_t);
constexpr std::size_t kSplitSize = sizeof(Header) + sizeof(Split);
// Messages from this size on are copied by both ends when they can (a smaller one is not
// worth the extra message: one side copies it in a few microseconds).
constexpr std::size_t kSplitMin = std::size_t{128} << 10;

constexpr std::size_t kBounceCount = 128;
// Consumed bounces held back for an idle poll (OfiEndpoint::repost_when_idle); the rest of the
// pool stays posted.
constexpr std::size_t kIdleBounces = 16;

constexpr bool tag_matches(std::uint64_t msg_tag, std::uint64_t want, std::uint64_t ignore) {
  return ((msg_tag ^ want) & ~ignore) == 0;
}

// A message (small: with its bytes; large: its announcement) that arrived before a receive.
struct Unexpected {
  PeerId source = kAnyPeer;
  std::uint64_t tag = 0;
  bool announced = false;  // large: only announced (see above)
  bool cma = false;        // ... to be read with CMA from pid/addr
  bool bulk = false;       // ... or copied out of bulk slot addr of region token/pid
  std::uint64_t token = 0;
  std::uint32_t seq = 0;
  std::size_t len = 0;
  std::uint64_t addr = 0;
  std::uint64_t pid = 0;
  std::vector<unsigned char> data;  // small messages only
};

// A FIN that could not be sent yet.
struct PendingFin {
  PeerId peer;
  std::uint32_t seq;
  std::uint64_t status;
};

}  // namespace ftmpi::transport::soft
