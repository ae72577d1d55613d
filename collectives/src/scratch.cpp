#include <ftmpi/coll/scratch.h>

#include <memory>

namespace ftmpi::coll {
namespace {

// Buffers larger than this are not kept after use, so one huge collective does not pin its
// memory for the rest of the run.
constexpr std::size_t kMaxCached = std::size_t{64} << 20;
// An algorithm holds at most three scratch buffers at once; a few more leave room for a
// collective built from others (reduce_scatter = reduce + scatterv).
constexpr int kSlots = 6;

struct CachedBuffer {
  std::unique_ptr<unsigned char[]> mem;
  std::size_t capacity = 0;
  bool in_use = false;
};

// Per thread, so concurrent collectives on different communicators never share a buffer.
thread_local CachedBuffer cache[kSlots];

}  // namespace

Scratch::Scratch(std::size_t bytes) {
  if (bytes <= sizeof inline_) {
    data_ = inline_;
    return;
  }
  int pick = -1;
  if (bytes <= kMaxCached) {
    // Prefer a free buffer that is already big enough; otherwise grow the largest free one.
    for (int i = 0; i < kSlots; ++i) {
      if (cache[i].in_use) continue;
      if (cache[i].capacity >= bytes) {
        pick = i;
        break;
      }
      if (pick < 0 || cache[i].capacity > cache[pick].capacity) pick = i;
    }
  }
  if (pick < 0) {
    data_ = new unsigned char[bytes];
    return;
  }
  CachedBuffer& c = cache[pick];
  if (c.capacity < bytes) {
    c.mem.reset(new unsigned char[bytes]);
    c.capacity = bytes;
  }
  c.in_use = true;
  slot_ = pick;
  data_ = c.mem.get();
}

Scratch::~Scratch() {
  if (slot_ >= 0) {
    cache[slot_].in_use = false;
  } else if (data_ != inline_) {
    delete[] data_;
  }
}

}  // namespace ftmpi::coll
