#include <ftmpi/coll/scratch.h>

#include <atomic>
#include <memory>

namespace ftmpi::coll {
namespace {

// Buffers larger than this are not kept after use, so one huge collective does not pin its
// memory for the rest of the run.
constexpr std::size_t kMaxCached = std::size_t{64} << 20;
// An algorithm holds at most three scratch buffers at once; a few more leave room for a
// collective built from others (reduce_scatter = reduce + scatterv), and for several threads.
constexpr int kSlots = 8;

// An entry belongs to whoever set in_use (exchange); only its holder touches mem and capacity.
struct CachedBuffer {
  std::unique_ptr<unsigned char[]> mem;
  std::atomic<std::size_t> capacity{0};
  std::atomic<bool> in_use{false};
};

// One cache for the process, not one per thread: a nonblocking collective's fiber may take a
// buffer on one thread and be resumed, and give it back, on another (ftmpi/src/nbc.h), and the
// first thread may exit meanwhile; per-thread buffers were then freed under the fiber or
// handed to another thread's running collective (heap corruption and wrong results in
// threads.construct with MPI_Comm_idup). Threads share it through in_use (the unit tests run
// simulated ranks as concurrent threads).
CachedBuffer cache[kSlots];

bool claim(CachedBuffer& c) { return !c.in_use.exchange(true, std::memory_order_acquire); }

}  // namespace

void Scratch::take(std::size_t bytes) {
  CachedBuffer* got = nullptr;
  if (bytes <= kMaxCached) {
    // A free buffer already big enough first (no fresh pages); else grow any free one.
    for (CachedBuffer& c : cache) {
      if (c.in_use.load(std::memory_order_relaxed) ||
          c.capacity.load(std::memory_order_relaxed) < bytes || !claim(c)) {
        continue;
      }
      if (c.capacity.load(std::memory_order_relaxed) >= bytes) {
        got = &c;
        break;
      }
      c.in_use.store(false, std::memory_order_release);
    }
    for (CachedBuffer* c = cache; got == nullptr && c != cache + kSlots; ++c) {
      if (c->in_use.load(std::memory_order_relaxed) || !claim(*c)) continue;
      got = c;
    }
  }
  if (got == nullptr) {
    data_ = new unsigned char[bytes];
    return;
  }
  if (got->capacity.load(std::memory_order_relaxed) < bytes) {
    got->mem.reset(new unsigned char[bytes]);
    got->capacity.store(bytes, std::memory_order_relaxed);
  }
  cached_ = got;
  data_ = got->mem.get();
}

void Scratch::give_back() {
  if (cached_ != nullptr) {
    static_cast<CachedBuffer*>(cached_)->in_use.store(false, std::memory_order_release);
  } else {
    delete[] data_;
  }
}

}  // namespace ftmpi::coll
