// The internal record behind every operation either endpoint holds (a posted receive in the
// matcher, a send waiting for its FIN or for room, an operation handed to libfabric). libfabric
// hands the record back as the completion's op_context, so the record, not the user's context,
// is what libfabric holds: after mark_peer_failed() has reported an operation to the user, its
// record stays "orphaned" until libfabric is done with it, and the late completion only frees
// the record.
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "ftmpi/transport/endpoint.h"

namespace ftmpi::transport {

// bounce: one of the receive buffers that the libfabric endpoint keeps posted for its message
// stream (net_endpoint.h).
// withdraw: a question to a receiver about a send already finished here (cancel_send).
enum class OpKind : unsigned char { send, recv, probe, bounce, withdraw };

struct OpRecord {
  fi_context2 fi_ctx;  // first member: &fi_ctx == this, which is what the CQ returns
  void* user_context;
  OpRecord* prev;  // links in the pending list of the peer (or of the wildcard list)
  OpRecord* next;
  const void* buf;  // deferred sends: what to post once the provider takes it
  std::size_t len;  // posted length (receives: to judge truncation reports)
  std::uint64_t tag;
  PeerId peer;  // kAnyPeer for wildcard receives/probes
  OpKind kind;
  bool orphaned;  // already reported to the user; the CQ entry (shm: the FIN of a small
                  // message staged in bulk pages) only releases the record
  bool cancel_requested;  // cancel() asked for it: a canceled completion is then the user's
  bool standing;  // receive: posted by recv_standing (Matcher::expects_large skips it)
  // Large messages (wire.h).
  std::uint8_t stage;       // large send: 0 = announcement not posted yet, 1 = announced,
                            // 2 = shm: payload streamed through the ring (after kFinNak)
  std::uint32_t seq;        // send: its number on the pair's stream (shm: every send, for
                            // cancel_send; libfabric: large ones, its payload's tag)
  std::uint64_t ignore;     // receive: ignore mask
  std::size_t msg_len;      // receive matched to a large message: its full length
  unsigned char* scratch;   // ... landing buffer when the user's is too short (truncation)
  std::int32_t bulk_slot = -1;  // send staged in our bulk area: its first page, freed with the record
  std::size_t done_bytes;   // streamed payload (stage 2): bytes sent / received so far

  static OpRecord* from_context(void* op_context) { return static_cast<OpRecord*>(op_context); }
};
static_assert(std::is_standard_layout_v<OpRecord>, "fi_ctx must be at offset 0");
static_assert(offsetof(OpRecord, fi_ctx) == 0, "fi_ctx must be at offset 0");

// Intrusive doubly-linked list: O(1) insert/remove on the hot path without allocation, and a
// walkable set of pending operations for peer failure and cancel.
class OpList {
 public:
  void push_back(OpRecord* op) {
    op->next = nullptr;
    op->prev = tail_;
    if (tail_ != nullptr) {
      tail_->next = op;
    } else {
      head_ = op;
    }
    tail_ = op;
  }
  void push_front(OpRecord* op) {
    op->prev = nullptr;
    op->next = head_;
    if (head_ != nullptr) {
      head_->prev = op;
    } else {
      tail_ = op;
    }
    head_ = op;
  }
  void remove(OpRecord* op) {
    (op->prev != nullptr ? op->prev->next : head_) = op->next;
    (op->next != nullptr ? op->next->prev : tail_) = op->prev;
    op->prev = op->next = nullptr;
  }
  OpRecord* head() const { return head_; }
  OpRecord* pop_front() {
    OpRecord* op = head_;
    if (op != nullptr) remove(op);
    return op;
  }
  bool empty() const { return head_ == nullptr; }
  // The record of kind `kind` for the user's `context`, or nullptr (a walk: for the rare
  // calls that name an operation by its context, such as detach_send).
  OpRecord* find(OpKind kind, const void* context) const {
    for (OpRecord* op = head_; op != nullptr; op = op->next) {
      if (op->kind == kind && op->user_context == context) return op;
    }
    return nullptr;
  }
  // Detaches all records and returns the first; the caller walks ->next.
  OpRecord* take_all() {
    OpRecord* first = head_;
    head_ = tail_ = nullptr;
    return first;
  }

 private:
  OpRecord* head_ = nullptr;
  OpRecord* tail_ = nullptr;
};

// Free list of records, grown in chunks so the send/recv path never allocates in steady state.
// Records never move, so libfabric may hold a pointer to one for as long as it likes.
class OpPool {
 public:
  OpRecord* get() {
    if (free_ == nullptr) grow();
    OpRecord* op = free_;
    free_ = op->next;
    ++in_use_;
    return op;
  }
  void put(OpRecord* op) {
    op->next = free_;
    free_ = op;
    --in_use_;
  }
  std::size_t in_use() const { return in_use_; }

 private:
  static constexpr std::size_t kChunk = 256;
  void grow() {
    chunks_.push_back(std::make_unique<OpRecord[]>(kChunk));
    OpRecord* chunk = chunks_.back().get();
    for (std::size_t i = 0; i < kChunk; ++i) {
      chunk[i].next = free_;
      free_ = &chunk[i];
    }
  }

  std::vector<std::unique_ptr<OpRecord[]>> chunks_;
  OpRecord* free_ = nullptr;
  std::size_t in_use_ = 0;
};

// A send's record keeps its own copy of the payload from now on (in scratch, freed with the
// record), so its caller's buffer may go (Endpoint::detach_send).
inline void own_send_payload(OpRecord* op) {
  if (op->scratch != nullptr) return;  // a copy already
  op->scratch = new unsigned char[op->len == 0 ? 1 : op->len];
  if (op->len != 0) std::memcpy(op->scratch, op->buf, op->len);
  op->buf = op->scratch;
}

}  // namespace ftmpi::transport
