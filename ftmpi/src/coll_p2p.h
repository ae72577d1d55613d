// The collectives layer's point-to-point interface, implemented over the engine on the
// communicator's collective context. Failure readiness lives here, once: when the communicator
// learns of a failure, every outstanding operation of the collective is purged and every
// later one fails, so no algorithm waits on a dead participant or on a survivor that gave up.
#pragma once

#include <ftmpi/coll/p2p.h>

#include <vector>

#include "comm.h"
#include "engine.h"
#include "nbc.h"

namespace ftmpi {

class CommP2P final : public coll::P2P {
 public:
  CommP2P(Engine* engine, Comm* comm)
      : engine_(engine), comm_(comm), tag_offset_(Nbc::tag_offset()) {}
  // Inline: a collective on one member, or one that waited for all it posted, has nothing
  // left here and should not pay a call (or a walk over its ids) for that.
  ~CommP2P() override {
    if (outstanding_ > 0) retire_left();
  }

  coll::Status isend(int peer, const void* buf, std::size_t bytes, int tag,
                     coll::RequestId* req) override;
  coll::Status irecv(int peer, void* buf, std::size_t bytes, int tag,
                     coll::RequestId* req) override;
  coll::Status waitall(coll::RequestId* reqs, int n) override;
  void all_to_all_sends(bool on) override { engine_->set_all_to_all(on); }

  // The participants: the communicator's ranks that are not failed (BLANK gaps left out),
  // cached in the communicator (proc_states.h: valid until the next collective's entry; only
  // a blocking collective outside a fiber may use it).
  static const coll::View& members_of(const Comm& comm) {
    return comm.members_view.of(comm.proc_state, comm.rank, comm.size());
  }
  // The same, built into *out (reusing its storage) without touching the cache: for code that
  // may run inside another collective's wait (a nonblocking collective, a construction).
  static void view_of(const Comm& comm, coll::View* out) {
    MembersView::build(comm.proc_state, comm.rank, comm.size(), out);
  }

 private:
  bool failed() const { return comm_->state == FTMPI_COMM_DETECTED || comm_->state == FTMPI_COMM_FAILED; }
  coll::Status track(Err e, Request* r, coll::RequestId* req);
  // Purges and retires what an algorithm that returned early left behind.
  void retire_left();

  // The request behind an id: the first kInline live in the object (no allocation for the
  // common algorithms), the rest in a vector; nullptr once waited for, or for a send that
  // needed no request (isend).
  Request*& slot(coll::RequestId id) {
    return id < kInline ? inline_[id] : more_[static_cast<std::size_t>(id - kInline)];
  }

  static constexpr int kInline = 32;
  Engine* engine_;
  Comm* comm_;
  // Keeps a nonblocking collective's messages apart from the others' (nbc.h); 0 when blocking.
  int tag_offset_;
  int count_ = 0;        // ids handed out
  int outstanding_ = 0;  // requests behind them not waited for yet
  Request* inline_[kInline];
  std::vector<Request*> more_;
};

}  // namespace ftmpi
