// Intercommunicators: construction (create, merge, dup), comparison, failure handling, and their
// C API. See intercomm.h for the design.
#include "intercomm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "comm_child.h"
#include "context_choice.h"
#include "ftmpi_proto/wire.h"
#include "group.h"
#include "library.h"
#include "match_bits.h"
#include "monitor.h"

namespace ftmpi {
namespace {

// Tags of the leaders' exchange on an intercommunicator's collective context, which nothing
// else uses (collectives on intercommunicators are refused).
constexpr int kMergeTag = 1;
constexpr int kDupTag = 2;
constexpr int kSplitTag = 3;

// Fields are written and read with the protocol library's codec (proto::WireWriter/Reader:
// little-endian, bounds-checked); the context mask is a fixed-size field (context_choice.h).
using MaskBytes = std::array<std::uint8_t, kContextMaskBytes>;

void put_mask(proto::WireWriter& w, const CommTable::ContextMask& m) {
  MaskBytes b{};
  put_context_mask(m, b.data());
  w.raw(b.data(), b.size());
}

// ORs the mask read from r into *m (only once r has read it whole).
void merge_mask(proto::WireReader& r, CommTable::ContextMask* m) {
  MaskBytes b{};
  r.raw(b.data(), b.size());
  if (r.status() != proto::ProtoStatus::ok) return;
  merge_context_mask(b.data(), b.size(), m);
}

std::vector<std::uint8_t> u32_bytes(std::uint32_t v) {
  proto::WireWriter w;
  w.u32(v);
  return std::move(w.bytes());
}

// The u32 at the start of `in`, or `otherwise` if it is shorter.
std::uint32_t first_u32(const std::vector<std::uint8_t>& in, std::uint32_t otherwise) {
  proto::WireReader r(in);
  std::uint32_t v = r.u32();
  return r.status() == proto::ProtoStatus::ok ? v : otherwise;
}

// An error as it travels between processes: its class and its detail text, so every member of
// both groups reports the same thing.
struct Outcome {
  int cls = MPI_SUCCESS;
  std::string text;

  bool ok() const { return cls == MPI_SUCCESS; }
  Err raise() const { return fail(static_cast<Err>(cls), "%s", text.c_str()); }
};

Outcome outcome_of(Err e) {
  Outcome o;
  if (e == Err::ok) return o;
  int code = to_code(e);
  o.cls = error_class_of(code);
  char full[MPI_MAX_ERROR_STRING], base[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (error_text(code, full, &n) && error_text(o.cls, base, &n)) {
    o.text = full;
    std::string prefix = std::string(base) + ": ";
    if (o.text.compare(0, prefix.size(), prefix) == 0) o.text.erase(0, prefix.size());
  }
  return o;
}

std::string text_of(int code) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  return error_text(code, s, &n) ? std::string(s) : std::string("unknown error");
}

// [class][text length][text][mask][extra]: what a leader sends the other leader, and what it
// hands its own group in the second round.
std::vector<std::uint8_t> encode(const Outcome& o, const CommTable::ContextMask& mask,
                                 const std::vector<std::uint8_t>& extra) {
  proto::WireWriter w;
  w.i32(o.cls);
  w.str(o.text);
  put_mask(w, mask);
  w.raw(extra.data(), extra.size());
  return std::move(w.bytes());
}

bool decode(const std::vector<std::uint8_t>& in, Outcome* o, CommTable::ContextMask* mask,
            std::vector<std::uint8_t>* extra) {
  proto::WireReader r(in);
  int cls = r.i32();
  std::string text = r.str();
  merge_mask(r, mask);
  std::vector<std::uint8_t> rest = r.rest();
  if (r.finish() != proto::ProtoStatus::ok) return false;
  o->cls = cls;
  o->text = std::move(text);
  *extra = std::move(rest);
  return true;
}

int compare_lists(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  if (a == b) return MPI_IDENT;
  std::vector<std::uint32_t> x = a, y = b;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
}

// Constructions on one intercommunicator run one at a time, in call order. Each runs several
// agreements on the local group, and an agreement's place among the communicator's is taken when
// it begins: two constructions under way at once (MPI_Comm_idup) would begin their second
// rounds in whatever order their leaders' exchanges end, which differs between members. A turn
// is taken when the call is made (MPI orders the calls alike everywhere, both groups) and waited
// for before anything is sent; a blocking call waits too (its waits drive the pending ones).
class Turn {
 public:
  Turn(Engine* engine, Comm* ic) : ic_(ic), number_(ic->constructions++) {
    engine->wait_until([this] { return ic_->constructions_done == number_; });
  }
  ~Turn() { ++ic_->constructions_done; }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;
  // The construction's key in the offer order (context_claims.h): the same in both groups.
  ContextClaims::Key key() const { return {ic_->context, number_}; }

 private:
  Comm* ic_;
  std::uint64_t number_;
};

}  // namespace

// Between the leaders: the communicator they talk over, the other leader's rank in it (a
// remote rank if it is an intercommunicator), and the match context and tag.
struct Intercomms::Channel {
  Comm* comm = nullptr;
  int peer = 0;
  std::uint32_t context = 0;
  int tag = 0;
};

// What every member of one group holds after agree_across.
struct Intercomms::Across {
  std::vector<std::pair<int, std::vector<std::uint8_t>>> local;  // local rank -> its `mine`
  CommTable::ContextMask united;     // union of the contributed masks of both groups
  std::vector<std::uint8_t> remote;  // the remote leader's extra bytes
};

std::size_t Intercomms::nprocs() const { return comms_->world()->rank_of_proc.size(); }

Err Intercomms::pick(Comm* group, int leader, const Channel& ch, ContextChoice* choice,
                     const CommTable::ContextMask& united, std::uint32_t* context, int skip) {
  // A round is the same two-round agreement with the leaders' exchange, carrying masks only.
  auto round = [&](CommTable::ContextMask* mask) {
    auto plan = [&](const Across&, Channel* c, std::vector<std::uint8_t>*) {
      *c = ch;
      return Err::ok;
    };
    Across a;
    if (Err e = agree_across(group, leader, *mask, {}, plan, &a); e != Err::ok) return e;
    *mask = a.united;
    return Err::ok;
  };
  return choice->pick(united, round, context, skip);
}

Err Intercomms::leader_exchange(const Channel& ch, const std::vector<std::uint8_t>& send,
                                std::vector<std::uint8_t>* received) {
  // The largest message: an outcome with a full detail text, a whole job's process list and
  // the creating group's key (create).
  const std::size_t max = 8 + MPI_MAX_ERROR_STRING + kContextMaskBytes + 4 + 12 + 4 * nprocs();
  Request* rr = nullptr;
  Request* sr = nullptr;
  if (Err e = engine_->irecv(nullptr, max, ch.peer, ch.tag, ch.comm, ch.context, &rr); e != Err::ok) {
    return e;
  }
  // The exchange ends when it completes or the other leader fails: a failure of another process
  // of the peer communicator does not concern it (its NOP purge must not cut it: one group would
  // give up while the other got its message and went on).
  rr->own_failures = true;
  if (Err e = engine_->isend(send.data(), send.size(), ch.peer, ch.tag, ch.comm, ch.context, &sr);
      e != Err::ok) {
    engine_->cancel(rr);
    engine_->wait(rr);
    engine_->retire(rr);
    return e;
  }
  sr->own_failures = true;
  engine_->wait(sr);
  engine_->wait(rr);
  int error = sr->error != MPI_SUCCESS ? sr->error : rr->error;
  received->assign(rr->owned.begin(), rr->owned.begin() + static_cast<std::ptrdiff_t>(rr->bytes));
  engine_->retire(sr);
  engine_->retire(rr);
  if (error != MPI_SUCCESS) {
    return fail(Err::other, "exchange with the remote leader (rank %d of %s) failed: %s", ch.peer,
                ch.comm->name.c_str(), text_of(error).c_str());
  }
  return Err::ok;
}

// The two-round agreement described in intercomm.h. Every member of `group` (an intracommunicator,
// or an intercommunicator's local side) contributes `mine`; at the leader, plan(local, &channel,
// &extra) checks what only the leader knows, names the channel to the other leader (left empty
// when there is none) and the extra bytes to send it. Errors travel with the exchanged and the
// broadcast bytes, so both groups end the call, with the same error, instead of one waiting.
template <typename Plan>
Err Intercomms::agree_across(Comm* group, int leader, const CommTable::ContextMask& contributed,
                             const std::vector<std::uint8_t>& mine, Plan&& plan, Across* out) {
  proto::WireWriter first;
  put_mask(first, contributed);
  first.raw(mine.data(), mine.size());
  Decision d;
  if (Err e = consensus_->agree(group, Consensus::Kind::construction, first.bytes(), &d); e != Err::ok) {
    return e;
  }
  Outcome local;
  if (!d.failed.empty()) {
    engine_->failures().mark_ranks_failed(*group, d.failed, FailureSource::agreement);
    local = outcome_of(fail_report(Err::other, "%zu process(es) of %s failed; intercommunicators are not "
                            "built over failures or repaired", d.failed.size(), group->name.c_str()));
  }
  out->united.reset();
  for (auto& [rank, bytes] : d.contributions) {
    proto::WireReader r(bytes);
    merge_mask(r, &out->united);
    std::vector<std::uint8_t> theirs = r.rest();
    if (r.finish() != proto::ProtoStatus::ok) return fail(Err::intern, "malformed contribution");
    out->local.emplace_back(rank, std::move(theirs));
  }

  std::vector<std::uint8_t> second;
  if (group->rank == leader) {
    Channel ch;
    std::vector<std::uint8_t> extra;
    Outcome planned = outcome_of(plan(*out, &ch, &extra));
    Outcome result = local.ok() ? planned : local;
    CommTable::ContextMask remote_mask;
    std::vector<std::uint8_t> remote_extra;
    if (ch.comm != nullptr) {
      std::vector<std::uint8_t> received;
      Outcome remote;
      if (Err e = leader_exchange(ch, encode(result, out->united, extra), &received); e != Err::ok) {
        if (result.ok()) result = outcome_of(e);
      } else if (!decode(received, &remote, &remote_mask, &remote_extra)) {
        if (result.ok()) result = outcome_of(fail(Err::intern, "malformed message from the remote leader"));
      } else if (!remote.ok() && result.ok()) {
        result = remote;
        result.text = "the remote group failed: " + remote.text;
      }
    }
    second = encode(result, remote_mask, remote_extra);
  }
  Decision d2;
  if (Err e = consensus_->agree(group, Consensus::Kind::construction, second, &d2);
      e != Err::ok) {
    return e;
  }
  auto from_leader = std::find_if(d2.contributions.begin(), d2.contributions.end(),
                                  [leader](const auto& c) { return c.first == leader; });
  if (from_leader == d2.contributions.end()) {
    return fail_report(Err::other, "the local leader (rank %d of %s) failed", leader, group->name.c_str());
  }
  Outcome result;
  if (!decode(from_leader->second, &result, &out->united, &out->remote)) {
    return fail(Err::intern, "malformed message from the local leader");
  }
  return result.ok() ? Err::ok : result.raise();
}

Err Intercomms::create(Comm* local, int local_leader, MPI_Comm peer_comm, int remote_leader,
                       int tag, MPI_Comm* out) {
  // Each group numbers the construction on its own local communicator; the remote group's key
  // comes with its process list, and the lower of the two orders the offer rounds, if any.
  const ContextClaims::Key local_key = Constructor::next_key(local);
  ContextChoice choice(claims_, comms_, consensus_, local_key);
  Channel channel;  // the leader's, kept for the offer rounds
  auto plan = [&](const Across&, Channel* ch, std::vector<std::uint8_t>* extra) {
    Comm* peer = nullptr;
    if (comms_->lookup(peer_comm, &peer) != Err::ok) {
      return fail(Err::comm, "peer_comm %d at the local leader is not a valid communicator",
                  peer_comm);
    }
    if (remote_leader < 0 || remote_leader >= peer->peer_size()) {
      return fail(Err::rank, "remote_leader %d outside 0..%d of the peer communicator %s",
                  remote_leader, peer->peer_size() - 1, peer->name.c_str());
    }
    // A remote leader inside the local group would be waiting in this group's agreement, not
    // answering the exchange: refuse it here rather than wait forever.
    const std::uint32_t leader_proc = peer->peer_procs()[static_cast<std::size_t>(remote_leader)];
    if (leader_proc == engine_->my_proc()) {
      return fail(Err::rank, "remote_leader %d of %s is the local leader itself", remote_leader,
                  peer->name.c_str());
    }
    if (leader_proc < local->rank_of_proc.size() && local->rank_of_proc[leader_proc] >= 0) {
      return fail(Err::rank, "remote_leader %d of %s is rank %d of the local group %s: the two "
                  "groups must be disjoint", remote_leader, peer->name.c_str(),
                  local->rank_of_proc[leader_proc], local->name.c_str());
    }
    *ch = Channel{peer, remote_leader, peer->context, tag};
    channel = *ch;
    proto::WireWriter w;
    w.u32_list(local->procs);
    w.u32(local_key.first);
    w.u64(local_key.second);
    *extra = std::move(w.bytes());
    return Err::ok;
  };
  Across a;
  if (Err e = agree_across(local, local_leader, choice.contribution(), {}, plan, &a);
      e != Err::ok) {
    return e;
  }

  // Both groups run the same checks on the same two lists, so they fail together.
  proto::WireReader r(a.remote);
  const std::vector<std::uint32_t> listed = r.u32_list();
  ContextClaims::Key remote_key;
  remote_key.first = r.u32();
  remote_key.second = r.u64();
  if (r.finish() != proto::ProtoStatus::ok || listed.empty()) {
    return fail(Err::intern, "malformed remote group from the remote leader");
  }
  std::vector<std::uint32_t> remote;
  std::vector<std::uint32_t> sorted_local = local->procs;
  std::sort(sorted_local.begin(), sorted_local.end());
  for (std::uint32_t p : listed) {
    if (p >= match::kMaxProcesses) return fail(Err::intern, "remote group names process %u", p);
    if (std::binary_search(sorted_local.begin(), sorted_local.end(), p)) {
      return fail(Err::comm, "process %u is in both groups: the local and remote groups of an "
                  "intercommunicator must be disjoint", p);
    }
    remote.push_back(p);
  }
  // Both groups go on under one key (an offer held here moves with it).
  choice.rekey(std::min(local_key, remote_key));
  std::uint32_t context = 0;
  if (Err e = pick(local, local_leader, channel, &choice, a.united, &context); e != Err::ok) {
    return e;
  }

  std::unique_ptr<Comm> c = child_comm(*local, context, true);
  c->procs = local->procs;
  c->rank_of_proc = local->rank_of_proc;
  c->rank = local->rank;
  c->remote_rank_of_proc = rank_index(remote, nprocs());
  c->remote_procs = std::move(remote);
  // Sized for both groups so the point-to-point fast check may index it with a remote rank;
  // only local ranks are ever marked (intercomm_lost_process), and then the state is FAILED.
  c->proc_state.assign(std::max(c->procs.size(), c->remote_procs.size()), FTMPI_PROC_OK);
  c->name = "intercomm of " + local->name;
  *out = comms_->add(std::move(c));
  return Err::ok;
}

Err Intercomms::merge(Comm* ic, bool high, MPI_Comm* out) {
  Turn turn(engine_, ic);
  ContextChoice choice(claims_, comms_, consensus_, turn.key());
  const std::vector<std::uint8_t> mine = u32_bytes(high ? 1 : 0);
  // A group whose members disagree on `high` sends 2, and both groups refuse.
  constexpr std::uint32_t kMixed = 2;
  auto group_high = [](const Across& a) {
    std::uint32_t first = 0;
    for (std::size_t i = 0; i < a.local.size(); ++i) {
      std::uint32_t h = first_u32(a.local[i].second, kMixed);
      if (h == kMixed) return kMixed;
      if (i == 0) first = h;
      if (h != first) return kMixed;
    }
    return first;
  };
  const Channel channel{ic, 0, ic->coll_context, kMergeTag};
  auto plan = [&](const Across& a, Channel* ch, std::vector<std::uint8_t>* extra) {
    *ch = channel;
    *extra = u32_bytes(group_high(a));
    return Err::ok;
  };
  Across a;
  if (Err e = agree_across(ic, 0, choice.contribution(), mine, plan, &a); e != Err::ok) return e;
  std::uint32_t local_high = group_high(a), remote_high = first_u32(a.remote, kMixed);
  if (local_high == kMixed || remote_high == kMixed) {
    return fail(Err::arg, "the processes of the %s group of %s passed different values of high",
                local_high == kMixed ? "local" : "remote", ic->name.c_str());
  }
  // MPI-1.3 5.6.2: the high=false group comes first. With equal values the order is ours to
  // pick; both sides must pick the same: the group holding the lower process index goes first.
  bool local_first = local_high != remote_high ? local_high == 0
                                               : ic->procs[0] < ic->remote_procs[0];
  std::uint32_t context = 0;
  if (Err e = pick(ic, 0, channel, &choice, a.united, &context); e != Err::ok) return e;

  std::unique_ptr<Comm> c = child_comm(*ic, context);
  const auto& first = local_first ? ic->procs : ic->remote_procs;
  const auto& second = local_first ? ic->remote_procs : ic->procs;
  c->procs = first;
  c->procs.insert(c->procs.end(), second.begin(), second.end());
  c->rank_of_proc = rank_index(c->procs, nprocs());
  c->rank = c->rank_of_proc[engine_->my_proc()];
  c->proc_state.assign(c->procs.size(), FTMPI_PROC_OK);
  c->name = "merge of " + ic->name;
  *out = comms_->add(std::move(c));
  return Err::ok;
}

Err Intercomms::dup(Comm* ic, MPI_Comm* out) {
  Turn turn(engine_, ic);
  ContextChoice choice(claims_, comms_, consensus_, turn.key());
  // A nonblocking duplication (MPI_Comm_idup) keeps its exchange apart from the nonblocking
  // collectives under way on the intercommunicator.
  const Channel channel{ic, 0, ic->coll_context, kDupTag + Nbc::tag_offset()};
  auto plan = [&](const Across&, Channel* ch, std::vector<std::uint8_t>*) {
    *ch = channel;
    return Err::ok;
  };
  Across a;
  if (Err e = agree_across(ic, 0, choice.contribution(), {}, plan, &a); e != Err::ok) return e;
  std::uint32_t context = 0;
  if (Err e = pick(ic, 0, channel, &choice, a.united, &context); e != Err::ok) return e;
  std::unique_ptr<Comm> c = child_comm(*ic, context, true);
  c->procs = ic->procs;
  c->rank_of_proc = ic->rank_of_proc;
  c->rank = ic->rank;
  c->remote_procs = ic->remote_procs;
  c->remote_rank_of_proc = ic->remote_rank_of_proc;
  c->proc_state.assign(ic->proc_state.size(), FTMPI_PROC_OK);
  c->name = "dup of " + ic->name;
  *out = comms_->add(std::move(c));
  return Err::ok;
}

namespace {
// One member's (color, key) in a split, with its rank in its group.
struct SplitEntry {
  int rank, color, key;
  bool operator<(const SplitEntry& o) const { return key != o.key ? key < o.key : rank < o.rank; }
};

std::vector<std::uint8_t> encode_entries(const std::vector<SplitEntry>& v) {
  proto::WireWriter w;
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (const SplitEntry& e : v) {
    w.i32(e.rank);
    w.i32(e.color);
    w.i32(e.key);
  }
  return std::move(w.bytes());
}

bool decode_entries(const std::vector<std::uint8_t>& in, std::vector<SplitEntry>* out) {
  proto::WireReader r(in);
  const std::uint32_t n = r.u32();
  for (std::uint32_t i = 0; i < n && r.status() == proto::ProtoStatus::ok; ++i) {
    SplitEntry e{};
    e.rank = r.i32();
    e.color = r.i32();
    e.key = r.i32();
    out->push_back(e);
  }
  return r.finish() == proto::ProtoStatus::ok;
}

// The members of `color`, ordered by key then rank.
std::vector<int> members_of(std::vector<SplitEntry> all, int color) {
  std::sort(all.begin(), all.end());
  std::vector<int> ranks;
  for (const SplitEntry& e : all) {
    if (e.color == color) ranks.push_back(e.rank);
  }
  return ranks;
}
}  // namespace

Err Intercomms::split(Comm* ic, int color, int key, MPI_Comm* out) {
  Turn turn(engine_, ic);
  ContextChoice choice(claims_, comms_, consensus_, turn.key());
  const Channel channel{ic, 0, ic->coll_context, kSplitTag};
  proto::WireWriter w;
  w.i32(color);
  w.i32(key);
  std::vector<SplitEntry> local;
  auto read_local = [&](const Across& a) {
    local.clear();
    for (const auto& [rank, bytes] : a.local) {
      proto::WireReader r(bytes);
      SplitEntry e{rank, r.i32(), r.i32()};
      if (r.finish() != proto::ProtoStatus::ok) return false;
      local.push_back(e);
    }
    return true;
  };
  auto plan = [&](const Across& a, Channel* ch, std::vector<std::uint8_t>* extra) {
    if (!read_local(a)) return fail(Err::intern, "malformed split contribution");
    *ch = channel;
    *extra = encode_entries(local);
    return Err::ok;
  };
  Across a;
  if (Err e = agree_across(ic, 0, choice.contribution(), w.bytes(), plan, &a); e != Err::ok) {
    return e;
  }
  std::vector<SplitEntry> remote;
  if (!read_local(a) || !decode_entries(a.remote, &remote)) {
    return fail(Err::intern, "malformed split contributions");
  }
  // The colors both sides have, ascending: the k-th of them takes the k-th free context pair
  // of the union every member of both groups holds, so all agree without another exchange
  // (beyond the offer rounds, which everyone takes part in, members of no new communicator too).
  std::vector<int> colors;
  for (const SplitEntry& e : local) {
    if (e.color == MPI_UNDEFINED) continue;
    bool there = std::any_of(remote.begin(), remote.end(), [&](const SplitEntry& x) { return x.color == e.color; });
    if (there) colors.push_back(e.color);
  }
  std::sort(colors.begin(), colors.end());
  colors.erase(std::unique(colors.begin(), colors.end()), colors.end());
  auto mine = std::find(colors.begin(), colors.end(), color);
  const bool member = color != MPI_UNDEFINED && mine != colors.end();
  std::uint32_t context = 0;
  const int skip = member ? static_cast<int>(mine - colors.begin()) : 0;
  if (Err e = pick(ic, 0, channel, &choice, a.united, &context, skip); e != Err::ok) return e;
  *out = MPI_COMM_NULL;
  if (!member) {
    comms_->release_context(context);  // nothing here holds it (as in Constructor::split_among)
    return Err::ok;
  }
  std::unique_ptr<Comm> c = child_comm(*ic, context, true);
  for (int r : members_of(local, color)) c->procs.push_back(ic->procs[static_cast<std::size_t>(r)]);
  for (int r : members_of(remote, color)) {
    if (r < 0 || r >= ic->peer_size()) return fail(Err::intern, "remote split names rank %d", r);
    c->remote_procs.push_back(ic->remote_procs[static_cast<std::size_t>(r)]);
  }
  c->rank_of_proc = rank_index(c->procs, nprocs());
  c->rank = c->rank_of_proc[engine_->my_proc()];
  c->remote_rank_of_proc = rank_index(c->remote_procs, nprocs());
  c->proc_state.assign(std::max(c->procs.size(), c->remote_procs.size()), FTMPI_PROC_OK);
  c->name = "split of " + ic->name;
  *out = comms_->add(std::move(c));
  return Err::ok;
}

int intercomm_compare(const Comm& a, const Comm& b) {
  if (a.inter != b.inter) return MPI_UNEQUAL;
  int local = compare_lists(a.procs, b.procs);
  int remote = compare_lists(a.remote_procs, b.remote_procs);
  if (local == MPI_IDENT && remote == MPI_IDENT) return MPI_CONGRUENT;
  if (local != MPI_UNEQUAL && remote != MPI_UNEQUAL) return MPI_SIMILAR;
  return MPI_UNEQUAL;
}

Err intercomm_dup(Comm* ic, MPI_Comm* out) {
  if (ic->state != FTMPI_COMM_OK) {
    return fail_report(Err::other, "%s has failed; intercommunicators are not repaired", ic->name.c_str());
  }
  Library& l = lib();
  return Intercomms(&l.comms, &l.engine, &l.consensus, &l.construct.claims()).dup(ic, out);
}

Err intercomm_split(Comm* ic, int color, int key, MPI_Comm* out) {
  if (ic->state != FTMPI_COMM_OK) {
    return fail_report(Err::other, "%s has failed; intercommunicators are not repaired", ic->name.c_str());
  }
  Library& l = lib();
  return Intercomms(&l.comms, &l.engine, &l.consensus, &l.construct.claims()).split(ic, color, key, out);
}

void intercomm_lost_process(Comm& c, std::uint32_t proc, Engine* engine) {
  bool local = proc < c.rank_of_proc.size() && c.rank_of_proc[proc] >= 0;
  bool remote = proc < c.remote_rank_of_proc.size() && c.remote_rank_of_proc[proc] >= 0;
  if (!local && !remote) return;
  if (local) {
    // Consensus over the local group (dup, merge) must stop waiting for this member.
    int r = c.rank_of_proc[proc];
    if (!c.is_failed(r)) {
      c.proc_state.set(static_cast<std::size_t>(r), FTMPI_PROC_FAILED);
      c.failed.push_back(r);
    }
  }
  c.tainted = true;
  c.state = FTMPI_COMM_FAILED;
  monitor().comm_changed(c);
  engine->requests().for_each_live([&](Request& q) {
    if (q.comm != &c || q.complete) return;
    if (q.kind != Request::Kind::send && q.kind != Request::Kind::recv) return;
    engine->purge(&q, to_code(fail_report(Err::other, "process %u of intercommunicator %s failed; "
                                   "intercommunicators are not repaired", proc, c.name.c_str())));
  });
}

}  // namespace ftmpi

// ---- C API ----
using namespace ftmpi;

namespace {
Err find(MPI_Comm comm, Comm** c, const char* fn) {
  if (Err e = check_initialized(fn); e != Err::ok) return e;
  return lib().comms.lookup(comm, c);
}

Err find_inter(MPI_Comm comm, Comm** c, const char* fn) {
  if (Err e = find(comm, c, fn); e != Err::ok) return e;
  if (!(*c)->inter) return fail(Err::comm, "%s: %s is not an intercommunicator", fn, (*c)->name.c_str());
  return Err::ok;
}

Intercomms intercomms() {
  Library& l = lib();
  return Intercomms(&l.comms, &l.engine, &l.consensus, &l.construct.claims());
}
}  // namespace

extern "C" {

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  Comm* c = nullptr;
  if (Err e = find(comm, &c, "MPI_Comm_test_inter"); e != Err::ok) return raise(c, e);
  if (flag == nullptr) return raise(c, fail(Err::arg, "flag pointer is NULL"));
  *flag = c->inter ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  Comm* c = nullptr;
  if (Err e = find_inter(comm, &c, "MPI_Comm_remote_size"); e != Err::ok) return raise(c, e);
  if (size == nullptr) return raise(c, fail(Err::arg, "size pointer is NULL"));
  *size = static_cast<int>(c->remote_procs.size());
  return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  Comm* c = nullptr;
  if (Err e = find_inter(comm, &c, "MPI_Comm_remote_group"); e != Err::ok) return raise(c, e);
  if (group == nullptr) return raise(c, fail(Err::arg, "group pointer is NULL"));
  *group = make_group(c->remote_procs, lib().engine.my_proc());
  return MPI_SUCCESS;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm* newintercomm) {
  Comm* c = nullptr;
  if (Err e = find(local_comm, &c, "MPI_Intercomm_create"); e != Err::ok) return raise(c, e);
  if (c->inter) {
    return raise(c, fail(Err::comm, "local_comm %s is an intercommunicator; it must be an "
                         "intracommunicator", c->name.c_str()));
  }
  if (newintercomm == nullptr) return raise(c, fail(Err::arg, "newintercomm pointer is NULL"));
  if (local_leader < 0 || local_leader >= c->size()) {
    return raise(c, fail(Err::rank, "local_leader %d outside 0..%d of %s", local_leader,
                         c->size() - 1, c->name.c_str()));
  }
  if (tag < 0 || tag > match::kMaxTag) {
    return raise(c, fail(Err::tag, "tag %d outside 0..MPI_TAG_UB (%d)", tag, match::kMaxTag));
  }
  if (c->state != FTMPI_COMM_OK) {
    if (Err e = lib().ft.check(c, FaultHandler::kWholeComm); e != Err::ok) return raise(c, e);
  }
  return raise(c, intercomms().create(c, local_leader, peer_comm, remote_leader, tag, newintercomm));
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  Comm* c = nullptr;
  if (Err e = find_inter(intercomm, &c, "MPI_Intercomm_merge"); e != Err::ok) return raise(c, e);
  if (newintracomm == nullptr) return raise(c, fail(Err::arg, "newintracomm pointer is NULL"));
  if (c->state != FTMPI_COMM_OK) {
    return raise(c, fail_report(Err::other, "%s has failed; intercommunicators are not repaired",
                         c->name.c_str()));
  }
  return raise(c, intercomms().merge(c, high != 0, newintracomm));
}

}  // extern "C"
