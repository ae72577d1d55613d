// MPI_Comm_create_group (MPI-3.1 6.4.2): a communicator of a group's members, collective over
// the group only. Processes of the parent outside the group take no part and are never sent
// anything, so the parent's constructor path (an agreement round over every member) cannot
// serve: the members agree on the new context themselves.
//
// The members' used-context masks go to the group's first member (the leader), which sends
// their union back (or word that a member failed); every member then takes the lowest free pair of
// that union, as a split does. The messages travel on the parent's collective context with a tag
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
#include "group.h"
#include "library.h"
#include "match_bits.h"
#include "monitor.h"

using namespace ftmpi;

namespace {

constexpr int kCreateGroupLowTag = 0xf1;  // above every algorithm's (collectives/src/group.h)
constexpr int kMaskBytes = static_cast<int>(CommTable::kContextPairs / 8);

int message_tag(int tag) { return ((tag % 65535) + 1) << 8 | kCreateGroupLowTag; }

std::vector<std::uint8_t> mask_bytes(const CommTable::ContextMask& m) {
  std::vector<std::uint8_t> out(kMaskBytes, 0);
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m.test(i)) out[i / 8] = static_cast<std::uint8_t>(out[i / 8] | (1u << (i % 8)));
  }
  return out;
}

void merge(const std::vector<std::uint8_t>& bytes, CommTable::ContextMask* m) {
  for (std::size_t i = 0; i < m->size(); ++i) {
    if (bytes[i / 8] & (1u << (i % 8))) m->set(i);
  }
}

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

// The union of the members' masks, at every member. `ranks`: the members' parent ranks in
// group order. The union travels with one more byte, 1 if the leader got every mask: a
// member the leader found dead makes the leader tell the others so, which is what keeps
// them from waiting for a union that will not come.
Err agree_mask(Comm* parent, const std::vector<int>& ranks, int my_group_rank, int tag,
               CommTable::ContextMask* used) {
  *used = lib().comms.used_contexts();
  if (ranks.size() == 1) return Err::ok;
  if (my_group_rank != 0) {
    // The buffers outlive the exchange: its destructor cancels what is still posted on them.
    std::vector<std::uint8_t> mine = mask_bytes(*used), all;
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
    merge(all, used);
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
    for (std::size_t i = 1; i < ranks.size(); ++i) merge(theirs[i], used);
  }
  std::vector<std::uint8_t> all = mask_bytes(*used);
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
  CommTable::ContextMask used;
  if (Err e = agree_mask(parent, ranks, g.my_rank, tag, &used); e != Err::ok) return e;
  std::uint32_t context = 0;
  // Below the "not offered" flag and the private ids of one-process constructions
  // (context_claims.h, construct.cpp).
  for (std::size_t i = 0; i < ContextClaims::kNotOffered - 128 && context == 0; ++i) {
    if (!used.test(i)) context = static_cast<std::uint32_t>(2 * i);
  }
  if (context == 0) return fail(Err::intern, "MPI_Comm_create_group: out of context ids");
  lib().comms.mark_context_used(context);
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
