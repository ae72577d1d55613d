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
// Failures: a member already known failed makes the call fail at once; a member that dies
// during it ends the waits on it (the leader's for its mask, the others' for the union), so
// every survivor returns the failure error (MPI_ERR_OTHER, or MPIX_ERR_PROC_FAILED in ULFM
// mode) and no communicator is made. The parent's state is not consulted: a failure of a
// process outside the group does not concern this call. Nothing is repaired.
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
// until complete or until the process at the other end is known failed.
class Exchange {
 public:
  Exchange(Comm* parent, int tag) : parent_(parent), tag_(message_tag(tag)) {}
  ~Exchange() {
    for (Pending& p : pending_) {
      if (p.r == nullptr) continue;
      if (!p.r->complete) lib().engine.purge(p.r, MPI_ERR_OTHER);
      lib().engine.retire(p.r);
    }
  }
  Err send(int rank, const std::vector<std::uint8_t>& bytes) {
    return post(true, rank, const_cast<std::uint8_t*>(bytes.data()), bytes.size());
  }
  Err recv(int rank, std::vector<std::uint8_t>* bytes, int size) {
    bytes->assign(static_cast<std::size_t>(size), 0);
    return post(false, rank, bytes->data(), bytes->size());
  }
  // Every posted request complete: Err::ok; one failed or its peer died: the failure error.
  Err wait_all() {
    Engine& e = lib().engine;
    e.wait_until([&] {
      for (const Pending& p : pending_) {
        if (!p.r->complete && !e.is_failed(p.proc)) return false;
      }
      return true;
    });
    for (Pending& p : pending_) {
      if (!p.r->complete || p.r->error != MPI_SUCCESS) {
        return fail_report(failure_err(*parent_),
                           "MPI_Comm_create_group: process %u of the group "
                           "failed",
                           p.proc);
      }
    }
    return Err::ok;
  }

 private:
  struct Pending {
    Request* r;
    std::uint32_t proc;
  };
  Err post(bool send, int rank, void* buf, std::size_t bytes) {
    Request* r = nullptr;
    Engine& e = lib().engine;
    Err err = send ? e.isend(buf, bytes, rank, tag_, parent_, parent_->coll_context, &r)
                   : e.irecv(buf, bytes, rank, tag_, parent_, parent_->coll_context, &r);
    if (err != Err::ok) return err;
    pending_.push_back({r, parent_->procs[static_cast<std::size_t>(rank)]});
    return Err::ok;
  }

  Comm* parent_;
  int tag_;
  std::vector<Pending> pending_;
};

// *used (this member's contribution) becomes the union of the members' contributions, the same
// at every member. `ranks`: the members' parent ranks in group order. The union travels with
// one more byte, 1 if the leader got every mask: a member the leader found dead makes the
// leader tell the others so, which is what keeps them from waiting for a union that will not
// come. Called again for each offer round: the messages of successive rounds between two
// members keep their order (same tag and context).
Err exchange_masks(Comm* parent, const std::vector<int>& ranks, int my_group_rank, int tag,
                   CommTable::ContextMask* used) {
  if (ranks.size() == 1) return Err::ok;
  if (my_group_rank != 0) {
    // The buffers outlive the exchange: its destructor cancels what is still posted on them.
    std::vector<std::uint8_t> mine = context_mask_bytes(*used), all;
    Exchange x(parent, tag);
    if (Err e = x.recv(ranks[0], &all, kMaskBytes + 1); e != Err::ok) return e;
    if (Err e = x.send(ranks[0], mine); e != Err::ok) return e;
    if (Err e = x.wait_all(); e != Err::ok) return e;
    if (all[kMaskBytes] != 1) {
      return fail_report(failure_err(*parent),
                         "MPI_Comm_create_group: a member of the group "
                         "failed (the group's first member, rank %d of %s, says so)",
                         ranks[0], parent->name.c_str());
    }
    used->reset();
    merge_context_mask(all.data(), kContextMaskBytes, used);
    return Err::ok;
  }
  std::vector<std::vector<std::uint8_t>> theirs(ranks.size());
  Err gathered = Err::ok;
  {
    Exchange x(parent, tag);
    for (std::size_t i = 1; i < ranks.size() && gathered == Err::ok; ++i) {
      gathered = x.recv(ranks[i], &theirs[i], kMaskBytes);
    }
    if (gathered == Err::ok) gathered = x.wait_all();
  }
  if (gathered == Err::ok) {
    for (std::size_t i = 1; i < ranks.size(); ++i) {
      merge_context_mask(theirs[i].data(), theirs[i].size(), used);
    }
  }
  std::vector<std::uint8_t> all = context_mask_bytes(*used);
  all.push_back(gathered == Err::ok ? 1 : 0);
  Exchange back(parent, tag);
  Err sent = Err::ok;
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    if (Err e = back.send(ranks[i], all); e != Err::ok && sent == Err::ok) sent = e;
  }
  if (Err e = back.wait_all(); e != Err::ok && sent == Err::ok) sent = e;
  return gathered != Err::ok ? gathered : sent;
}

Err create_group(Comm* parent, const Group& g, int tag, MPI_Comm* out) {
  std::vector<int> ranks;
  for (std::uint32_t p : g.procs) {
    const int r = p < parent->rank_of_proc.size() ? parent->rank_of_proc[p] : -1;
    if (r < 0) {
      return fail(Err::group, "MPI_Comm_create_group: the group has a process that is not in %s",
                  parent->name.c_str());
    }
    if (parent->is_failed(r) || lib().engine.is_failed(p)) {
      return fail_report(failure_err(*parent),
                         "MPI_Comm_create_group: rank %d of %s (a member "
                         "of the group) has failed",
                         r, parent->name.c_str());
    }
    ranks.push_back(r);
  }
  Library& l = lib();
  ContextChoice choice(&l.construct.claims(), &l.comms, &l.consensus,
                       {parent->context, ContextClaims::kGroupTag | static_cast<std::uint64_t>(tag)});
  std::uint32_t context = 0;
  if (ranks.size() > 1 || !choice.pick_private(&context)) {
    auto round = [&](CommTable::ContextMask* mask) {
      return exchange_masks(parent, ranks, g.my_rank, tag, mask);
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
