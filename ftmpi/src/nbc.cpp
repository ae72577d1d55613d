// Nonblocking collectives on fibers (nbc.h).
#include "nbc.h"

#include <algorithm>

#include "construct.h"
#include "datatype.h"
#include "match_bits.h"

namespace ftmpi {
namespace {

// The algorithms' own tags (collectives/src/group.h, intercomm_coll.cpp) stay below 2^8; the
// sequence number of a nonblocking collective takes the 16 bits above, 0 being a blocking one:
// 1..kSequences for nonblocking collectives, the upper half for persistent ones.
constexpr int kAlgorithmTagBits = 8;
constexpr std::uint32_t kSequenceSpace = 1u << (match::kTagBits - kAlgorithmTagBits);
constexpr std::uint32_t kSequences = kSequenceSpace / 2 - 1;
constexpr std::uint32_t kPersistentSequences = kSequenceSpace / 2;
// Background steps resume only the collectives something may have unblocked (the engine's
// event count moved), and every one now and then anyway (a state change without an event).
constexpr std::uint64_t kResumeAllEvery = 64;

bool failure_class(int code) {
  const int cls = error_class_of(code);
  return cls == MPI_ERR_OTHER || cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED;
}

}  // namespace

// Asked by every blocking collective too: Fiber::current() answers from a process-wide count
// first (fiber.h), so outside a nonblocking collective this costs no thread-local lookup.
int Nbc::tag_offset() {
  const Fiber* f = Fiber::current();
  return f != nullptr ? static_cast<const Op*>(f->owner())->tag_offset : 0;
}
MembersView* Nbc::view() {
  const Fiber* f = Fiber::current();
  return f != nullptr ? &static_cast<Op*>(f->owner())->view : nullptr;
}

int Nbc::persistent_sequence(Comm* c) {
  const std::uint32_t n = c->pcoll_made++ % kPersistentSequences;
  return static_cast<int>(kSequenceSpace / 2 + n);
}

void Nbc::start(Comm* c, const MPI_Datatype* types, std::size_t ntypes, NbcBody&& body,
                Request** out, int* code, int sequence) {
  std::unique_ptr<Op> op;
  if (!spare_.empty()) {
    op = std::move(spare_.back());
    spare_.pop_back();
    op->fiber->restart();
  } else {
    op = std::make_unique<Op>();
    Op* raw = op.get();
    op->fiber = std::make_unique<Fiber>([raw] { raw->code = raw->body(); }, raw);
  }
  op->body = std::move(body);
  op->code = MPI_SUCCESS;
  for (std::size_t i = 0; i < ntypes; ++i) {
    const MPI_Datatype t = types[i];
    // Predefined types are never freed: nothing to hold (an acquire and a release each).
    if (t > MPI_DATATYPE_NULL && t < FTMPI_NUM_PREDEFINED_TYPES) continue;
    const Datatype* d = nullptr;
    if (t != MPI_DATATYPE_NULL && types_->acquire(t, &d) == Err::ok) op->held.push_back(d);
  }
  if (sequence > 0) {  // a persistent collective's run (persistent_sequence)
    op->tag_offset = sequence << kAlgorithmTagBits;
  } else {
    if (c->nbc_context != c->coll_context) {  // new communicator, or repaired: count from 1
      c->nbc_context = c->coll_context;
      c->nbc_started = 0;
    }
    // Sequence numbers 1..kSequences, wrapping (a compare: the modulo was a division per start).
    if (c->nbc_started == kSequences) c->nbc_started = 0;
    op->tag_offset = static_cast<int>(c->nbc_started + 1) << kAlgorithmTagBits;
    ++c->nbc_started;
  }
  op->comm = c;
  Request* r = engine_->requests().allocate(Request::Kind::nbc);
  r->comm = c;
  // MPI_Comm_free may come before the collective ends, or before MPI_Wait reports its error:
  // held until the request is recycled (it outlives the operation: MPI_Request_free of a
  // pending collective is refused).
  construct_->hold_for(r);
  r->peer = MPI_PROC_NULL;
  op->request = r;
  Op* raw = op.get();
  // The engine's progress calls background() only while something is pending: no cost to
  // a process that has none.
  if (ops_.empty()) engine_->set_background(&Nbc::background, this);
  // One that may be blocking in another thread's MPI_Wait (Nbc::wait) must step back: this
  // one needs that thread's loop (or the agent) to run it.
  for (const auto& other : ops_) other->fiber->set_may_block(false);
  ops_.push_back(std::move(op));
  // Its first round gets a few polls before the start returns: the peers' messages of a small
  // collective often arrive within a microsecond, and found here they cost no return, no
  // MPI_Wait entry and no fiber switch before they are seen (WaitPolicy::start_polls; none
  // when oversubscribed or when others are pending, whose progress this would hold up).
  run(raw, ops_.size() == 1 ? engine_->nbc_start_polls() : 0);
  if (!r->complete) agent_.work_started();  // moves it on while the application computes
  *code = MPI_SUCCESS;
  *out = r;
  if (r->complete && r->error != MPI_SUCCESS && !failure_class(r->error)) {
    *code = r->error;
    *out = nullptr;
    engine_->retire(r);
  }
}

void Nbc::run(Op* op, int polls) {
  // Under MPI_THREAD_MULTIPLE a fiber blocking in MPI_Wait (Nbc::wait) gives the library lock
  // up while idle: another thread's test or progress leaves it to that thread.
  if (op->fiber->active()) return;
  op->seen_events = engine_->events();
  if (op->fiber->resume(polls)) finish(op);
}

void Nbc::finish(Op* op) {
  Request* r = op->request;
  r->error = op->code;
  r->complete = true;
  if (!op->held.empty()) {
    for (const Datatype* d : op->held) types_->release(d);
    op->held.clear();
  }
  op->body.reset();  // the closure's captures go now
  op->fiber->set_may_block(false);
  // Usually the newest (one pending at a time): no search.
  auto it = ops_.end() - 1;
  if (it->get() != op) {
    it = std::find_if(ops_.begin(), ops_.end(), [op](const auto& p) { return p.get() == op; });
  }
  // The fiber has returned: it and its stack wait for the next start.
  if (spare_.size() < kSpareOps) spare_.push_back(std::move(*it));
  ops_.erase(it);
  if (ops_.empty()) {
    engine_->set_background(nullptr, nullptr);
    agent_.work_ended();
  }
}

Nbc::Op* Nbc::find(const Request* r) const {
  for (const auto& op : ops_) {
    if (op->request == r) return op.get();
  }
  return nullptr;
}

bool Nbc::poll(Request* r) {
  if (r->complete) return true;
  if (Fiber::running()) return false;  // a user function inside a collective: no nesting
  if (Op* op = find(r)) run(op);
  return r->complete;
}

void Nbc::wait(Request* r) {
  if (r->complete || Fiber::running() || ops_.size() != 1) return;
  Op* op = ops_.front().get();
  if (op->request != r || op->fiber->active()) return;
  LibraryLock::Waiting waiting;  // the progress agent keeps out, as in a blocking wait
  op->fiber->set_may_block(true);
  run(op);  // may finish (and free) op
  if (!r->complete) op->fiber->set_may_block(false);
}

bool Nbc::background(void* self, std::uint64_t events) {
  auto* n = static_cast<Nbc*>(self);
  if (n->ops_.empty()) return false;
  const bool all = ++n->background_calls_ % kResumeAllEvery == 0;
  // Run the ones started before this step; run() may erase from ops_.
  std::vector<Op*>& runnable = n->runnable_;
  runnable.clear();
  for (const auto& op : n->ops_) {
    if (all || op->seen_events != events) runnable.push_back(op.get());
  }
  bool completed = false;
  for (Op* op : runnable) {
    Request* r = op->request;
    n->run(op);
    completed = completed || r->complete;
  }
  return completed;
}

}  // namespace ftmpi
