// Requests the user holds as integer handles. Records live in fixed chunks (stable addresses, so
// the transport can carry a Request* as its operation context; a handle finds its record with a
// shift and a mask, where std::deque divided) and are recycled through a free list.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "error.h"

namespace ftmpi {

struct Comm;
struct Datatype;
struct PersistentColl;  // api_pcoll.cpp

struct Request {
  // ulfm: MPIX_Comm_iagree / MPIX_Comm_ishrink, completed by Ulfm::poll (ulfm.h).
  // nbc: a nonblocking collective, completed by its own code through Nbc::poll (nbc.h).
  // pair: MPI_Isendrecv(_replace), a receive and a send (`pair`) completed together
  // (api_isendrecv.cpp); failures purge its two parts, never the pair itself.
  // greq: a generalized request, completed by MPI_Grequest_complete (api_grequest.cpp).
  enum class Kind : unsigned char { unused, send, recv, probe, done_at_once, persistent, ulfm, nbc,
                                    pair, greq };
  Kind kind = Kind::unused;
  bool complete = false;   // complete as the user sees it
  // The transport still holds this record as an operation context. A request completed early
  // (a failure purge) stays allocated until the transport reports it, then is recycled.
  bool in_transport = false;
  bool retired = false;    // the user is done with it; recycle once the transport is
  bool found = false;      // probe: a matching message is waiting
  bool cancelled = false;  // MPI_Cancel took effect (MPI_Test_cancelled)
  bool cancel_asked = false;  // send: MPI_Cancel asked the receiver already
  bool sync = false;          // a synchronous send (its ack says the message was matched)
  // Its owner ends it when the process at the other end fails (MPI_Comm_create_group's
  // exchange): a failure of another process does not purge it in NOP mode.
  bool own_failures = false;
  std::uint32_t message = 0;  // send: its number among this process's sends to the peer
  int parts = 1;           // completions still needed (a synchronous send also waits for its ack)
  Request* ack = nullptr;  // synchronous send: its pending ack receive
  // Persistent request (MPI_*_init): the arguments, and the operation MPI_Start began.
  struct Persistent {
    int op = 0;  // 0 send, 1 ssend, 2 bsend, 3 rsend, 4 recv
    void* buf = nullptr;
    int count = 0;
    const Datatype* type = nullptr;  // held (DatatypeTable::hold); the communicator: `comm`
    int peer = 0;
    int tag = 0;
    MPI_Request active = MPI_REQUEST_NULL;  // handle of the started operation, if any
    // A persistent collective (MPI_Allreduce_init, ...; api_pcoll.cpp): its call, owned by
    // the request until MPI_Request_free; nullptr for point-to-point ones.
    PersistentColl* coll = nullptr;
  } persistent;
  // A pair's parts, each a request the user never sees (a send or receive, or one complete
  // from the start: MPI_PROC_NULL, a ULFM failure); nullptr once retired.
  struct Pair {
    Request* recv = nullptr;
    Request* send = nullptr;
  } pair;
  int error = MPI_SUCCESS;      // an MPI error code, detail included (see error.h)
  Comm* comm = nullptr;
  // `comm` is held (Constructor::hold_for) until this record is recycled: MPI_Comm_free while
  // the operation is pending only detaches the handle (MPI-3.1 6.4.3); RequestPool::release
  // gives the hold back, the last one finishes the free.
  bool holds_comm = false;
  int peer = 0;                 // communicator rank named by the call (for error messages)
  int source = MPI_ANY_SOURCE;  // filled on completion
  int tag = MPI_ANY_TAG;
  std::size_t bytes = 0;        // received bytes
  MPI_Request handle = MPI_REQUEST_NULL;
  // Library-internal traffic (consensus): the request owns its buffer and, if set, the hook
  // consumes the completion instead of a user. The engine recycles such requests itself.
  // A non-contiguous receive lands in `owned` and is unpacked into the user's buffer when the
  // user completes the request; the type is held (acquired) until then.
  const Datatype* unpack_type = nullptr;
  void* unpack_to = nullptr;
  std::size_t unpack_count = 0;
  bool internal = false;
  std::vector<std::uint8_t> owned;
  void (*hook)(Request& r, void* arg) = nullptr;
  void* hook_arg = nullptr;
  std::uint64_t match_bits = 0;  // full tag of a completed internal receive
  // A user request's completion hook (ftmpi_request_on_done, api_request_hook.cpp): run once,
  // when its completion is first handed to the user (retire, MPI_Request_get_status) or, if
  // that never happens (MPI_Request_free of a pending one), when its record is recycled; and at
  // MPI_Finalize for a request never completed (`completed` 0 then: the operation did not end).
  void (*on_done)(void* arg, int completed) = nullptr;
  void* on_done_arg = nullptr;
  // RequestPool::mark_once: the last array check that saw this record (duplicate handles).
  std::uint32_t seen_mark = 0;
};

// Runs and clears r's completion hook, if any (library lock held; the hook makes no MPI call).
inline void run_on_done(Request& r, bool completed = true) {
  if (__builtin_expect(r.on_done != nullptr, 0)) {
    void (*fn)(void*, int) = r.on_done;
    r.on_done = nullptr;
    fn(r.on_done_arg, completed ? 1 : 0);
  }
}

class RequestPool {
 public:
  Request* allocate(Request::Kind kind) {
    Request* r;
    if (!free_.empty()) {
      r = free_.back();
      free_.pop_back();
      MPI_Request h = r->handle;
      // Rebuilt in place from the member initializers: `*r = Request{}` zeroed a temporary
      // with `rep stos` and moved it over, ~7% of an 8-byte allreduce.
      r->~Request();
      new (r) Request;
      r->handle = h;
    } else {
      if (count_ % kChunk == 0) chunks_.push_back(std::make_unique<Request[]>(kChunk));
      r = &chunks_.back()[count_ % kChunk];
      r->handle = static_cast<MPI_Request>(++count_);
    }
    r->kind = kind;
    return r;
  }
  // Set once by MPI_Init: gives back a request's hold on its communicator (Constructor::drop).
  void set_comm_drop(void (*drop)(Comm*)) { drop_comm_ = drop; }
  void release(Request* r) {
    run_on_done(*r);  // a user request freed while pending: its hook was not run at retire
    Comm* held = r->holds_comm ? r->comm : nullptr;
    r->kind = Request::Kind::unused;
    // Keep one staging buffer (packed non-contiguous data) for the next such operation: a
    // fresh multi-MiB vector costs an mmap and a page fault per 4 KiB, every time.
    if (r->owned.capacity() > spare_.capacity() && r->owned.capacity() <= kMaxSpare) {
      spare_.swap(r->owned);
    }
    free_.push_back(r);
    // Last: the drop may finish a communicator's free, whose retire notices take records.
    if (held != nullptr) drop_comm_(held);
  }
  // A buffer of `bytes` bytes for packed data, reusing the kept one when it is big enough.
  std::vector<std::uint8_t> take_buffer(std::size_t bytes) {
    std::vector<std::uint8_t> v;
    if (spare_.capacity() >= bytes) v.swap(spare_);
    v.resize(bytes);
    return v;
  }
  // nullptr for handles that are not live requests.
  Request* find(MPI_Request handle) {
    // One unsigned compare rejects both handle <= 0 and handles never given out.
    const std::size_t i = static_cast<std::size_t>(handle) - 1;
    if (i >= count_) return nullptr;
    Request* r = &chunks_[i / kChunk][i % kChunk];
    return (r->kind == Request::Kind::unused || r->retired) ? nullptr : r;
  }
  std::size_t live() const { return count_ - free_.size(); }
  template <typename F>
  void for_each_live(F&& f) {
    for (std::size_t i = 0; i < count_; ++i) {
      Request& r = chunks_[i / kChunk][i % kChunk];
      if (r.kind != Request::Kind::unused) f(r);
    }
  }
  // A fresh mark for one pass over a request array: mark_once(r, m) is false when r was marked
  // with m already, i.e. the array names it twice. O(n) with no allocation, where sorting a
  // copy of the array cost ~170 instructions per request in a 128-request MPI_Waitall.
  std::uint32_t new_mark() {
    if (++mark_ == 0) {  // wrapped after 2^32 checks: no record may keep an old equal mark
      for (std::size_t i = 0; i < count_; ++i) chunks_[i / kChunk][i % kChunk].seen_mark = 0;
      mark_ = 1;
    }
    return mark_;
  }
  static bool mark_once(Request* r, std::uint32_t mark) {
    if (r->seen_mark == mark) return false;
    r->seen_mark = mark;
    return true;
  }

 private:
  static constexpr std::size_t kChunk = 64;  // records per chunk
  std::vector<std::unique_ptr<Request[]>> chunks_;
  std::size_t count_ = 0;  // records ever made; handle h is record h - 1
  std::uint32_t mark_ = 0;
  std::vector<Request*> free_;
  void (*drop_comm_)(Comm*) = nullptr;
  static constexpr std::size_t kMaxSpare = std::size_t{16} << 20;
  std::vector<std::uint8_t> spare_;
};

}  // namespace ftmpi
