#include "ulfm.h"

#include <algorithm>
#include <cstring>

#include <ftmpi/debug_log.h>

#include "ftmpi_proto/wire.h"
#include "match_bits.h"
#include "monitor.h"

namespace ftmpi {
namespace {

constexpr std::size_t kNoticeBytes = 16;  // a revoke notice carries nothing but its match bits

}  // namespace

Err Ulfm::start() { return post_receive(); }

Err Ulfm::post_receive() {
  return engine_->recv_internal(kNoticeBytes, match::make(0, 0, 0, match::Kind::revoke),
                                ~match::kKindMask, &Ulfm::on_notice, this);
}

namespace {

// Whether `proc` is a member of `c` (a sender of a notice for its context).
bool member(const Comm& c, std::uint32_t proc) {
  return proc < c.rank_of_proc.size() && c.rank_of_proc[proc] >= 0;
}

}  // namespace

// A notice names a context id, and ids are reused once freed everywhere. It is for the
// communicator holding the id here (or about to: kept in early_revokes_), never an older one:
// this process gives a freed communicator's id back only after every other live member's
// retire notice, which that member sent after any revoke notice of its own for it
// (context_retire.h; a member sends nothing on the id once it has freed it), and the notices
// kept until then are dropped (forget_context). Before, rank 0 revoking X after the others
// had freed it revoked their next dup, which got X's id. A sender that is not a member is
// still ignored (a member of another communicator on the id never sends here).
void Ulfm::on_notice(Request& r, void* self) {
  auto* u = static_cast<Ulfm*>(self);
  const std::uint64_t bits = r.match_bits;
  const bool ok = r.bytes == 0 && bits != 0;  // an error completion comes empty, bits 0
  (void)u->post_receive();                    // re-post first: the next notice needs a place
  if (!ok) return;
  const std::uint32_t context = match::context_of(bits);
  const std::uint32_t sender = match::source_of(bits);
  Comm* target = nullptr;
  u->comms_->for_each([&](Comm& c) {
    if (!c.inter && c.context == context) target = &c;
  });
  if (target == nullptr) {
    u->early_revokes_.insert({context, sender});
  } else if (member(*target, sender)) {
    u->apply_revoke(*target);
  } else {
    FTMPI_DLOG("ulfm", "revoke notice of process %u for context %u: not a member of %s, "
               "a late notice for a freed communicator (dropped)", sender, context,
               target->name.c_str());
  }
}

// The notices kept for c's id were for c (a sender is a member) or for an older communicator
// on it; either way none is needed once c is here.
void Ulfm::on_comm_added(Comm& c) {
  if (early_revokes_.empty() || c.inter) return;
  auto first = early_revokes_.lower_bound({c.context, 0});
  auto last = early_revokes_.lower_bound({c.context + 1, 0});
  bool mine = false;
  for (auto it = first; it != last; ++it) mine = mine || member(c, it->second);
  early_revokes_.erase(first, last);
  if (mine) apply_revoke(c);
}

void Ulfm::forget_context(std::uint32_t context) {
  early_revokes_.erase(early_revokes_.lower_bound({context, 0}),
                       early_revokes_.lower_bound({context + 1, 0}));
}

void Ulfm::revoke(Comm* c) { apply_revoke(*c); }

// Idempotent: the first notice (or the local call) does everything, later ones nothing. The
// notice is flooded (every member forwards it once) so a revoker that dies halfway through its
// sends still reaches everybody through whoever got it: 2(n-1)(n-1) small messages, paid once.
void Ulfm::apply_revoke(Comm& c) {
  if (c.revoked) return;
  c.revoked = true;
  c.tainted = true;  // operations it cut short may leave messages behind (context_retire.h)
  c.state = FTMPI_COMM_FAILED;
  monitor().comm_changed(c);
  engine_->requests().for_each_live([&](Request& q) {
    if (q.comm != &c || q.complete || q.internal || q.kind == Request::Kind::ulfm) return;
    if (q.kind != Request::Kind::send && q.kind != Request::Kind::recv) return;
    engine_->purge(&q, to_code(fail(Err::revoked, "%s has been revoked", c.name.c_str())));
  });
  const std::uint64_t bits = match::make(c.context, engine_->my_proc(), 0, match::Kind::revoke);
  for (int r = 0; r < c.size(); ++r) {
    const std::uint32_t p = c.procs[static_cast<std::size_t>(r)];
    if (r != c.rank && !c.is_failed(r)) engine_->send_internal(p, {}, bits);
  }
}

// ---- agreement ---------------------------------------------------------------------------
// A contribution is the flag and the ranks this member has acknowledged as failed (BLANK gaps,
// failed everywhere, count as acknowledged). The decision holds every contribution and the
// ranks that did not contribute, so every member computes the same AND and the same error.
std::vector<std::uint8_t> Ulfm::agree_contribution(const Comm& c, int flag) const {
  proto::WireWriter w;
  w.i32(flag);
  std::vector<int> acked(c.failed.begin(), c.failed.begin() + std::min<std::size_t>(
                                                   static_cast<std::size_t>(c.acked), c.failed.size()));
  for (int r = 0; r < c.size(); ++r) {
    if (c.is_failed(r) && std::find(c.failed.begin(), c.failed.end(), r) == c.failed.end()) {
      acked.push_back(r);
    }
  }
  w.i32_list(acked);
  return std::move(w.bytes());
}

Err Ulfm::agree_result(Comm* c, const Decision& d, int* flag) {
  // A failure someone saw first becomes ours, as after a repair.
  engine_->failures().mark_ranks_failed(*c, d.failed, FailureSource::agreement);
  int value = ~0;
  int unacked = -1;
  for (const auto& [rank, bytes] : d.contributions) {
    proto::WireReader in(bytes);
    const std::int32_t contributed = in.i32();
    const std::vector<std::int32_t> acked = in.i32_list();
    if (in.finish() != proto::ProtoStatus::ok) {
      return fail(Err::intern, "MPIX_Comm_agree on %s: malformed contribution of rank %d",
                  c->name.c_str(), rank);
    }
    value &= contributed;
    for (int r : d.failed) {
      if (unacked < 0 && std::find(acked.begin(), acked.end(), r) == acked.end()) unacked = r;
    }
  }
  *flag = value;
  if (unacked >= 0) {
    return fail(Err::proc_failed, "MPIX_Comm_agree on %s: rank %d failed before contributing and "
                "not every survivor had acknowledged it", c->name.c_str(), unacked);
  }
  return Err::ok;
}

Err Ulfm::agree(Comm* c, int* flag) {
  Decision d;
  if (Err e = consensus_->agree(c, Consensus::Kind::uniform, agree_contribution(*c, *flag), &d);
      e != Err::ok) {
    return e;
  }
  return agree_result(c, d, flag);
}

// ---- shrink ------------------------------------------------------------------------------
Err Ulfm::shrink_result(Comm* c, const Decision& d, ContextChoice* choice, MPI_Comm* newcomm) {
  // A member that died after the decision is a member of the new communicator; CommTable::add
  // applies the failures known by then, later ones arrive as any failure does.
  return construct_->shrink_build(c, d, choice, newcomm);
}

Err Ulfm::shrink(Comm* c, MPI_Comm* newcomm) {
  std::unique_ptr<ContextChoice> choice = construct_->begin_shrink(c);
  Decision d;
  if (Err e = consensus_->agree(c, Consensus::Kind::construction,
                                construct_->shrink_contribution(choice.get()), &d);
      e != Err::ok) {
    return e;
  }
  return shrink_result(c, d, choice.get(), newcomm);
}

// ---- non-blocking forms ------------------------------------------------------------------
Err Ulfm::start_op(Comm* c, std::unique_ptr<Op> op, Request** out) {
  Request* r = engine_->requests().allocate(Request::Kind::ulfm);
  r->comm = c;
  construct_->hold_for(r);  // an MPI_Comm_free before it ends waits for it (as Nbc's requests)
  r->peer = MPI_PROC_NULL;
  if (op->is_shrink) op->choice = construct_->begin_shrink(c);
  std::vector<std::uint8_t> mine = op->is_shrink ? construct_->shrink_contribution(op->choice.get())
                                                 : agree_contribution(*c, *op->flag);
  // An agreement's value must be uniform (a process that returned it may die the next instant,
  // having acted on it); a shrink's new communicator matters to the survivors only.
  consensus_->begin(c, op->is_shrink ? Consensus::Kind::construction : Consensus::Kind::uniform, mine,
                    &op->ticket);
  ops_[r] = std::move(op);
  *out = r;
  return Err::ok;
}

Err Ulfm::iagree(Comm* c, int* flag, Request** out) {
  auto op = std::make_unique<Op>();
  op->flag = flag;
  return start_op(c, std::move(op), out);
}

Err Ulfm::ishrink(Comm* c, MPI_Comm* newcomm, Request** out) {
  auto op = std::make_unique<Op>();
  op->is_shrink = true;
  op->newcomm = newcomm;
  return start_op(c, std::move(op), out);
}

bool Ulfm::poll(Request* r) {
  if (r->complete) return true;
  auto it = ops_.find(r);
  if (it == ops_.end()) return false;
  Op& op = *it->second;
  if (!consensus_->step(&op.ticket)) return false;
  Decision d;
  Err e = Err::ok;
  if (!consensus_->collect(&op.ticket, &d, &e)) return false;  // moved on to the next instance
  // A shrink whose id needs more rounds (another construction held the offer) runs them here,
  // as blocking agreements: rare, and every survivor is completing the same shrink.
  if (e == Err::ok) {
    e = op.is_shrink ? shrink_result(r->comm, d, op.choice.get(), op.newcomm)
                     : agree_result(r->comm, d, op.flag);
  }
  r->error = to_code(e);
  r->complete = true;
  ops_.erase(it);
  return true;
}

}  // namespace ftmpi
