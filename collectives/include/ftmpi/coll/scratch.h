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
  explicit Scratch(std::size_t bytes);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  unsigned char* data() { return data_; }

 private:
  unsigned char* data_ = nullptr;
  // The cache entry it took (scratch.cpp), nullptr when heap-owned by this object.
  void* cached_ = nullptr;
  alignas(16) unsigned char inline_[128];  // small messages: no allocation at all
};

namespace detail {
using ::ftmpi::coll::Scratch;
}  // namespace detail

}  // namespace ftmpi::coll
