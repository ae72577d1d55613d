// Temporary buffers for the algorithms (partial results, blocks in tree order). Large
// collectives would otherwise malloc and free megabytes per call, and glibc serves those
// with fresh mmap'ed pages, so every call would pay page faults; a few buffers per process
// are kept instead and reused. The library's staging of non-contiguous datatypes uses them
// too (ftmpi/src/coll_stage.cpp).
#pragma once

#include <cstddef>

namespace ftmpi::coll {

class Scratch {
 public:
  // Inline for the small case: an 8 B reduction takes two of these per call, and the calls
  // into scratch.cpp were most of their cost.
  explicit Scratch(std::size_t bytes) {
    if (bytes <= sizeof inline_) {
      data_ = inline_;
    } else {
      take(bytes);
    }
  }
  ~Scratch() {
    if (data_ != inline_) give_back();
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  unsigned char* data() { return data_; }

 private:
  void take(std::size_t bytes);  // a cached buffer or the heap (scratch.cpp)
  void give_back();

  unsigned char* data_ = nullptr;
  // The cache entry it took (scratch.cpp), nullptr when heap-owned by this object.
  void* cached_ = nullptr;
  alignas(16) unsigned char inline_[128];  // small messages: no allocation at all
};

namespace detail {
using ::ftmpi::coll::Scratch;
}  // namespace detail

}  // namespace ftmpi::coll
