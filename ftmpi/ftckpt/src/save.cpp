// FTCKPT_Save: the coordinated save of one iteration.
//
// 1. The image of every protected region goes into a free ring slot (SD+1 slots: the SD
//    iterations recovery may need are never the one being overwritten).
// 2. An allgather of image sizes. Besides telling receivers how much to expect, it makes sure
//    every member entered this save before anyone waits for a copy: a member that saw a
//    failure earlier (and went to repair instead) makes it fail on everyone, so no receive
//    can wait forever on a live process that will never send.
// 3. All DF copies are sent and all copies this process holds are received at once
//    (Isend/Irecv, one Waitall), so the transfers overlap.
// 4. Files of level 4 when due.
// 5. One allreduce of "my part completed". Collectives are atomic in ftmpi (SPEC 4.2): it
//    succeeds on every survivor or fails on every survivor, and nobody enters it before its
//    own copies were received. So when it succeeds, every copy of iteration k exists; when
//    it fails, every survivor leaves slot k incomplete and recovery will not use it.
#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "ckpt_state.hpp"
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

}  // namespace

int save() {
  State& s = state();
  if (!s.initialised) return FTCKPT_ERR_STATE;
  // After a failure the library communicator is broken until Recover re-creates it.
  if (s.comm == MPI_COMM_NULL) return FTCKPT_ERR_STATE;
  s.rec.valid = false;  // the recovered iteration's slot may be reused from here on
  Epoch& e = current_epoch();
  const std::int64_t k = s.next_k;
  const Placement placement(e.n, s.df, s.sd);

  Slot& slot = choose_slot();
  slot.k = k;
  slot.epoch = e.id;
  slot.complete = false;
  slot.on_disk = false;
  build_image(s.regions, &slot.image);

  // Gaps keep -1: BLANK collectives leave their entries untouched.
  std::vector<long long> sizes(e.n, -1);
  long long mine = static_cast<long long>(slot.image.size());
  int rc = MPI_Allgather(&mine, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, s.comm);
  if (rc != MPI_SUCCESS) return rc;

  std::vector<int> receivers, owners;
  for (int j = 1; j <= s.df; ++j) add_peer(&receivers, placement.receiver(e.my_rank, j, k), e);
  for (const HeldCopy& h : placement.copies_held_by(e.my_rank, k)) add_peer(&owners, h.owner, e);

  // Drop copies of owners this iteration does not bring, keep the others' capacity.
  for (auto it = slot.held.begin(); it != slot.held.end();) {
    bool keep = false;
    for (int o : owners) keep = keep || o == it->first;
    it = keep ? std::next(it) : slot.held.erase(it);
  }
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
  if (ok) {
    for (int r : receivers) {
      reqs.emplace_back();
      MPI_Isend(slot.image.data(), static_cast<int>(mine), MPI_BYTE, r, tag, s.comm, &reqs.back());
    }
  }
  if (s.kill_in_save == k) raise(SIGKILL);  // test hook: die with copies in flight
  rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  ok = ok && rc == MPI_SUCCESS;

  const bool disk_due = !s.l4_dir.empty() && k % s.l4_every == 0;
  bool disk_ok = disk_due;
  if (ok && disk_due)
    disk_ok = write_image_file(image_path(s.l4_dir, e.id, k, e.my_rank), slot.image);

  // Called even when this process's part failed, so that a local problem (not a process
  // failure) cannot leave the others waiting in the allreduce.
  int flags[2] = {ok ? 1 : 0, disk_ok ? 1 : 0}, agreed[2] = {0, 0};
  rc = MPI_Allreduce(flags, agreed, 2, MPI_INT, MPI_MIN, s.comm);
  if (rc != MPI_SUCCESS) return rc;
  if (!agreed[0]) return MPI_ERR_OTHER;  // a copy could not be sent; slot stays incomplete

  slot.complete = true;
  s.next_k = k + 1;
  if (s.verbose && k == s.sd) {  // the ring is full from here on: report what it costs
    long long bytes = 0;
    FTCKPT_Memory_usage(&bytes);
    report("memory per process %lld bytes for V0 = %lld bytes: %.2f x V0 ((SD+1)(DF+1) = %d)", bytes, mine,
           mine ? static_cast<double>(bytes) / static_cast<double>(mine) : 0.0, (s.sd + 1) * (s.df + 1));
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
