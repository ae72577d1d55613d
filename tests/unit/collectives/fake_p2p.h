// An in-process point-to-point layer for testing the collective algorithms: every simulated
// rank is a thread with its own endpoint. Matching is by (source, tag) in FIFO order, like
// MPI. Sends are rendezvous (a send completes only when a receive has taken its data), the
// strictest protocol a real transport may use, so an algorithm that would deadlock without
// eager buffering deadlocks here too. It is also stricter than MPI about sizes: a message
// whose length differs from the posted receive is reported as a protocol error, because our
// algorithms always know exact sizes.
//
// Failures: fail(rank) makes every pending and later operation of every rank fail with
// proc_failed (the P2P contract); fail_at_call(rank, k) does so when that rank makes its k-th
// isend/irecv. A wait that makes no progress for `hang_limit` is recorded as a hang, fails
// the world (so all threads return) and returns Status::error.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ftmpi/coll/p2p.h"

namespace ftmpi::coll::testing {

class FakeWorld {
 public:
  // Ranks 0..comm_size-1; `members` are the ranks that may take part (others are gaps, and
  // talking to them is a protocol error).
  FakeWorld(int comm_size, std::vector<int> members,
            std::chrono::milliseconds hang_limit = std::chrono::milliseconds(4000));
  ~FakeWorld();

  P2P& endpoint(int rank);

  void fail(int rank);
  void fail_at_call(int rank, int call);

  bool failed() const;
  bool hung() const;
  std::string protocol_error() const;  // empty when the algorithms behaved
  long messages() const;               // matched messages, for sanity checks
  // Requests posted but never completed by waitall: every algorithm must complete what it
  // posts, also on its error paths, or a late message could land in a freed buffer.
  int leaked_requests() const;

 private:
  class Endpoint;
  friend class Endpoint;

  struct Pending {  // an unmatched send or receive
    int peer;       // source (for receives) or sender (for sends waiting in an inbox)
    int tag;
    const void* send_buf;
    void* recv_buf;
    std::size_t bytes;
    RequestId req;
  };

  void fail_locked(const std::string& why);
  void note_protocol_error(const std::string& what);

  const int size_;
  std::vector<bool> member_;
  const std::chrono::milliseconds hang_limit_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  bool failed_ = false;
  bool hung_ = false;
  std::string protocol_error_;
  long messages_ = 0;
};

}  // namespace ftmpi::coll::testing
