#include "consensus.h"

#include <algorithm>
#include <cstdlib>

#include "ftmpi_knobs/knobs.h"
#include "match_bits.h"

namespace ftmpi {
namespace {

constexpr int kContribution = 1;
constexpr int kDecision = 2;
// Uniform decisions only (CONSENSUS.md, "Uniform decisions"): "I hold the decision" (empty
// body), and "every live member holds it, return" (the decision as body).
constexpr int kHeld = 3;
constexpr int kCommit = 4;
constexpr std::size_t kMaxMessage = 256 << 10;

// Whether a decision holds a contribution of Kind::uniform: every member reads the same bytes.
bool is_uniform(const Decision& d) {
  for (const auto& [rank, bytes] : d.contributions) {
    if (!bytes.empty() && bytes[0] == 'U') return true;
  }
  return false;
}

void add_once(std::vector<std::uint32_t>* v, std::uint32_t p) {
  if (std::find(v->begin(), v->end(), p) == v->end()) v->push_back(p);
}

bool contains(const std::vector<std::uint32_t>& v, std::uint32_t p) {
  return std::find(v.begin(), v.end(), p) != v.end();
}

}  // namespace

Err Consensus::start() {
  first_seq_ = static_cast<std::uint32_t>(knobs::integer(knobs::Id::test_agreement_seq_start)) & kSeqMask;
  if (Err e = post_receive(); e != Err::ok) return e;
  engine_->add_internal_spare(kMaxMessage);  // the buffer the first message's hook posts
  return Err::ok;
}

Err Consensus::post_receive() {
  return engine_->recv_internal(kMaxMessage, match::make(0, 0, 0, match::Kind::consensus),
                                ~match::kKindMask, &Consensus::on_message, this);
}

void Consensus::on_message(Request& r, void* self) {
  auto* c = static_cast<Consensus*>(self);
  std::vector<std::uint8_t> msg(r.owned.begin(),
                                r.owned.begin() + static_cast<std::ptrdiff_t>(r.bytes));
  std::uint64_t bits = r.match_bits;
  // Re-post first, so the next message has somewhere to land.
  (void)c->post_receive();
  c->handle(match::source_of(bits), msg, bits);
}

void Consensus::send(std::uint32_t proc, Key key, int type, int my_rank,
                     const std::vector<std::uint8_t>& body) {
  engine_->send_internal(proc, encode_consensus_message(ConsensusHeader{type, my_rank}, body),
                         match::make(key.first, engine_->my_proc(), static_cast<int>(key.second),
                                     match::Kind::consensus));
}

void Consensus::handle(std::uint32_t from_proc, const std::vector<std::uint8_t>& msg,
                       std::uint64_t bits) {
  ConsensusHeader h;
  std::vector<std::uint8_t> body;
  if (!decode_consensus_message(msg, &h, &body)) return;  // malformed: drop
  Key key{match::context_of(bits), static_cast<std::uint32_t>(match::tag_of(bits))};
  if (h.type == kConnectNote) return;  // its work (a connection) is done by arriving
  if (h.type >= kFirstNoteType) {
    notes_[NoteKey{key.first, key.second, h.type, from_proc}] = std::move(body);
    return;
  }
  if (const Settled* settled_here = settled(key.first, key.second)) {
    // We settled this instance (settle()): whoever asks gets "success, with our result"; a
    // decision sent to us needs nothing (ours is the only one a live member can hold).
    if (h.type == kContribution) send(from_proc, key, kDecision, -1, settled_decision(*settled_here));
    return;
  }
  Instance& inst = instances_[key];
  const bool sender_dead = engine_->is_failed(from_proc);
  if (h.type == kContribution) {
    if (inst.decided) {
      // A member that turned to us after its coordinator died: it gets the decision we hold
      // (committed or not: an uncommitted uniform one it then acknowledges, to us).
      send(from_proc, key, inst.committed ? kCommit : kDecision, -1, inst.decision);
    } else {
      inst.contributions[h.sender_rank] = std::move(body);
      add_once(&inst.askers, from_proc);
    }
  } else if (h.type == kDecision && !sender_dead) {
    // A decision from a process already known dead is not taken: it may have overtaken its
    // sender's death notice only here, and a member that contributed to the next coordinator
    // after that notice must wait for that coordinator's word (CONSENSUS.md, "Settled
    // collectives"). Whoever holds that decision forwards it to the next coordinator.
    if (!inst.decided) {
      adopt(inst, std::move(body), from_proc);
      answer_askers(key, inst, from_proc);
    }
    if (inst.uniform && !inst.committed) {
      // The sender holds it (a coordinator offering it, or a member forwarding it to us as the
      // next coordinator); it now drives the commit as far as we know: acknowledge, and turn
      // to it if it dies.
      add_once(&inst.holders, from_proc);
      inst.decided_by = from_proc;
      send(from_proc, key, kHeld, -1, {});
    } else if (inst.committed) {
      // A member whose driver died before its word reached it forwarded the decision to us:
      // it is committed (we may have returned it already).
      send(from_proc, key, kCommit, -1, inst.decision);
    }
  } else if (h.type == kHeld && inst.decided) {
    add_once(&inst.holders, from_proc);
  } else if (h.type == kCommit) {
    // Taken even from a process now dead: when it was sent, every live member held this
    // decision, so no other can ever be decided for this instance.
    if (!inst.decided) adopt(inst, std::move(body), from_proc);
    inst.committed = true;
    if (!inst.askers.empty()) answer_askers(key, inst, from_proc);
  }
  step_all();
}

void Consensus::adopt(Instance& inst, std::vector<std::uint8_t> decision, std::uint32_t from) {
  Decision d;
  inst.uniform = decode_decision(decision, &d) && is_uniform(d);
  inst.decided = true;
  inst.decision = std::move(decision);
  inst.decided_by = from;
  if (inst.uniform) {
    add_once(&inst.holders, engine_->my_proc());
    add_once(&inst.holders, from);
  }
}

void Consensus::answer_askers(Key key, Instance& inst, std::uint32_t except) {
  for (std::uint32_t p : inst.askers) {
    if (p != except && p != engine_->my_proc() && !engine_->is_failed(p)) {
      send(p, key, inst.committed ? kCommit : kDecision, -1, inst.decision);
    }
  }
  inst.askers.clear();
}

void Consensus::step_all() {
  if (active_.empty()) return;
  // A ticket that finishes leaves active_: walk a copy (done tickets return at once).
  std::vector<Ticket*> now = active_;
  for (Ticket* t : now) (void)step(t);
}

void Consensus::forward_decision(Key key, Instance& inst) {
  for (std::uint32_t p : inst.procs) {
    if (engine_->is_failed(p)) continue;
    // An uncommitted uniform decision forwarded to ourselves: our ticket now drives its commit.
    if (p != engine_->my_proc()) send(p, key, inst.committed ? kCommit : kDecision, -1, inst.decision);
    inst.decided_by = p;
    return;
  }
}

void Consensus::on_process_failed(std::uint32_t proc) {
  for (auto& [key, inst] : instances_) {
    if (inst.decided && inst.decided_by == proc && proc != engine_->my_proc()) {
      forward_decision(key, inst);
    }
  }
  step_all();  // a coordinator may have died, or the last contribution we waited for
}

void Consensus::reset_context(std::uint32_t context) {
  next_seq_[context] = first_seq_;
  settled_.erase(context);
  for (auto it = instances_.begin(); it != instances_.end();) {
    // Undecided instances may already hold contributions of the new user's first agreement
    // (a faster member got there first); decided ones are the old user's and must go.
    it = it->first.first == context && it->second.decided ? instances_.erase(it) : std::next(it);
  }
}

void Consensus::forget_context(std::uint32_t context) {
  reset_context(context);
  for (auto it = instances_.begin(); it != instances_.end();) {
    it = it->first.first == context ? instances_.erase(it) : std::next(it);
  }
}

void Consensus::post_note(std::uint32_t proc, std::uint32_t channel, std::uint32_t tag, int type,
                          std::vector<std::uint8_t> body) {
  send(proc, Key{channel, tag}, type, -1, body);
}

bool Consensus::take_note(std::uint32_t channel, std::uint32_t tag, int type,
                          std::uint32_t from_proc, std::vector<std::uint8_t>* body) {
  auto it = notes_.find(NoteKey{channel, tag, type, from_proc});
  if (it == notes_.end()) return false;
  if (body != nullptr) *body = std::move(it->second);
  notes_.erase(it);
  return true;
}

int Consensus::coordinator(const Comm& c) {
  for (int r = 0; r < c.size(); ++r) {
    if (!c.is_failed(r)) return r;
  }
  return -1;
}

Err Consensus::agree(Comm* comm, Kind kind, const std::vector<std::uint8_t>& mine,
                     Decision* out, bool solicit) {
  Ticket t;
  begin(comm, kind, mine, &t, solicit);
  while (true) {
    engine_->wait_until([&] { return step(&t); });
    Err e = Err::ok;
    if (collect(&t, out, &e)) return e;
    // A construction met votes of members still leaving a collective: they will come.
  }
}

void Consensus::begin(Comm* comm, Kind kind, const std::vector<std::uint8_t>& mine, Ticket* t,
                      bool solicit) {
  t->comm_ = comm;
  t->kind_ = kind;
  t->solicit_ = solicit;
  t->mine_.clear();
  t->mine_.reserve(mine.size() + 1);
  t->mine_.push_back(static_cast<std::uint8_t>(kind));
  t->mine_.insert(t->mine_.end(), mine.begin(), mine.end());
  claim_instance(t);
}

void Consensus::claim_instance(Ticket* t) {
  std::uint32_t& next = sequence_of(t->comm_->context);
  t->key_ = Key{t->comm_->context, next};
  uncollected_.insert(t->key_);
  next = (next + 1) & kSeqMask;
  instances_[t->key_].procs = t->comm_->procs;
  t->asked_ = -1;
  t->done_ = false;
  t->everyone_failed_ = false;
  t->declared_failed_ = false;
  t->solicited_ = false;
  // Whether the latest instance of the context is a collective's (settle_open()): decided by
  // the call alone, so every member keeps the same answer.
  if (t->kind_ == Kind::vote) {
    settled_[t->key_.first].open = true;
  } else if (auto it = settled_.find(t->key_.first); it != settled_.end()) {
    it->second.open = false;
  }
  active_.push_back(t);
  (void)step(t);
}

// One pass of the rotating-coordinator protocol (CONSENSUS.md) for this member: take a decision
// that arrived, or decide as coordinator once every live member contributed, or send our
// contribution to the current coordinator (once per coordinator). Never blocks.
bool Consensus::step(Ticket* t) {
  if (t->done_) return true;
  Comm* comm = t->comm_;
  Instance& inst = instances_[t->key_];
  if (!inst.decided) {
    const int coord = coordinator(*comm);
    if (comm->is_failed(comm->rank)) {
      // A report named this live process (a forged or mistaken one): the others drop what it
      // sends, so waiting for their answer would never end.
      t->declared_failed_ = true;
    } else if (coord < 0) {
      t->everyone_failed_ = true;
    } else if (coord == comm->rank) {
      inst.contributions[comm->rank] = t->mine_;
      bool missing = false;
      for (int r = 0; r < comm->size(); ++r) {
        if (comm->is_failed(r) || inst.contributions.count(r) != 0) continue;
        missing = true;
        // Members that settled this instance never contribute: ask them (they answer with
        // their decision); a member still inside the collective keeps the question and
        // answers it when it settles, or contributes.
        if (t->solicit_ && !t->solicited_) {
          send(comm->procs[static_cast<std::size_t>(r)], t->key_, kContribution, comm->rank,
               t->mine_);
        }
      }
      if (missing) {
        t->solicited_ = t->solicited_ || t->solicit_;
        return false;
      }
      Decision d;
      for (int r = 0; r < comm->size(); ++r) {
        if (comm->is_failed(r)) {
          d.failed.push_back(r);
        } else {
          d.contributions.emplace_back(r, inst.contributions[r]);
        }
      }
      adopt(inst, encode_decision(d), engine_->my_proc());
      inst.askers.clear();  // every live member gets the decision just below
      for (int r = 0; r < comm->size(); ++r) {
        if (r != comm->rank && !comm->is_failed(r)) {
          const std::uint32_t p = comm->procs[static_cast<std::size_t>(r)];
          send(p, t->key_, kDecision, comm->rank, inst.decision);
          if (inst.uniform) inst.offered.push_back(p);
        }
      }
    } else {
      if (t->asked_ != coord) {
        send(comm->procs[static_cast<std::size_t>(coord)], t->key_, kContribution, comm->rank,
             t->mine_);
        t->asked_ = coord;
      }
      return false;
    }
  }
  if (inst.decided && inst.uniform && !inst.committed && !drive_commit(t, inst)) return false;
  t->done_ = true;
  active_.erase(std::find(active_.begin(), active_.end(), t));
  return true;
}

// A uniform decision is returned only once every live member holds it, so a process that
// returned it and died leaves it behind at every survivor (CONSENSUS.md, "Uniform decisions").
// The lowest live member drives that: it offers the decision to each live member not known to
// hold it, waits for each to hold it (kHeld, or its forwarded decision), then tells them all.
// The others wait for that word; if the driver dies, forward_decision hands the decision to
// the next lowest live member, which drives in its turn.
bool Consensus::drive_commit(Ticket* t, Instance& inst) {
  Comm* comm = t->comm_;
  if (comm->is_failed(comm->rank)) {
    t->declared_failed_ = true;  // as in step(): nobody listens to us any more
    return true;
  }
  if (coordinator(*comm) != comm->rank) return false;
  inst.decided_by = engine_->my_proc();
  bool missing = false;
  for (int r = 0; r < comm->size(); ++r) {
    const std::uint32_t p = comm->procs[static_cast<std::size_t>(r)];
    if (r == comm->rank || comm->is_failed(r) || contains(inst.holders, p)) continue;
    missing = true;
    if (!contains(inst.offered, p)) {
      send(p, t->key_, kDecision, comm->rank, inst.decision);
      inst.offered.push_back(p);
    }
  }
  if (missing) return false;
  inst.committed = true;
  for (int r = 0; r < comm->size(); ++r) {
    if (r != comm->rank && !comm->is_failed(r)) {
      send(comm->procs[static_cast<std::size_t>(r)], t->key_, kCommit, comm->rank, inst.decision);
    }
  }
  return true;
}

bool Consensus::collect(Ticket* t, Decision* out, Err* e) {
  *e = Err::ok;
  if (auto it = uncollected_.find(t->key_); it != uncollected_.end()) uncollected_.erase(it);
  if (t->everyone_failed_) {
    *e = fail_report(failure_err(*t->comm_), "every process of %s has failed", t->comm_->name.c_str());
    return true;
  }
  if (t->declared_failed_) {
    *e = fail_report(failure_err(*t->comm_), "this process was reported failed on %s",
                     t->comm_->name.c_str());
    return true;
  }
  Instance& inst = instances_[t->key_];
  if (!decode_decision(inst.decision, out)) {
    *e = fail(Err::intern, "malformed agreement decision");
    return true;
  }
  inst.contributions.clear();
  forget_before(t->key_);
  bool votes = false, constructions = false;
  for (auto& [rank, bytes] : out->contributions) {
    if (bytes.empty()) {
      *e = fail(Err::intern, "malformed agreement contribution");
      return true;
    }
    votes = votes || bytes[0] == static_cast<std::uint8_t>(Kind::vote);
    constructions = constructions || bytes[0] != static_cast<std::uint8_t>(Kind::vote);
    bytes.erase(bytes.begin());
  }
  out->mixed = votes && constructions;
  if (!out->mixed || t->kind_ == Kind::vote) return true;
  claim_instance(t);  // the voters will join the construction on the next instance
  return false;
}

void Consensus::forget_before(Key key) {
  // This instance was decided, so every live member contributed to it, which it does only after
  // returning from the previous one: nobody can still ask for that one's decision, and all live
  // members hold it (nothing to forward). One more is kept as a margin; the rest go, or every
  // ATOMIC collective would leave its instance behind for the life of the process.
  // Numbers wrap (kSeqMask): "before" is up to half the number space behind; instances ahead
  // (contributions of members already in the next agreement) stay. A context keeps two or
  // three instances, so the walk is short. Instances this process has not collected yet stay
  // too: with several duplications under way at once (MPI_Comm_idup), a later one can be
  // decided first, and the earlier ones' contributions and decisions are still needed.
  for (auto it = instances_.lower_bound(Key{key.first, 0});
       it != instances_.end() && it->first.first == key.first;) {
    const std::uint32_t behind = (key.second - it->first.second) & kSeqMask;
    const bool old = behind >= 2 && behind <= kSeqMask / 2;
    it = old && uncollected_.count(it->first) == 0 ? instances_.erase(it) : std::next(it);
  }
  if (auto it = settled_.find(key.first); it != settled_.end()) {
    for (Settled& s : it->second.slot) {
      const std::uint32_t behind = (key.second - s.seq) & kSeqMask;
      if (behind >= 2 && behind <= kSeqMask / 2) s.valid = false;
    }
  }
}

bool Consensus::settle(Comm* comm, const void* result, std::size_t bytes) {
  std::uint32_t& next = sequence_of(comm->context);
  const Key key{comm->context, next};
  auto it = instances_.empty() ? instances_.end() : instances_.find(key);
  // Decided without us: only a coordinator that took us for failed could have; its decision
  // stands (the caller runs the agreement, which finds it).
  if (it != instances_.end() && it->second.decided) return false;
  next = (next + 1) & kSeqMask;
  SettledLog& log = settled_[comm->context];
  log.open = true;
  Settled& s = log.slot[key.second & 1];
  s.valid = true;
  s.seq = key.second;
  s.rank = comm->rank;
  const auto* p = static_cast<const std::uint8_t*>(result);
  s.result.assign(p, p + bytes);
  if (it == instances_.end()) return true;
  // Questions that came before we finished: a coordinator soliciting us, or a member that
  // takes us for its coordinator. They get the answer now; later ones find the log.
  it->second.decision = settled_decision(s);
  answer_askers(key, it->second, engine_->my_proc());
  instances_.erase(it);
  return true;
}

bool Consensus::settle_open(std::uint32_t context) const {
  auto it = settled_.find(context);
  return it != settled_.end() && it->second.open;
}

void Consensus::close_settled(std::uint32_t context) {
  if (auto it = settled_.find(context); it != settled_.end()) it->second.open = false;
}

const Consensus::Settled* Consensus::settled(std::uint32_t context, std::uint32_t seq) const {
  if (settled_.empty()) return nullptr;
  auto it = settled_.find(context);
  if (it == settled_.end()) return nullptr;
  const Settled& s = it->second.slot[seq & 1];
  return s.valid && s.seq == seq ? &s : nullptr;
}

// "Success, with this result": one vote contribution, ours, holding kSettled and the result
// (coll_outcome.cpp reads it). No failed ranks: a member that settled knew of none.
std::vector<std::uint8_t> Consensus::settled_decision(const Settled& s) {
  std::vector<std::uint8_t> mine;
  mine.reserve(s.result.size() + 2);
  mine.push_back(static_cast<std::uint8_t>(Kind::vote));
  mine.push_back(kSettledVote);
  mine.insert(mine.end(), s.result.begin(), s.result.end());
  Decision d;
  d.contributions.emplace_back(s.rank, std::move(mine));
  return encode_decision(d);
}

}  // namespace ftmpi
