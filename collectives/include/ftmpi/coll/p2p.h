// What the collective algorithms need from below: a communicator view and byte-level
// non-blocking point-to-point on a context reserved for collectives. ftmpi implements this
// over its point-to-point engine; tests implement it with an in-process fake.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftmpi::coll {

enum class [[nodiscard]] Status {
  ok,
  proc_failed,  // a participant failed (or the communicator was told of a failure)
  truncated,    // a message was longer than the posted buffer
  invalid,      // bad argument (e.g. op not defined for the type)
  error,
};

using RequestId = std::int32_t;

// The processes a collective runs over. `members` lists the communicator ranks that take part,
// ascending (a BLANK communicator leaves its gaps out); buffer slots are indexed by communicator
// rank, so a gap's slot is never touched. `comm_size` is the extent (for buffer layout).
struct View {
  std::vector<int> members;
  int my_rank = 0;   // my communicator rank
  int comm_size = 0;
};

class P2P {
 public:
  virtual ~P2P() = default;
  // peer is a communicator rank; tag is an arbitrary int chosen by the algorithm.
  virtual Status isend(int peer, const void* buf, std::size_t bytes, int tag, RequestId* req) = 0;
  virtual Status irecv(int peer, void* buf, std::size_t bytes, int tag, RequestId* req) = 0;
  // Completes all n requests (also on error, so no request is left behind); returns the first
  // error. Once any participant has failed, every outstanding and later operation fails, so an
  // algorithm only has to return the status it gets.
  virtual Status waitall(RequestId* reqs, int n) = 0;
  // The sends posted between on and off are an all-to-all exchange: every member has posted
  // its receives and sends to all others at once. A hint the transport may use to copy once
  // where it would otherwise stage (it changes no result).
  virtual void all_to_all_sends(bool /*on*/) {}

  Status send(int peer, const void* buf, std::size_t bytes, int tag) {
    RequestId r;
    Status s = isend(peer, buf, bytes, tag, &r);
    return s != Status::ok ? s : waitall(&r, 1);
  }
  Status recv(int peer, void* buf, std::size_t bytes, int tag) {
    RequestId r;
    Status s = irecv(peer, buf, bytes, tag, &r);
    return s != Status::ok ? s : waitall(&r, 1);
  }
  Status sendrecv(int dst, const void* sbuf, std::size_t sbytes, int src, void* rbuf,
                  std::size_t rbytes, int tag) {
    RequestId r[2];
    Status s = irecv(src, rbuf, rbytes, tag, &r[0]);
    if (s != Status::ok) return s;
    s = isend(dst, sbuf, sbytes, tag, &r[1]);
    if (s != Status::ok) {
      (void)waitall(&r[0], 1);
      return s;
    }
    return waitall(r, 2);
  }
};

}  // namespace ftmpi::coll
