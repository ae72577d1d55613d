#include "construct.h"
#include "coll_p2p.h"
#include "comm_child.h"
#include "monitor.h"

#include <ftmpi/coll/collectives.h>
#include <ftmpi/coll/ops.h>
#include <ftmpi/debug_log.h>

#include <algorithm>
#include <cstring>

namespace ftmpi {
namespace {

// A member's contribution: its context-id mask (context_choice.h), then (color, key) for split.
constexpr std::size_t kMaskBytes = kContextMaskBytes;

std::vector<std::uint8_t> encode_mask(const CommTable::ContextMask& m, std::int32_t color,
                                      std::int32_t key) {
  std::vector<std::uint8_t> out(kMaskBytes + 8, 0);
  put_context_mask(m, out.data());
  std::memcpy(out.data() + kMaskBytes, &color, 4);
  std::memcpy(out.data() + kMaskBytes + 4, &key, 4);
  return out;
}

void merge_mask(const std::vector<std::uint8_t>& in, CommTable::ContextMask* m) {
  merge_context_mask(in.data(), std::min(in.size(), kMaskBytes), m);
}

std::pair<std::int32_t, std::int32_t> color_key(const std::vector<std::uint8_t>& in) {
  std::int32_t color = MPI_UNDEFINED, key = 0;
  if (in.size() >= kMaskBytes + 8) {
    std::memcpy(&color, in.data() + kMaskBytes, 4);
    std::memcpy(&key, in.data() + kMaskBytes + 4, 4);
  }
  return {color, key};
}

// split_by_host's host name: whatever follows the revoked byte (empty for the other
// constructors, so a plain split compares "" with "").
std::string host_of(const std::vector<std::uint8_t>& in) {
  if (in.size() <= kMaskBytes + 9) return {};
  return std::string(in.begin() + kMaskBytes + 9, in.end());
}

}  // namespace

Err Constructor::repair(Comm* c, const std::vector<int>& failed, CommTable::ContextMask* used,
                        bool* rebuilt) {
  *rebuilt = false;
  const bool rebuild =
      c->comm_mode == FTMPI_COMM_MODE_REBUILD || c->comm_mode == FTMPI_COMM_MODE_REBUILD_APPEND;
  if (rebuild && c->handle != MPI_COMM_WORLD) {
    c->state = FTMPI_COMM_DETECTED;
    return fail(Err::comm,
                "%s: REBUILD repairs MPI_COMM_WORLD only; build this communicator again from the "
                "rebuilt MPI_COMM_WORLD (or repair it in SHRINK or BLANK mode)",
                c->name.c_str());
  }
  // The repaired view is the agreed one: the decided failed set and the gaps of earlier BLANK
  // repairs (failed but not listed in Comm::failed), whatever this process had heard so far. A
  // failure it heard of beyond those is applied again once the repair is done
  // (membership_changed), so it is never lost (FAILURE_STATE.md).
  for (int r = 0; r < c->size(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    const bool gap = c->proc_state[i] == FTMPI_PROC_FAILED &&
                     std::find(c->failed.begin(), c->failed.end(), r) == c->failed.end();
    if (!gap && c->proc_state[i] == FTMPI_PROC_FAILED) c->proc_state.set(i, FTMPI_PROC_OK);
  }
  for (int r : failed) c->proc_state.set(static_cast<std::size_t>(r), FTMPI_PROC_FAILED);
  if (c->comm_mode == FTMPI_COMM_MODE_SHRINK) {
    std::vector<std::uint32_t> procs;
    for (int r = 0; r < c->size(); ++r) {
      if (!c->is_failed(r)) procs.push_back(c->procs[static_cast<std::size_t>(r)]);
    }
    c->procs = std::move(procs);
    c->rank_of_proc = rank_index(c->procs, c->rank_of_proc.size());
    c->rank = c->rank_of_proc[engine_->my_proc()];
    c->proc_state.assign(c->procs.size(), FTMPI_PROC_OK);
  }
  // NOP: a new generation gets a new context, so nothing sent before the repair can match.
  // CONT: the point-to-point context stays, so messages sent before the failure are still
  // delivered; collectives always move to the new pair (see Comm::coll_context).
  std::uint32_t context = take_context(comms_, consensus_, used);
  if (context == 0) return fail(Err::intern, "out of context ids");
  c->failed.clear();
  c->acked = 0;
  if (rebuild) {
    // Every failed rank, old BLANK gaps included, gets a new process.
    std::vector<int> fill;
    for (int r = 0; r < c->size(); ++r) {
      if (c->is_failed(r)) fill.push_back(r);
    }
    if (Err e = rebuilder_->rebuild(c, fill, context, *used); e != Err::ok) {
      c->state = FTMPI_COMM_DETECTED;
      return e;
    }
    *rebuilt = true;
    // A replacement that died while joining, or a survivor that died during the hand-shake,
    // is a new failure, seen after this repair.
    c->state = FTMPI_COMM_RECOVERED;
    comms_->membership_changed(*c);
    FTMPI_DLOG("failure", "%s repaired (REBUILD, %zu replaced, %zu failed since)", c->name.c_str(),
               fill.size(), c->failed.size());
    monitor().comm_changed(*c);
    return Err::ok;
  }
  if (c->msg_mode == FTMPI_MSG_MODE_NOP) c->context = context;
  c->coll_context = context + 1;
  c->state = FTMPI_COMM_RECOVERED;
  comms_->membership_changed(*c);
  FTMPI_DLOG("failure", "%s repaired (%s, %zu agreed failed, size %d, %zu failed since)",
             c->name.c_str(), c->comm_mode == FTMPI_COMM_MODE_SHRINK ? "SHRINK" : "BLANK",
             failed.size(), c->size(), c->failed.size());
  monitor().comm_changed(*c);
  return Err::ok;
}

namespace {

// Whether a construction repairs its parent is read from the decision alone, never from this
// member's own state: a failure it learned of after the coordinator decided (not in d.failed)
// must not make it repair alone, taking a context id and a REBUILD step the others do not take
// (every member then waits for the others forever). The decided set holds the old BLANK gaps
// too (failed everywhere, no longer pending in Comm::failed): only a failure beyond them
// repairs, or, under REBUILD, any gap to fill. A late failure stays pending and the next
// construction repairs it everywhere.
bool decision_repairs(const Comm& parent, const Decision& d) {
  const bool rebuild = parent.comm_mode == FTMPI_COMM_MODE_REBUILD ||
                       parent.comm_mode == FTMPI_COMM_MODE_REBUILD_APPEND;
  if (rebuild) return !d.failed.empty();
  for (int r : d.failed) {
    const bool pending = std::find(parent.failed.begin(), parent.failed.end(), r) != parent.failed.end();
    if (pending || !parent.is_failed(r)) return true;
  }
  return false;
}

}  // namespace

Err Constructor::agree_and_repair(Comm* parent, std::int32_t color, std::int32_t key,
                                  ContextChoice* choice, Agreed* out, const std::string& host) {
  Decision d;
  // The last byte says whether the parent is revoked here (MPIX_Comm_revoke, ulfm.cpp): the
  // notice reaches members at different times, the decision makes the outcome uniform.
  // The mask is the real one even when not offered (a repair takes its id from the union, as
  // before); the flag only keeps the construction's own pick from it.
  std::vector<std::uint8_t> mine = encode_mask(choice->contribution(), color, key);
  mine.push_back(parent->revoked ? 1 : 0);
  mine.insert(mine.end(), host.begin(), host.end());
  FTMPI_DLOG("construct", "%s: construction agreement starts", parent->name.c_str());
  if (Err e = consensus_->agree(parent, Consensus::Kind::construction, mine, &d); e != Err::ok) {
    return e;
  }
  const bool repair_now = decision_repairs(*parent, d);
  FTMPI_DLOG("construct", "%s: agreement decided (%zu failed)", parent->name.c_str(), d.failed.size());
  // Failures someone else saw first become ours too (same path as a daemon notification).
  engine_->failures().mark_ranks_failed(*parent, d.failed, FailureSource::agreement);
  for (const auto& [rank, bytes] : d.contributions) {
    if (bytes.size() > kMaskBytes + 8 && bytes[kMaskBytes + 8] != 0) {
      return fail(Err::revoked, "%s has been revoked", parent->name.c_str());
    }
  }
  // ULFM repairs nothing implicitly: a constructor on a communicator with failures fails, the
  // same way everywhere (the failed set is the decided one), as in ULFM.
  if (parent->comm_mode == FTMPI_COMM_MODE_ULFM && !d.failed.empty()) {
    return fail(Err::proc_failed, "%s has failed processes (rank %d first); shrink it with "
                "MPIX_Comm_shrink", parent->name.c_str(), d.failed.front());
  }
  out->used = local_contexts(*comms_);
  for (const auto& [rank, bytes] : d.contributions) merge_mask(bytes, &out->used);
  out->contributions = std::move(d.contributions);
  out->procs_before = parent->procs;
  // ULFM never repairs (the failed set was empty, or we returned above). A BLANK communicator
  // switched to REBUILD is repaired too: its gaps (in d.failed) get filled.
  const bool ulfm = parent->comm_mode == FTMPI_COMM_MODE_ULFM;
  if (!ulfm && repair_now) {
    parent->state = FTMPI_COMM_RECOVER;
    bool rebuilt = false;
    if (Err e = repair(parent, d.failed, &out->used, &rebuilt); e != Err::ok) return e;
    if (rebuilt) {
      // SPEC 4.7: the construction is an ordinary collective over the repaired communicator,
      // which the replacements join with the same constructor call.
      return agree_and_repair(parent, color, key, choice, out);
    }
  }
  return Err::ok;
}

Err Constructor::pick_context(Comm* parent, ContextChoice* choice, CommTable::ContextMask used,
                              std::uint32_t* context) {
  if (parent->size() == 1 && choice->pick_private(context)) return Err::ok;
  // The agreement's decision (or the allreduce's result) is the same at every member, so all
  // of them take the same number of rounds. The rounds run on the parent's collective
  // context like a collective of the construction itself (MPI orders those on a
  // communicator; a nonblocking duplication has its own tags, nbc.h).
  auto round = [&](CommTable::ContextMask* mask) {
    std::vector<std::uint8_t> bytes = context_mask_bytes(*mask);
    coll::Reduction r;
    (void)coll::predefined_reduction(coll::Op::bor, coll::Kind::byte, bytes.size(), &r);
    coll::View view;
    CommP2P::view_of(*parent, &view);
    CommP2P p2p(engine_, parent);
    if (coll::allreduce(view, p2p, coll::in_place, bytes.data(), r) != coll::Status::ok) {
      return fail_report(failure_err(*parent), "%s: a process failed while the members chose "
                         "the new communicator's context id", parent->name.c_str());
    }
    mask->reset();
    merge_context_mask(bytes.data(), bytes.size(), mask);
    return Err::ok;
  };
  return choice->pick(used, round, context);
}

ContextClaims::Key Constructor::next_key(Comm* parent) {
  return {parent->context, parent->constructions++};
}

Err Constructor::dup(Comm* parent, MPI_Comm* out) {
  ContextChoice choice(&claims_, comms_, consensus_, next_key(parent));
  Agreed a;
  if (Err e = agree_and_repair(parent, 0, 0, &choice, &a); e != Err::ok) return e;
  std::uint32_t context = 0;
  if (Err e = pick_context(parent, &choice, a.used, &context); e != Err::ok) return e;
  std::unique_ptr<Comm> c = child_comm(*parent, context);
  c->procs = parent->procs;
  c->rank_of_proc = parent->rank_of_proc;
  c->rank = parent->rank;
  // The agreed view (gaps failed); failures known only here come back through the same path
  // in add() (membership_changed) and make the new communicator DETECTED.
  c->proc_state = parent->proc_state;
  for (int r : parent->failed) c->proc_state.set(static_cast<std::size_t>(r), FTMPI_PROC_OK);
  c->name = "dup of " + parent->name;
  *out = comms_->add(std::move(c));
  return Err::ok;
}

Err Constructor::split(Comm* parent, int color, int key, MPI_Comm* out) {
  return split_among(parent, color, key, {}, out);
}

Err Constructor::split_by_host(Comm* parent, bool member, int key, const std::string& host,
                               MPI_Comm* out) {
  return split_among(parent, member ? 0 : MPI_UNDEFINED, key, host, out);
}

Err Constructor::split_among(Comm* parent, int color, int key, const std::string& host,
                             MPI_Comm* out) {
  ContextChoice choice(&claims_, comms_, consensus_, next_key(parent));
  Agreed a;
  if (Err e = agree_and_repair(parent, color, key, &choice, &a, host); e != Err::ok) return e;
  // One context serves every color: the new communicators are disjoint.
  std::uint32_t context = 0;
  if (Err e = pick_context(parent, &choice, a.used, &context); e != Err::ok) return e;
  *out = MPI_COMM_NULL;
  if (color == MPI_UNDEFINED) {
    // No communicator here holds the id, so nothing would ever release it: thousands of
    // splits would exhaust the ids. Giving it back is safe: a process uses an id for at most
    // one communicator, and the members that got it still mark it in every later union.
    comms_->release_context(context);
    return Err::ok;
  }
  // (key, old rank) order; the old rank of a contribution maps to the repaired parent's rank.
  std::vector<std::pair<std::int32_t, int>> members;
  const Comm& p = *parent;
  for (const auto& [old_rank, bytes] : a.contributions) {
    auto [c_color, c_key] = color_key(bytes);
    if (c_color != color || host_of(bytes) != host) continue;
    members.emplace_back(c_key, old_rank);
  }
  std::sort(members.begin(), members.end());
  std::unique_ptr<Comm> c = child_comm(p, context);
  // Contribution ranks are the pre-repair ranks; translate through the process ids, which
  // survive a SHRINK renumbering.
  for (auto& m : members) {
    c->procs.push_back(a.procs_before[static_cast<std::size_t>(m.second)]);
  }
  c->rank_of_proc = rank_index(c->procs, p.rank_of_proc.size());
  c->rank = c->rank_of_proc[engine_->my_proc()];
  c->proc_state.assign(c->procs.size(), FTMPI_PROC_OK);
  c->name = "split of " + p.name;
  *out = comms_->add(std::move(c));
  return Err::ok;
}

std::unique_ptr<ContextChoice> Constructor::begin_shrink(Comm* parent) {
  return std::make_unique<ContextChoice>(&claims_, comms_, consensus_, next_key(parent));
}

std::vector<std::uint8_t> Constructor::shrink_contribution(ContextChoice* choice) const {
  return encode_mask(choice->contribution(), 0, 0);
}

Err Constructor::shrink_build(Comm* parent, const Decision& d, ContextChoice* choice,
                              MPI_Comm* out) {
  // Failures someone else saw first become ours too (same path as a daemon notification).
  engine_->failures().mark_ranks_failed(*parent, d.failed, FailureSource::agreement);
  CommTable::ContextMask used = local_contexts(*comms_);
  for (const auto& [rank, bytes] : d.contributions) merge_mask(bytes, &used);
  // A round is one more agreement over the parent: it has failed members, so no collective
  // would do; every survivor sees the same decided union, so all take the same rounds.
  auto round = [&](CommTable::ContextMask* mask) {
    Decision again;
    if (Err e = consensus_->agree(parent, Consensus::Kind::construction, encode_mask(*mask, 0, 0),
                                  &again);
        e != Err::ok) {
      return e;
    }
    mask->reset();
    for (const auto& [rank, bytes] : again.contributions) merge_mask(bytes, mask);
    return Err::ok;
  };
  std::uint32_t context = 0;
  if (Err e = choice->pick(used, round, &context); e != Err::ok) return e;
  std::unique_ptr<Comm> c = child_comm(*parent, context);
  // The contributors, in their old order: the same list on every member.
  for (const auto& contribution : d.contributions) {
    c->procs.push_back(parent->procs[static_cast<std::size_t>(contribution.first)]);
  }
  c->rank_of_proc = rank_index(c->procs, parent->rank_of_proc.size());
  c->rank = c->rank_of_proc[engine_->my_proc()];
  c->proc_state.assign(c->procs.size(), FTMPI_PROC_OK);
  c->name = "shrink of " + parent->name;
  *out = comms_->add(std::move(c));
  return Err::ok;
}

Err Constructor::free(Comm* comm) {
  if (comm->handle == MPI_COMM_WORLD || comm->handle == MPI_COMM_SELF) {
    return fail(Err::comm, "%s cannot be freed", comm->name.c_str());
  }
  if (comm->holds > 0) {
    comm->freed = true;
    comms_->detach(comm->handle);  // drop() finishes the job
    return Err::ok;
  }
  release_contexts(comm);
  comms_->remove(comm->handle);
  return Err::ok;
}

void Constructor::finish_free(Comm* comm) {
  release_contexts(comm);
  comms_->destroy_detached(comm);
}

void Constructor::release_contexts(Comm* comm) {
  // An intracommunicator's ids come back once every member has freed it, revoked or failed or
  // not: what it left behind is dropped then (context_retire.h).
  if (!comm->inter) return retirement_.retire(*comm);
  // An intercommunicator that lived through a failure may have stale messages queued on its
  // contexts (a collective cut short): reusing them would let those match a new communicator.
  if (comm->tainted) return;
  // The agreements decided on it go with it: the next communicator on this context starts
  // its sequence again, and a decided instance left behind would answer that communicator's
  // first contributions with this one's decision (CONSENSUS.md, "Contexts are reused").
  consensus_->reset_context(comm->context);
  comms_->release_context(comm->context);
  if (comm->coll_context != comm->context + 1) comms_->release_context(comm->coll_context - 1);
}

}  // namespace ftmpi
