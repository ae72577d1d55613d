// A communicator's per-rank process states (FTMPI_PROC_*), and the collectives' view of its
// members derived from them.
//
// ProcStates is the one owner of the states: every write (failure notices, suspicions,
// repairs, construction) goes through set()/assign()/copy, and each moves version(). What is
// derived from the states is then cached and rebuilt only when the version moved: the members'
// view every collective needs (MembersView, ~57 instructions a call when it was rebuilt per
// call; callgrind, tests/bench/ft_cost.c). Versions come from one process-wide counter, so two
// ProcStates never share one and a copied cache can never pass for another's.
#pragma once

#include <ftmpi/coll/p2p.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftmpi {

class ProcStates {
 public:
  ProcStates() = default;
  ProcStates(const ProcStates& o) : states_(o.states_), version_(next_version()) {}
  ProcStates& operator=(const ProcStates& o) {
    states_ = o.states_;
    touch();
    return *this;
  }

  std::size_t size() const { return states_.size(); }
  bool empty() const { return states_.empty(); }
  unsigned char operator[](std::size_t r) const { return states_[r]; }
  const unsigned char* data() const { return states_.data(); }
  std::vector<unsigned char>::const_iterator begin() const { return states_.begin(); }
  std::vector<unsigned char>::const_iterator end() const { return states_.end(); }

  void set(std::size_t r, unsigned char s) {
    states_[r] = s;
    touch();
  }
  void assign(std::size_t n, unsigned char s) {
    states_.assign(n, s);
    touch();
  }
  // Moves on every write; never 0 once written.
  std::uint64_t version() const { return version_; }

 private:
  void touch() { version_ = next_version(); }
  // Writes are rare (construction, failure, repair): an atomic increment costs nothing there,
  // and holds under MPI_THREAD_MULTIPLE whichever thread applies a failure notice.
  static std::uint64_t next_version() {
    static std::atomic<std::uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  std::vector<unsigned char> states_;
  std::uint64_t version_ = 0;
};

// The participants of a communicator's collectives: its ranks that are not failed (BLANK gaps
// left out), ascending. Rebuilt only when the states, my rank or the size changed since the
// last call, so a collective started right after a failure notice sees the failure.
// The reference stays valid (and unchanged) until the next of() on the same communicator,
// which happens only at the next blocking collective's entry outside a fiber: MPI orders a
// communicator's collectives, so no collective is still using it then. Code on a fiber (a
// nonblocking collective or construction, which may run inside another collective's wait on
// the same communicator) builds its own copy with build() and never touches the cache.
class MembersView {
 public:
  const coll::View& of(const ProcStates& states, int my_rank, int size) {
    if (states.version() != version_ || my_rank != view_.my_rank || size != view_.comm_size) {
      build(states, my_rank, size, &view_);
      version_ = states.version();
    }
    return view_;
  }
  // The view from the states as they are, into *out (reusing its storage).
  static void build(const ProcStates& states, int my_rank, int size, coll::View* out);

 private:

  coll::View view_;
  std::uint64_t version_ = 0;
};

}  // namespace ftmpi
