// FTCKPT_Save: the coordinated save of one iteration.
//
// 1. A free ring slot is chosen (SD+1 slots: the SD iterations recovery may need are never
//    the one being overwritten) and the image size computed.
// 2. An allgather of image sizes. Besides telling receivers how much to expect, it makes sure
//    every member entered this save before anyone waits for a copy: a member that saw a
//    failure earlier (and went to repair instead) makes it fail on everyone, so no receive
//    can wait forever on a live process that will never send. A member whose allgather
//    failed still joins step 5 (see save()), in case others' succeeded.
// 3. The receives of the copies this process holds are posted (into the slot's buffers of
//    the previous round, never freed), then the image of every protected region is built in
//    the slot, then the DF copies are sent; one Waitall, so all transfers overlap.
//    With level 3 on, the XOR-group pieces (xor_groups.hpp) travel in the same Waitall and
//    each member XORs the pieces it received into its parity afterwards.
// 4. Files of level 4 when due.
// 5. One agreement (MPIX_Comm_agree) on "my part completed": it gives the same result to every
//    survivor, and nobody enters it before its own copies were received. So when it succeeds,
//    every copy of iteration k exists; when it fails, every survivor leaves slot k incomplete
//    and recovery will not use it. A process that returned success has seen the decision that
//    every other process gets, so a save that returned anywhere is never taken back.
#include <mpi-ext.h>
#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ckpt_state.hpp"
#include "hosts.hpp"
#include "image.hpp"

namespace ftckpt {

namespace {

// A free slot, else an incomplete one, else the oldest iteration.
Slot& choose_slot() {
  State& s = state();
  Slot* best = nullptr;
  for (Slot& sl : s.slots) {
    if (sl.k < 0 || !sl.complete) return sl;
    if (!best || sl.k < best->k) best = &sl;
  }
  return *best;
}

// Distinct peers, excluding this process and BLANK gaps: a copy that would land on the owner
// itself dies with it, and a gap cannot receive.
void add_peer(std::vector<int>* peers, int r, const Epoch& e) {
  if (r == e.my_rank || e.gap_at_start[r]) return;
  for (int p : *peers)
    if (p == r) return;
  peers->push_back(r);
}

// Keeps the two newest level-4 saves; removes this process's files of older ones.
void prune_disk() {
  State& s = state();
  while (s.disk.size() > 2) {
    const DiskSave d = s.disk.front();
    if (const Epoch* e = find_epoch(d.epoch))
      std::remove(image_path(s.l4_dir, d.epoch, d.k, e->my_rank).c_str());
    s.disk.erase(s.disk.begin());
  }
}

// The owners whose copies a slot holds change with the phase (k mod SD) while the slot is
// reused every SD+1 saves, so keying buffers by owner would free and re-allocate DF images
// per save: page faults and zero-filling cost more than the transfers (README, "Measured").
// Buffers of owners this iteration does not bring are handed to the new owners instead.
void reuse_held_buffers(Slot* slot, const std::vector<int>& owners) {
  std::vector<std::vector<char>> spare;
  for (auto it = slot->held.begin(); it != slot->held.end();) {
    if (std::find(owners.begin(), owners.end(), it->first) != owners.end()) {
      ++it;
      continue;
    }
    spare.push_back(std::move(it->second));
    it = slot->held.erase(it);
  }
  for (int o : owners) {
    if (slot->held.count(o) || spare.empty()) continue;
    slot->held[o] = std::move(spare.back());
    spare.pop_back();
  }
}

// Level 3 during a save. Each member of an XOR group sends chunk t of its image to the member
// of column xor_column(p, t) and receives the other members' chunks in its own column: the
// first straight into its parity buffer, the others into the reused scratch buffer; after
// the Waitall their XOR is its parity (xor_groups.hpp). Groups of two need no scratch and no
// XOR. The messages ride in the same Waitall as the copies, so both overlap.
struct ParityExchange {
  bool active = false;
  std::size_t chunk = 0;
  std::size_t first = 0;            // bytes received into the parity buffer itself
  std::vector<ChunkSpan> received;  // the others, in state().scratch
};

bool post_parity_receives(const Epoch& e, Slot& slot, int tag, ParityExchange* px,
                          std::vector<MPI_Request>* reqs) {
  State& s = state();
  const int group = e.xor_groups.group_of(e.my_rank);
  if (group < 0) {
    slot.parity.clear();
    return true;
  }
  const GroupGeometry geo = group_geometry(e, slot, group);
  const std::vector<int>& members = *geo.members;
  const int p = e.xor_groups.position(e.my_rank);
  px->active = true;
  px->chunk = geo.chunk;
  // Sized before any receive points into them.
  slot.parity.resize(geo.chunk);
  s.scratch.resize(geo.chunk * (members.size() - 2));
  bool first = true;
  std::size_t at = 0;
  for (int q = 0; q < static_cast<int>(members.size()); ++q) {
    if (q == p) continue;
    const long long size = slot.sizes[members[q]];
    if (size < 0 || size > INT32_MAX) return false;
    ChunkSpan span = xor_chunk_span(static_cast<std::size_t>(size), geo.chunk, xor_chunk(q, p));
    if (!span.length) continue;  // only padding: the sender skips it too
    char* into = first ? slot.parity.data() : s.scratch.data() + at;
    reqs->emplace_back();
    MPI_Irecv(into, static_cast<int>(span.length), MPI_BYTE, members[q], tag, s.comm, &reqs->back());
    if (first) {
      px->first = span.length;
    } else {
      px->received.push_back(ChunkSpan{at, span.length});
      at += span.length;
    }
    first = false;
  }
  return true;
}

void post_parity_sends(const Epoch& e, const Slot& slot, int tag, const ParityExchange& px,
                       std::vector<MPI_Request>* reqs) {
  if (!px.active) return;
  const std::vector<int>& members = e.xor_groups.members(e.xor_groups.group_of(e.my_rank));
  const int p = e.xor_groups.position(e.my_rank);
  for (int col = 0; col < static_cast<int>(members.size()); ++col) {
    if (col == p) continue;
    ChunkSpan span = xor_chunk_span(slot.image.size(), px.chunk, xor_chunk(p, col));
    if (!span.length) continue;
    reqs->emplace_back();
    MPI_Isend(slot.image.data() + span.offset, static_cast<int>(span.length), MPI_BYTE, members[col], tag,
              state().comm, &reqs->back());
  }
}

void finish_parity(Slot& slot, const ParityExchange& px) {
  if (!px.active) return;
  std::memset(slot.parity.data() + px.first, 0, px.chunk - px.first);
  for (const ChunkSpan& in : px.received)
    xor_into(slot.parity.data(), state().scratch.data() + in.offset, in.length);
}

}  // namespace

int save() {
  State& s = state();
  if (!s.initialised) return FTCKPT_ERR_STATE;
  // After a failure the library communicator is broken until Recover re-creates it, and
  // until a Recover succeeded the epoch does not describe it (a replacement has none yet).
  if (s.comm == MPI_COMM_NULL || s.joining || s.recovering) return FTCKPT_ERR_STATE;
  s.rec.valid = false;  // the recovered iteration's slot may be reused from here on
  Epoch& e = current_epoch();
  const std::int64_t k = s.next_k;
  const Placement placement = epoch_placement(e, s.df, s.sd);

  Slot& slot = choose_slot();
  slot.k = k;
  slot.epoch = e.id;
  slot.complete = false;
  slot.on_disk = false;
  const long long mine = static_cast<long long>(image_size(s.regions));

  // Gaps keep -1: BLANK collectives leave their entries untouched.
  std::vector<long long> sizes(e.n, -1);
  int rc = MPI_Allgather(&mine, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, s.comm);
  if (rc != MPI_SUCCESS) {
    // Still take part in the closing allreduce: ftmpi's ATOMIC outcome can differ between
    // survivors when a process dies right after the allgather (the outcome also counts
    // failures each one heard of locally), and those that went on would wait there forever
    // for this one.
    int flags[2] = {0, 0}, agreed[2];
    (void)MPI_Allreduce(flags, agreed, 2, MPI_INT, MPI_MIN, s.comm);
    return rc;
  }
  slot.sizes = sizes;
  // Images rebuilt by the last recovery only served FTCKPT_Fetch, valid until this save.
  for (Slot& sl : s.slots) sl.rebuilt.clear(), sl.parity_serves.clear();

  std::vector<int> receivers, owners;
  for (int j = 1; j <= s.df; ++j) add_peer(&receivers, placement.receiver(e.my_rank, j, k), e);
  for (const HeldCopy& h : placement.copies_held_by(e.my_rank, k)) add_peer(&owners, h.owner, e);

  // Receives first, so the copies can land while this process copies its own image.
  reuse_held_buffers(&slot, owners);
  const int tag = next_tag();
  std::vector<MPI_Request> reqs;
  bool ok = mine <= INT32_MAX;
  for (int o : owners) {
    std::vector<char>& copy = slot.held[o];
    if (sizes[o] < 0 || sizes[o] > INT32_MAX) {
      ok = false;
      continue;
    }
    copy.resize(static_cast<std::size_t>(sizes[o]));
    reqs.emplace_back();
    MPI_Irecv(copy.data(), static_cast<int>(sizes[o]), MPI_BYTE, o, tag, s.comm, &reqs.back());
  }
  const int parity_tag = next_tag();
  ParityExchange px;
  ok = post_parity_receives(e, slot, parity_tag, &px, &reqs) && ok;
  build_image(s.regions, &slot.image);
  if (ok) {
    for (int r : receivers) {
      reqs.emplace_back();
      MPI_Isend(slot.image.data(), static_cast<int>(mine), MPI_BYTE, r, tag, s.comm, &reqs.back());
    }
    post_parity_sends(e, slot, parity_tag, px, &reqs);
  }
  if (s.kill_in_save == k) raise(SIGKILL);  // test hook: die with copies in flight
  rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  ok = ok && rc == MPI_SUCCESS;
  if (ok) finish_parity(slot, px);

  const bool disk_due = !s.l4_dir.empty() && k % s.l4_every == 0;
  bool disk_ok = disk_due;
  if (ok && disk_due)
    disk_ok = write_image_file(image_path(s.l4_dir, e.id, k, e.my_rank), slot.image);

  // The commit point, an agreement (bitwise AND of the flags) rather than an allreduce: once
  // any process returns success from it the decision is made for all, so a save that returned
  // anywhere is complete at every survivor, even if that process dies the next instant. (An
  // ATOMIC allreduce gives the same outcome to the survivors only: one member may return from
  // it, "settled", while the others are still inside and later fail it.) Called even when this
  // process's part failed, so that a local problem (not a process failure) cannot leave the
  // others waiting.
  int flags = (ok ? 1 : 0) | (disk_ok ? 2 : 0);
  rc = MPIX_Comm_agree(s.comm, &flags);
  if (rc != MPI_SUCCESS) return rc;
  const bool agreed[2] = {(flags & 1) != 0, (flags & 2) != 0};
  if (!agreed[0]) return MPI_ERR_OTHER;  // a copy could not be sent; slot stays incomplete

  slot.complete = true;
  s.next_k = k + 1;
  if (s.verbose && k == s.sd) {  // the ring is full from here on: report what it costs
    long long bytes = 0;
    FTCKPT_Memory_usage(&bytes);
    report("memory per process %lld bytes for V0 = %lld bytes: %.2f x V0 ((SD+1)(DF+1) = %d%s)", bytes, mine,
           mine ? static_cast<double>(bytes) / static_cast<double>(mine) : 0.0, (s.sd + 1) * (s.df + 1),
           e.xor_groups.enabled() ? ", plus (SD+1)/(g-1) of parity and one image of scratch" : "");
  }
  if (agreed[1]) {
    slot.on_disk = true;
    s.disk.push_back(DiskSave{k, e.id});
    prune_disk();
  } else if (disk_due) {
    report("level-4 files of iteration %lld could not be written everywhere", static_cast<long long>(k));
  }
  return MPI_SUCCESS;
}

}  // namespace ftckpt

extern "C" int FTCKPT_Save(void) { return ftckpt::save(); }
