// Our own shared-memory message rings for processes on one host: the message stream of the
// shm endpoint (shm_endpoint.h). No libfabric anywhere on this path.
//
// Why: a 2-rank 8 B bcast loop spent ~75 % of its time inside libfabric 1.17 shm, 39 % of it in
// the spin lock that guards a receiver's whole command queue (taken by every sender and by the
// receiver's own poll). Here every (sender, receiver) pair has its own single-producer,
// single-consumer byte ring: a send is a copy and one release store, a poll one acquire load
// per sender, and nobody ever waits for anybody's lock.
//
// Layout: each receiving endpoint creates one region in /dev/shm (name from pid, uid and a
// random token; see region_name) holding `ring_count` private rings of `ring_bytes` each and
// one shared ring. A sender maps the region on its first message, claims a free private ring
// once by writing its own token into the ring's owner word (compare-and-swap: senders never
// share a private ring), and from then on is the ring's only writer. The receiver learns whose
// ring it is from the token, which it knows from the sender's address (insert_peers). Private
// rings are never given back: a job can have ring_count different senders per receiver over
// its life; later senders (or all, with FTMPI_SHM_RING=0) use the shared ring, one at a time
// under a lock word holding the writer's pid, each record prefixed with the sender's token.
//
// Records: an 8-byte header, then the bytes, padded to 8. The header is 0 until the record is
// published; then kValid | length, or a marker: kValid | kWrap to skip to the ring's start,
// kValid | kSkipLine to skip to the next cache line (a record never touches more lines than
// its size needs, so the receiver reads one line for a small message). A record that leaves
// less than kMinLineRoom bytes of its line free makes the next one start on the next line
// without a marker (after_record: both ends apply the rule): a marker is a store into the
// line the receiver is reading, and a stream of 16-32 B messages (40-56 B records, one a line)
// paid that line's trip back and forth on every message (64 messages: 10.3 -> 8.8 us). Before it
// publishes a record the sender makes sure the header slot that follows it reads 0 (cleared
// with the record, or earlier: Writer::clear_next), so the receiver polls just the header at
// its read position: a message costs the receiver the cache lines the record
// itself is in (an 8 B message: one), not a separate index line first. The header is stored
// last (release), so a sender that dies mid-record never publishes it; a receiver that dies
// only stops draining, and its senders' rings fill (they defer sends, and the failure purge
// reports them). Known limit of the shared ring: a writer killed between publishing a record
// and storing the ring's tail (a few instructions) leaves that ring unusable for the others.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ftmpi::transport::ring {

// Region names: "/ftmpi-ring.<pid>.<uid>.<token as 16 hex digits>".
std::string region_name(std::uint64_t pid, std::uint64_t uid, std::uint64_t token);
// The regions a killed process left behind are removed by the one sweeper, shm_segments.h
// (which must know this name format).

struct alignas(64) RingControl {
  std::atomic<std::uint64_t> owner;  // token of the sender that claimed it; 0 = free
  std::atomic<std::uint64_t> lock;   // shared ring: pid of the writer holding it; 0 = free
  std::atomic<std::uint64_t> tail;   // shared ring: bytes ever written (under the lock)
  std::atomic<std::uint64_t> clean;  // shared ring: the last writer's Writer::clean_ (ditto)
  char pad0[32];
  std::atomic<std::uint64_t> head;  // bytes ever consumed (the receiver's): the sender's room
  char pad1[56];
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "rings need lock-free atomics");

struct alignas(64) RegionHeader {
  std::atomic<std::uint64_t> magic;  // set last by the creator
  std::uint64_t ring_count;
  std::uint64_t ring_bytes;
  std::atomic<std::uint64_t> claimed;  // rings [0, claimed) may have an owner
  std::uint64_t bulk_count;  // bulk slots (see BulkSlot); 0 when there are none
  std::uint64_t bulk_bytes;
  // The region owner's one shared copy job (see split_* below), on its own line.
  alignas(64) std::atomic<std::uint64_t> split;
  // The owner's doorbell (a futex word), on its own line: 1 while a thread of the owner waits
  // for messages without polling (an asynchronous progress thread, Endpoint::wait_for_wakeup);
  // a sender that finds it set after publishing a record clears it and wakes the waiter.
  // Senders only read it otherwise: one load per record.
  alignas(64) std::atomic<std::uint32_t> doorbell;
  // 1 once the owner's endpoint is closed (MPI_Finalize done): it reads nothing any more, so a
  // sender's staged messages to it will never be taken (ShmEndpoint::departed_with_sends).
  std::atomic<std::uint32_t> closed;
};

// The bulk area is allocated by pages of this size (slots are a multiple of it).
constexpr std::size_t kBulkPage = 4096;

// Bulk slots (after the rings' bytes): the region owner's staging area for messages it sends,
// bulk_count * bulk_bytes bytes handed out by kBulkPage pages: a message of up to bulk_bytes
// takes the pages it needs (a 64-message window of 32 KiB sends fits in the default 2 MiB,
// where four whole slots held four messages and the other 60 went by CMA, a system call each).
// The sender copies a message into pages it knows to be free and announces their first page;
// the receiver, which maps the sender's region, copies it out and answers with a FIN, on which
// the sender takes the pages back (which are busy only the sender needs to know). Two memcpys
// beat one process_vm_readv by far at these sizes (pinning the sender's pages costs more than
// the copy): a 512 KiB exchange between two processes took 26-33 us against 48-53 us. The
// slots' pages are reserved when the region is made (posix_fallocate), so a full /dev/shm
// means no slots, never a SIGBUS later.

// A shared copy: a receiver reading a large message with CMA offers the second part of it to
// the sender, who writes it (process_vm_writev) while the receiver reads the first: two cores
// copy instead of one. The word in the receiver's region says who does it: the receiver sets
// kOffered, the sender may take it (kOffered -> kClaimed, then kDone or kFailed), and the
// receiver, done with its part, takes it back if nobody has (kOffered -> kTaken). Each offer
// has a new generation, which the sender's compare-and-swap must match, so a late answer to
// an old offer never writes anything. A receiver has one offer open at a time.
enum SplitState : std::uint64_t { kSplitIdle, kOffered, kClaimed, kDone, kFailed, kTaken };
constexpr std::uint64_t split_word(std::uint64_t generation, SplitState state) {
  return (generation << 8) | state;
}
constexpr SplitState split_state(std::uint64_t word) {
  return static_cast<SplitState>(word & 0xff);
}

// A mapping of one region: ours (created, read) or a peer's (opened, written into).
class Region {
 public:
  Region() = default;
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  // Creates and maps our own region; false with *err on failure.
  bool create(std::uint64_t token, std::size_t ring_count, std::size_t ring_bytes,
              std::string* err, std::size_t bulk_count = 0, std::size_t bulk_bytes = 0);
  // Maps a peer's region; false when it is not there (peer gone) or does not look like one.
  bool open(const std::string& name);

  std::size_t ring_count() const { return header_->ring_count; }  // private rings
  // The shared ring's index (control(), data()): after the private ones.
  std::size_t shared_index() const { return header_->ring_count; }
  std::size_t ring_bytes() const { return header_->ring_bytes; }
  std::size_t claimed() const { return header_->claimed.load(std::memory_order_acquire); }
  RingControl& control(std::size_t i) const { return controls_[i]; }
  std::atomic<std::uint64_t>& split() const { return header_->split; }
  std::atomic<std::uint32_t>& doorbell() const { return header_->doorbell; }
  void mark_closed() { header_->closed.store(1, std::memory_order_release); }
  bool closed() const { return header_->closed.load(std::memory_order_acquire) != 0; }
  std::size_t bulk_count() const { return header_->bulk_count; }
  std::size_t bulk_bytes() const { return header_->bulk_bytes; }
  unsigned char* bulk_data(std::size_t i) const { return bulk_data_ + i * header_->bulk_bytes; }
  // The bulk area as pages (kBulkPage): staged messages share it page by page (bulk_stage).
  std::size_t bulk_pages() const { return bulk_count() * bulk_bytes() / kBulkPage; }
  unsigned char* bulk_page(std::size_t i) const { return bulk_data_ + i * kBulkPage; }
  unsigned char* data(std::size_t i) const { return data_ + i * header_->ring_bytes; }
  // Claims a free ring for the sender with this token; ring_count() when none is left.
  std::size_t claim(std::uint64_t token);

 private:
  static std::size_t data_offset(std::size_t ring_count);
  void locate();  // sets the pointers below from header_
  void* base_ = nullptr;
  std::size_t size_ = 0;
  std::string unlink_name_;  // set for our own region: unlinked when we close it
  RegionHeader* header_ = nullptr;
  RingControl* controls_ = nullptr;
  unsigned char* data_ = nullptr;
  unsigned char* bulk_data_ = nullptr;
};

constexpr std::uint32_t kWrap = 0xffffffffu;      // marker: the next record is at the start
constexpr std::uint32_t kSkipLine = 0xfffffffeu;  // marker: ... at the next cache line
constexpr std::size_t kLineBytes = 64;
constexpr std::uint64_t kValid = std::uint64_t{1} << 63;
constexpr std::size_t kRecordHeader = 8;
// Line space left after a record below which the next record starts on the next line: the
// smallest usual record (a 0-8 B message with its 16-byte wire header) is 24-32 bytes.
constexpr std::size_t kMinLineRoom = 32;

// Where the record after one of `record` bytes at `pos` starts (positions count bytes ever
// written; the ring is a whole number of lines, so lines line up with positions).
constexpr std::uint64_t after_record(std::uint64_t pos, std::uint64_t record) {
  const std::uint64_t next = pos + record;
  const std::uint64_t left = (0 - next) & (kLineBytes - 1);
  return left < kMinLineRoom ? next + left : next;
}

// Record headers live in the shared bytes: 8-aligned, accessed atomically in place.
inline std::uint64_t load_header(const unsigned char* at) {
  return __atomic_load_n(reinterpret_cast<const std::uint64_t*>(at), __ATOMIC_ACQUIRE);
}
inline void store_header(unsigned char* at, std::uint64_t value, int order) {
  __atomic_store_n(reinterpret_cast<std::uint64_t*>(at), value, order);
}

// What both ends of a ring hold: its control words and its bytes (a power of two).
class RingEnd {
 protected:
  void bind(RingControl* control, unsigned char* data, std::size_t bytes) {
    control_ = control;
    data_ = data;
    mask_ = bytes - 1;
  }
  RingControl* control_ = nullptr;
  unsigned char* data_ = nullptr;
  std::uint64_t mask_ = 0;
};

// The writing end of one ring (a peer's region, the ring we claimed there).
class Writer : private RingEnd {
 public:
  // bell: the receiving region's doorbell(), rung after a record is published while armed.
  void attach(RingControl* control, unsigned char* data, std::size_t bytes,
              std::atomic<std::uint32_t>* bell = nullptr);
  bool attached() const { return control_ != nullptr; }
  // Largest record this ring takes (a quarter of it, so wrapping always leaves room).
  std::size_t max_record() const { return (mask_ + 1) / 4; }
  // Appends one record made of a, b then c; false when the ring has no room now, or when it
  // would leave less than `reserve` bytes free after it.
  bool push(const void* a, std::size_t alen, const void* b, std::size_t blen,
            const void* c = nullptr, std::size_t clen = 0, std::size_t reserve = 0);
  // The shared ring keeps its tail and clean_ in its control (SharedWriter, under its lock).
  void set_tail(std::uint64_t tail, std::uint64_t clean) {
    tail_ = tail;
    clean_ = clean;
  }
  std::uint64_t tail() const { return tail_; }
  std::uint64_t clean() const { return clean_; }

 private:
  // Makes the header slot at `next` (where the record after this one starts) read 0.
  void clear_next(std::uint64_t next, std::size_t record);
  std::uint64_t tail_ = 0;  // bytes ever written
  // Every line start in [tail_, clean_) reads 0 (cleared in this lap, see clear_next).
  std::uint64_t clean_ = 0;
  std::uint64_t head_seen_ = 0;  // the receiver's head when we last looked
  std::atomic<std::uint32_t>* bell_ = nullptr;  // never null once attached (a dummy without one)
};

// The writing end of a region's shared ring: any number of senders, one at a time.
class SharedWriter {
 public:
  void attach(RingControl* control, unsigned char* data, std::size_t bytes,
              std::atomic<std::uint32_t>* bell = nullptr);
  std::size_t max_record() const { return writer_.max_record(); }
  // Appends one record [token][a][b]; false when the ring has no room now (or its lock stayed
  // taken by a live writer for a while).
  bool push(std::uint64_t token, const void* a, std::size_t alen, const void* b,
            std::size_t blen);

 private:
  RingControl* control_ = nullptr;
  Writer writer_;
};

// The reading end of one ring (our region).
class Reader : private RingEnd {
 public:
  void attach(RingControl* control, unsigned char* data, std::size_t bytes);
  // The next record, or nullptr; it stays valid until consume().
  const unsigned char* peek(std::size_t* len) {
    const std::uint64_t h = load_header(data_ + (head_ & mask_));
    if (h == 0) {
      if (published_ != head_) publish();  // drained: the sender sees all the room there is
      return nullptr;
    }
    // Inline the common record (valid, no wrap, of a size a sender can publish); a wrap, a
    // broken ring or a header that cannot be go to peek_slow, which checks it all again.
    const std::uint64_t body = h & ~kValid;
    if ((h & kValid) != 0 && body <= (mask_ + 1) / 4 && body < kSkipLine && !broken_) {
      pending_ = (kRecordHeader + body + 7) & ~std::uint64_t{7};
      *len = static_cast<std::size_t>(body);
      return data_ + (head_ & mask_) + kRecordHeader;
    }
    return peek_slow(h, len);
  }
  // Cheaper than peek() when only asking: is a record (or a wrap) published?
  bool has_record() const { return load_header(data_ + (head_ & mask_)) != 0; }
  // The head is published lazily: every eighth of the ring, and whenever peek() finds the ring
  // drained. A sender that runs ahead (a reduce's non-root, a windowed stream) keeps a full
  // ring and reloads the head on every push; publishing per record moved the head's cache
  // line between the two CPUs twice per message. Room appears in steps instead, and never
  // later than the receiver's next look at an empty ring, so no sender waits on it for long.
  void consume() {
    head_ = after_record(head_, pending_);
    pending_ = 0;
    if (head_ - published_ >= (mask_ + 1) / 8) publish();
  }

 private:
  void publish() {
    published_ = head_;
    control_->head.store(head_, std::memory_order_release);
  }
  const unsigned char* peek_slow(std::uint64_t header, std::size_t* len);
  std::uint64_t head_ = 0;
  std::uint64_t published_ = 0;  // the head as the sender last saw it published
  std::uint64_t pending_ = 0;  // bytes of the record peek() returned
  bool broken_ = false;        // a header that cannot be: the ring is read no more
};

// The doorbell's receiving side (RegionHeader::doorbell). arm() before the last poll that may
// find nothing, then wait(): a record published after the poll wakes it. A sender's check is a
// plain load after its release store (no fence on the send path), so a record published in
// the same instant as arm() may not ring: wait() always has a timeout, which bounds that case.
void arm(std::atomic<std::uint32_t>& bell);
void wait(std::atomic<std::uint32_t>& bell, int timeout_ms);
// Wakes a waiter if one is armed (any process, any thread).
void ring(std::atomic<std::uint32_t>& bell);

}  // namespace ftmpi::transport::ring
