// Completions that exist before poll() asks for them: those reaped while a post was retried on
// -FI_EAGAIN, sends finished by inject, and peer_failed completions synthesized by
// mark_peer_failed(). poll() hands these out first, in order.
#pragma once

#include <cstddef>
#include <vector>

#include "ftmpi/transport/endpoint.h"

namespace ftmpi::transport {

class CompletionBacklog {
 public:
  CompletionBacklog() { items_.reserve(1024); }

  bool empty() const { return head_ == items_.size(); }
  void push(const Completion& c) { items_.push_back(c); }

  // Removes the queued completion of `context` into *out, if there is one (rare: MPI_Cancel of
  // a send completed here that the caller has not seen complete yet). Order of the rest is kept.
  bool take(const void* context, Completion* out) {
    for (std::size_t i = head_; i < items_.size(); ++i) {
      if (items_[i].context != context) continue;
      *out = items_[i];
      items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    return false;
  }

  // Moves up to max completions to out; returns how many.
  std::size_t drain(Completion* out, std::size_t max) {
    std::size_t n = 0;
    while (n < max && head_ < items_.size()) out[n++] = items_[head_++];
    // Rewinding once empty keeps the vector at its high-water capacity: no reallocation.
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    }
    return n;
  }

 private:
  std::vector<Completion> items_;
  std::size_t head_ = 0;
};

}  // namespace ftmpi::transport
