#include "shm_ring.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "small_copy.h"

namespace ftmpi::transport::ring {

namespace {

constexpr std::uint64_t kMagic = 0x35474e52494d5446ull;  // "FTMIRNG5" (after_record's rule)
// The shared ring's owner word: never 0, so no sender claims it as a private ring.
constexpr std::uint64_t kSharedOwner = ~std::uint64_t{0};
constexpr const char* kPrefix = "ftmpi-ring.";

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

std::string region_name(std::uint64_t pid, std::uint64_t uid, std::uint64_t token) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "/%s%" PRIu64 ".%" PRIu64 ".%016" PRIx64, kPrefix, pid, uid,
                token);
  return buf;
}

// Layout: header, ring controls (private rings, then the shared one), then (page-aligned) the
// rings' bytes and the bulk slots.
std::size_t Region::data_offset(std::size_t ring_count) {
  return round_up(sizeof(RegionHeader) + (ring_count + 1) * sizeof(RingControl), 4096);
}

void Region::locate() {
  auto* base = static_cast<unsigned char*>(base_);
  controls_ = reinterpret_cast<RingControl*>(base + sizeof(RegionHeader));
  data_ = base + data_offset(header_->ring_count);
  bulk_data_ = data_ + (header_->ring_count + 1) * header_->ring_bytes;
}

Region::~Region() {
  if (base_ != nullptr) munmap(base_, size_);
  if (!unlink_name_.empty()) shm_unlink(unlink_name_.c_str());
}

bool Region::create(std::uint64_t token, std::size_t ring_count, std::size_t ring_bytes,
                    std::string* err, std::size_t bulk_count, std::size_t bulk_bytes) {
  const std::string name = region_name(static_cast<std::uint64_t>(getpid()), getuid(), token);
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    if (err != nullptr) *err = "shm_open(" + name + "): " + std::strerror(errno);
    return false;
  }
  if (bulk_count == 0 || bulk_bytes == 0) bulk_count = bulk_bytes = 0;
  bulk_bytes = round_up(bulk_bytes, 4096);
  const std::size_t rings_end = data_offset(ring_count) + (ring_count + 1) * ring_bytes;
  size_ = rings_end + bulk_count * bulk_bytes;
  // tmpfs allocates pages only when touched: rings nobody claims cost nothing.
  if (ftruncate(fd, static_cast<off_t>(size_)) != 0) {
    if (err != nullptr) *err = "ftruncate(" + name + "): " + std::strerror(errno);
    close(fd);
    shm_unlink(name.c_str());
    return false;
  }
  // The bulk slots are written in full; reserve their pages now or have none.
  if (bulk_count != 0 &&
      posix_fallocate(fd, static_cast<off_t>(rings_end), static_cast<off_t>(size_ - rings_end)) != 0) {
    bulk_count = bulk_bytes = 0;
  }
  void* base = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    if (err != nullptr) *err = "mmap(" + name + "): " + std::strerror(errno);
    shm_unlink(name.c_str());
    return false;
  }
  base_ = base;
  unlink_name_ = name;
  header_ = static_cast<RegionHeader*>(base_);
  header_->ring_count = ring_count;
  header_->ring_bytes = ring_bytes;
  header_->bulk_count = bulk_count;
  header_->bulk_bytes = bulk_bytes;
  locate();
  header_->claimed.store(0, std::memory_order_relaxed);
  controls_[ring_count].owner.store(kSharedOwner, std::memory_order_relaxed);
  header_->split.store(split_word(0, kSplitIdle), std::memory_order_relaxed);
  header_->doorbell.store(0, std::memory_order_relaxed);
  // Last: a sender that maps the region before this store sees no magic and does not use it.
  header_->magic.store(kMagic, std::memory_order_release);
  return true;
}

bool Region::open(const std::string& name) {
  int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) return false;
  struct stat st{};
  if (fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) < sizeof(RegionHeader)) {
    close(fd);
    return false;
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) return false;
  auto* h = static_cast<RegionHeader*>(base);
  const std::uint64_t magic = h->magic.load(std::memory_order_acquire);
  const bool sane = magic == kMagic && h->ring_count != 0 && h->ring_bytes >= 4096 &&
                    (h->ring_bytes & (h->ring_bytes - 1)) == 0 &&
                    h->ring_count < (1u << 20) && h->bulk_count < (1u << 20) &&
                    h->bulk_bytes < (std::uint64_t{1} << 32) &&
                    data_offset(h->ring_count) + (h->ring_count + 1) * h->ring_bytes +
                            h->bulk_count * h->bulk_bytes <=
                        size;
  if (!sane) {
    munmap(base, size);
    return false;
  }
  base_ = base;
  size_ = size;
  header_ = h;
  locate();
  return true;
}

std::size_t Region::claim(std::uint64_t token) {
  const std::size_t n = ring_count();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t expected = 0;
    if (!controls_[i].owner.compare_exchange_strong(expected, token, std::memory_order_acq_rel)) {
      continue;
    }
    // Tell the receiver to look at rings up to this one.
    std::uint64_t c = header_->claimed.load(std::memory_order_relaxed);
    while (c < i + 1 &&
           !header_->claimed.compare_exchange_weak(c, i + 1, std::memory_order_release)) {
    }
    return i;
  }
  return n;
}

namespace {
std::atomic<std::uint32_t> g_no_bell{0};  // the bell of a writer given none: never armed
}  // namespace

void Writer::attach(RingControl* control, unsigned char* data, std::size_t bytes,
                    std::atomic<std::uint32_t>* bell) {
  bind(control, data, bytes);
  bell_ = bell != nullptr ? bell : &g_no_bell;
  tail_ = clean_ = 0;  // a ring is claimed once, fresh
  head_seen_ = control->head.load(std::memory_order_acquire);
}

namespace {

// Cache lines n bytes from a line boundary touch.
constexpr std::size_t lines(std::size_t n) { return (n + kLineBytes - 1) / kLineBytes; }

}  // namespace

// The receiver polls the header slot at its read position, so the slot after each record must
// read 0 before the record is published. A slot inside a line (the record ends mid-line) is in
// the record's own line: cleared with it. Line starts are cleared ahead, up to kClearAhead
// bytes past the writer in one batch whenever fewer than kRefillBelow are left, while the
// receiver is still reading lines before them. Clearing the next line just before publishing
// the record in front of it (as this did) gave that line to the writer right when a caught-up
// receiver polls it, so it crossed between the CPUs twice per record instead of once.
// 64-message windows (tests/bench/window_bw.sh): 8 B 6.8 -> 4.7 us, 1 KiB 29 -> 13.6, 2 KiB
// 34 -> 21. Measured and not kept: clearing one line per line passed (8 B: 8.7 us), 512 B
// ahead (less than a 1 KiB record: 27 us), and clearing ahead for records over 2.5 KiB (4 KiB:
// 34 -> 39 us; the lines cleared are the next record's own, taken early), which clear only
// the slot after them. Only free bytes are cleared (below head_seen_ + the ring's size;
// push's room check covers `next`).
void Writer::clear_next(std::uint64_t next, std::size_t record) {
  constexpr std::uint64_t kClearAhead = 64 * kLineBytes;
  constexpr std::uint64_t kRefillBelow = 16 * kLineBytes;
  if ((next & (kLineBytes - 1)) != 0 || record > kClearAhead * 5 / 8) {
    store_header(data_ + (next & mask_), 0, __ATOMIC_RELAXED);
    return;
  }
  if (next + kRefillBelow < clean_) return;
  std::uint64_t line = next < clean_ ? clean_ : next;
  if (line == next) {
    store_header(data_ + (next & mask_), 0, __ATOMIC_RELAXED);
    line += kLineBytes;
  }
  const std::uint64_t free_end = (head_seen_ + mask_ + 1) & ~std::uint64_t{kLineBytes - 1};
  const std::uint64_t end = std::min(next + kClearAhead, free_end);
  for (; line < end; line += kLineBytes) store_header(data_ + (line & mask_), 0, __ATOMIC_RELAXED);
  clean_ = line;
}

bool Writer::push(const void* a, std::size_t alen, const void* b, std::size_t blen,
                  const void* c, std::size_t clen, std::size_t reserve) {
  const std::size_t body = alen + blen + clen;
  const std::size_t record = round_up(kRecordHeader + body, 8);
  const std::uint64_t size = mask_ + 1;
  const std::size_t pos = static_cast<std::size_t>(tail_ & mask_);
  // Where the record goes: here; at the next cache line when starting here would spread it
  // over one line more than it needs (kSkipLine: the receiver takes each line in turn, and
  // records of mixed sizes, such as a ping-pong's command among its 8 B messages, left half
  // of those 32-byte records across a line boundary); at the ring's start when it does not
  // fit before the end (kWrap; the start is a line boundary too).
  std::size_t lead = 0;
  std::uint32_t marker = 0;
  const std::size_t in_line = pos % kLineBytes;
  if (in_line != 0 && lines(in_line + record) > lines(record)) {
    lead = kLineBytes - in_line;  // pos + lead <= size: size is a multiple of the line
    marker = kSkipLine;
  }
  if (record > size - pos - lead) {
    lead = static_cast<std::size_t>(size) - pos;
    marker = kWrap;
  }
  const std::uint64_t next = after_record(tail_ + lead, record);
  // Room for the record and the next one's header, which is cleared now (and the reserve).
  // On the shared ring the other writers move the tail on while this writer's head_seen_
  // stays where it last looked, so tail_ - head_seen_ can exceed the ring: that is no room
  // known, not (wrapped around) plenty of it. The ring overran its reader that way.
  const std::size_t need = static_cast<std::size_t>(next - tail_) + kRecordHeader + reserve;
  auto room = [&] { return tail_ - head_seen_ > size ? 0 : size - (tail_ - head_seen_); };
  if (room() < need) {
    head_seen_ = control_->head.load(std::memory_order_acquire);
    if (room() < need) return false;
  }
  unsigned char* p = marker == kWrap ? data_ : data_ + pos + lead;
  clear_next(next, record);
  copy_small(p + kRecordHeader, a, alen);
  copy_small(p + kRecordHeader + alen, b, blen);
  if (clen != 0) std::memcpy(p + kRecordHeader + alen + blen, c, clen);
  store_header(p, kValid | body, __ATOMIC_RELEASE);
  // The marker last (its slot is the header this ring's previous push cleared): a receiver
  // that sees it finds the record it points to published.
  if (marker != 0) store_header(data_ + pos, kValid | marker, __ATOMIC_RELEASE);
  tail_ = next;
  if (__builtin_expect(bell_->load(std::memory_order_relaxed) != 0, 0)) ring(*bell_);
  return true;
}

void SharedWriter::attach(RingControl* control, unsigned char* data, std::size_t bytes,
                          std::atomic<std::uint32_t>* bell) {
  control_ = control;
  writer_.attach(control, data, bytes, bell);
}

bool SharedWriter::push(std::uint64_t token, const void* a, std::size_t alen, const void* b,
                        std::size_t blen) {
  const std::uint64_t me = static_cast<std::uint64_t>(getpid());
  for (unsigned spins = 1;; ++spins) {
    std::uint64_t holder = 0;
    if (control_->lock.compare_exchange_weak(holder, me, std::memory_order_acquire)) break;
    if (spins % 64 != 0) continue;
    // A holder killed inside push() would keep the lock forever: take it back from the dead.
    if (holder != 0 && kill(static_cast<pid_t>(holder), 0) != 0 && errno == ESRCH) {
      control_->lock.compare_exchange_strong(holder, 0, std::memory_order_relaxed);
    }
    if (spins >= 64 * 64) return false;  // the caller defers and tries again from poll()
    sched_yield();
  }
  writer_.set_tail(control_->tail.load(std::memory_order_relaxed),
                   control_->clean.load(std::memory_order_relaxed));
  const bool ok = writer_.push(&token, sizeof token, a, alen, b, blen);
  control_->tail.store(writer_.tail(), std::memory_order_relaxed);
  control_->clean.store(writer_.clean(), std::memory_order_relaxed);
  control_->lock.store(0, std::memory_order_release);
  return ok;
}

void Reader::attach(RingControl* control, unsigned char* data, std::size_t bytes) {
  bind(control, data, bytes);
  head_ = control->head.load(std::memory_order_relaxed);
  published_ = head_;
  pending_ = 0;
  broken_ = false;
}

const unsigned char* Reader::peek_slow(std::uint64_t header, std::size_t* len) {
  if (broken_) return nullptr;
  // A marker (Writer::push): skip to the ring's start or to the next line, where the record
  // it stands for is published already.
  if (header == (kValid | kWrap) || header == (kValid | kSkipLine)) {
    head_ += header == (kValid | kWrap) ? (mask_ + 1) - (head_ & mask_)
                                        : kLineBytes - (head_ & (kLineBytes - 1));
    header = load_header(data_ + (head_ & mask_));
    if (header == 0) return nullptr;  // cannot be (see above); read on at the next poll
  }
  const std::uint64_t body = header & ~kValid;
  const std::size_t record = round_up(kRecordHeader + static_cast<std::size_t>(body & mask_), 8);
  if ((header & kValid) == 0 || body > mask_ || record > (mask_ + 1) / 4 + kRecordHeader) {
    // Cannot be: a sender publishes whole records of at most max_record(). Read this ring no
    // more rather than read past a record; the sender's later messages are lost with it.
    broken_ = true;
    return nullptr;
  }
  pending_ = record;
  *len = static_cast<std::size_t>(body);
  return data_ + (head_ & mask_) + kRecordHeader;
}

}  // namespace ftmpi::transport::ring

namespace ftmpi::transport::ring {

// The futex calls are the process-shared kind (no FUTEX_PRIVATE_FLAG): waiter and waker are
// different processes mapping the same region.
void arm(std::atomic<std::uint32_t>& bell) { bell.exchange(1, std::memory_order_seq_cst); }

void wait(std::atomic<std::uint32_t>& bell, int timeout_ms) {
  timespec ts{timeout_ms / 1000, static_cast<long>(timeout_ms % 1000) * 1000000L};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&bell), FUTEX_WAIT, 1u, &ts, nullptr, 0);
}

void ring(std::atomic<std::uint32_t>& bell) {
  if (bell.exchange(0, std::memory_order_acq_rel) == 0) return;  // somebody rang already
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&bell), FUTEX_WAKE, 0x7fffffff, nullptr,
          nullptr, 0);
}

}  // namespace ftmpi::transport::ring
