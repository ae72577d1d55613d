// MPI_Comm_create_group (MPI-3.1 6.4.2): a communicator of a group's members, collective over
// the group only. Processes of the parent outside the group take no part and are never sent
// anything, so the parent's constructor path (an agreement round over every member) cannot
// serve: the members agree on the new context themselves.
//
// The members' used-context masks go to the group's first member (the leader), which sends
// their union back (or word that a member failed); every member then takes the lowest free pair of
// that union, as a split does, with the offer rounds every constructor shares (context_choice.h:
// a round is one more such exchange; the construction's key is the parent's context and the tag). The messages travel on the parent's collective context with a tag
// made of the user's tag (upper 16 bits, modulo 65535) over a low byte no collective algorithm
// uses, so a collective or nonblocking collective of the parent never matches them, and concurrent
// calls on overlapping groups keep apart when their tags differ modulo 65535.
//
// Failures: every member takes part in the exchange to its end, whatever it already knows, and
// each message carries one more byte: 1 if its sender knows of no failed member. A member that
// knows a failure when the call begins says so in its mask; the leader, told so or finding a
// member dead (its wait for that member's mask ends when the process is known failed), tells
// every live member that the union is void. So every survivor returns the failure error
// (MPI_ERR_OTHER, or MPIX_ERR_PROC_FAILED in ULFM mode), none waits for a message that a member
// which returned early never sends (members learn of a failure at different times), and no
// message of the call is left behind to be matched by a later call with the same tag. A dead
// leader ends the others' waits for the union. The exchange's requests are exempt from the
// parent's NOP purge (Request::own_failures): a failure outside the group does not concern
// this call, and the parent's state is not consulted. Nothing is repaired.
#include <vector>

#include "comm_child.h"
#include "context_choice.h"
#include "group.h"
#include "library.h"
#include "match_bits.h"
#include "monitor.h"

using namespace ftmpi;

namespace {

constexpr int kCreateGroupLowTag = 0xf1;  // above every algorithm's (collectives/src/group.h)
constexpr int kMaskBytes = static_cast<int>(kContextMaskBytes);

int message_tag(int tag) { return ((tag % 65535) + 1) << 8 | kCreateGroupLowTag; }

// The point-to-point of one call: requests on the parent's collective context, waited for
// until complete or until the process at the other end is known failed. A member already
// known failed is not posted to: it counts as lost at once.
class Exchange {
 public:
  Exchange(Comm* parent, int tag) : parent_(parent), tag_(message_tag(tag)) {}
  ~Exchange() {
    for (Pending& p : pending_) {
      if (!p.r->complete) lib().engine.purge(p.r, MPI_ERR_OTHER);
      lib().engine.retire(p.r);
    }
  }
  void send(int rank, const std::vector<std::uint8_t>& bytes) {
    post(true, rank, const_cast<std::uint8_t*>(bytes.data()), bytes.size());
  }
  void recv(int rank, std::vector<std::uint8_t>* bytes, int size) {
    bytes->assign(static_cast<std::size_t>(size), 0);
    post(false, rank, bytes->data(), bytes->size());
  }
  // true: every posted request completed without error and no member was found failed.
  bool wait_all() {
    Engine& e = lib().engine;
    e.wait_until([&] {
      for (const Pending& p : pending_) {
        if (!p.r->complete && !e.is_failed(p.proc)) return false;
      }
      return true;
    });
    for (const Pending& p : pending_) {
      if (!p.r->complete || p.r->error != MPI_SUCCESS) lost_ = true;
    }
    return !lost_;
  }

 private:
  struct Pending {
    Request* r;
    std::uint32_t proc;
  };
  void post(bool send, int rank, void* buf, std::size_t bytes) {
    Request* r = nullptr;
    Engine& e = lib().engine;
    const std::uint32_t proc = parent_->procs[static_cast<std::size_t>(rank)];
    Err err = e.is_failed(proc) ? Err::other
              : send ? e.isend(buf, bytes, rank, tag_, parent_, parent_->coll_context, &r)
                     : e.irecv(buf, bytes, rank, tag_, parent_, parent_->coll_context, &r);
    if (err != Err::ok) {
      lost_ = true;
      return;
    }
    r->own_failures = true;
    pending_.push_back({r, proc});
  }

  Comm* parent_;
  int tag_;
  bool lost_ = false;
  std::vector<Pending> pending_;
};

Err member_failed(const Comm& parent) {
  return fail_report(failure_err(parent), "MPI_Comm_create_group: a member of the group failed");
}

// *used (this member's contribution) becomes the union of the members' contributions, the same
// at every member. `ranks`: the members' parent ranks in group order; `healthy`: this member
// knows of no failed member. Each message has one more byte, 1 if its sender saw no failure:
// the leader's union says whether it got every mask and every member's "healthy". Called again
// for each offer round: the messages of successive rounds between two members keep their order
// (same tag and context).
Err exchange_masks(Comm* parent, const std::vector<int>& ranks, int my_group_rank, int tag,
                   bool healthy, CommTable::ContextMask* used) {
  if (ranks.size() == 1) return Err::ok;
  if (my_group_rank != 0) {
    // The buffers outlive the exchange: its destructor cancels what is still posted on them.
    std::vector<std::uint8_t> mine = context_mask_bytes(*used), all;
    mine.push_back(healthy ? 1 : 0);
    Exchange x(parent, tag);
    x.recv(ranks[0], &all, kMaskBytes + 1);
    x.send(ranks[0], mine);
    if (!x.wait_all() || all[kMaskBytes] != 1) return member_failed(*parent);
    used->reset();
    merge_context_mask(all.data(), kContextMaskBytes, used);
    return Err::ok;
  }
  std::vector<std::vector<std::uint8_t>> theirs(ranks.size());
  bool all_healthy = healthy;
  {
    Exchange x(parent, tag);
    for (std::size_t i = 1; i < ranks.size(); ++i) x.recv(ranks[i], &theirs[i], kMaskBytes + 1);
    if (!x.wait_all()) all_healthy = false;
  }
  for (std::size_t i = 1; i < ranks.size() && all_healthy; ++i) {
    if (theirs[i][kMaskBytes] != 1) all_healthy = false;
    merge_context_mask(theirs[i].data(), kContextMaskBytes, used);
  }
  std::vector<std::uint8_t> all = context_mask_bytes(*used);
  all.push_back(all_healthy ? 1 : 0);
  Exchange back(parent, tag);
  for (std::size_t i = 1; i < ranks.size(); ++i) back.send(ranks[i], all);
  // A member that died now cannot use the union; the others will, so the leader does too.
  back.wait_all();
  return all_healthy ? Err::ok : member_failed(*parent);
}

Err create_group(Comm* parent, const Group& g, int tag, MPI_Comm* out) {
  std::vector<int> ranks;
  bool healthy = true;
  for (std::uint32_t p : g.procs) {
    const int r = p < parent->rank_of_proc.size() ? parent->rank_of_proc[p] : -1;
    if (r < 0) {
      return fail(Err::group, "MPI_Comm_create_group: the group has a process that is not in %s",
                  parent->name.c_str());
    }
    if (parent->is_failed(r) || lib().engine.is_failed(p)) healthy = false;
    ranks.push_back(r);
  }
  if (!healthy && ranks.size() > 1) {
    // Take part all the same: the members that do not know it yet wait for this one's word.
    CommTable::ContextMask none;
    (void)exchange_masks(parent, ranks, g.my_rank, tag, false, &none);
    return member_failed(*parent);
  }
  Library& l = lib();
  ContextChoice choice(&l.construct.claims(), &l.comms, &l.consensus,
                       {parent->context, ContextClaims::kGroupTag | static_cast<std::uint64_t>(tag)});
  std::uint32_t context = 0;
  if (ranks.size() > 1 || !choice.pick_private(&context)) {
    auto round = [&](CommTable::ContextMask* mask) {
      return exchange_masks(parent, ranks, g.my_rank, tag, true, mask);
    };
    CommTable::ContextMask united = choice.contribution();
    if (Err e = round(&united); e != Err::ok) return e;
    if (Err e = choice.pick(united, round, &context); e != Err::ok) return e;
  }
  std::unique_ptr<Comm> c = child_comm(*parent, context);
  c->procs = g.procs;
  c->rank_of_proc = rank_index(c->procs, parent->rank_of_proc.size());
  c->rank = g.my_rank;
  c->proc_state.assign(c->procs.size(), FTMPI_PROC_OK);
  c->name = "create_group of " + parent->name;
  *out = lib().comms.add(std::move(c));
  Comm* made = nullptr;
  if (lib().comms.lookup(*out, &made) == Err::ok) monitor().comm_changed(*made);
  return Err::ok;
}

}  // namespace

extern "C" {

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  if (Err e = check_initialized("MPI_Comm_create_group"); e != Err::ok) return to_code(e);
  Comm* c = nullptr;
  if (Err e = lib().comms.lookup(comm, &c); e != Err::ok) return raise(nullptr, e);
  if (newcomm == nullptr) return raise(c, fail(Err::arg, "MPI_Comm_create_group: newcomm is NULL"));
  if (c->inter) {
    return raise(
        c, fail(Err::comm, "MPI_Comm_create_group: %s is an intercommunicator", c->name.c_str()));
  }
  if (tag < 0 || tag > match::kMaxTag) {
    return raise(c, fail(Err::tag, "MPI_Comm_create_group: tag %d outside 0..MPI_TAG_UB (%d)", tag,
                         match::kMaxTag));
  }
  const Group* g = nullptr;
  if (Err e = groups().lookup(group, &g); e != Err::ok) return raise(c, e);
  *newcomm = MPI_COMM_NULL;
  if (g->my_rank == MPI_UNDEFINED) return MPI_SUCCESS;  // not a member: nothing to do
  return raise(c, create_group(c, *g, tag, newcomm));
}

}  // extern "C"
