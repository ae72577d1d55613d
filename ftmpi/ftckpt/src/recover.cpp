// FTCKPT_Recover: after the application repaired its communicator, find the newest iteration
// that can be rebuilt, and the lowest level that serves it, and roll back to it.
//
// Which processes are lost is read from the repaired communicator itself: each epoch's
// MPI_Group (a snapshot taken when its saves began) is translated into the repaired
// communicator; members that are missing (SHRINK) or FAILED gaps (BLANK) are lost. The FT
// core agreed on that membership, so every survivor derives the same failed set and, from
// it, the same iteration and level (core level_select.hpp: local, copies via RLFFN, XOR
// groups, files) without a validation round (seed 001). Failures since an epoch began
// accumulate, so a second failure before the next save completes is judged against all the
// processes lost since the kept iterations were written.
//
// The only communication is the re-creation of the library communicator, one small
// allreduce that agrees on the message generation and guards the "newest complete
// iteration" (equal everywhere when collectives are atomic; if not, the minimum is safe),
// the level-3 rebuild when that level is chosen, and one allreduce confirming every
// survivor could restore its own data.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ckpt_state.hpp"
#include "ftckpt/level_select.hpp"
#include "image.hpp"
#include "recovery_choice.hpp"

namespace ftckpt {

int slot_of(std::int64_t k, int epoch) {
  const State& s = state();
  for (std::size_t i = 0; i < s.slots.size(); ++i)
    if (s.slots[i].k == k && s.slots[i].epoch == epoch && s.slots[i].complete) return static_cast<int>(i);
  return -1;
}

std::int64_t newest_complete(int epoch) {
  std::int64_t last = -1;
  for (const Slot& sl : state().slots)
    if (sl.epoch == epoch && sl.complete) last = std::max(last, sl.k);
  return last;
}

std::int64_t newest_file_of(int epoch) {
  const State& s = state();
  return !s.disk.empty() && s.disk.back().epoch == epoch ? s.disk.back().k : -1;
}

Candidate choose_from_topology() {
  const State& s = state();
  Candidate best;
  std::vector<int> lost_at_newest;
  // Newest epoch first: every kept iteration of a newer epoch is newer than those of older
  // ones, and the newest files belong to one epoch (newest_file_of).
  for (auto e = s.epochs.rbegin(); e != s.epochs.rend(); ++e) {
    const Placement placement(e->n, s.df, s.sd);
    LevelQuery q;
    q.placement = &placement;
    q.last_saved = newest_complete(e->id);
    for (int a = 0; a < s.sd; ++a) q.complete_by_age.push_back(slot_of(q.last_saved - a, e->id) >= 0);
    q.dead.resize(e->n);
    for (int r = 0; r < e->n; ++r) q.dead[r] = e->now[r] < 0;  // lost, or a gap
    q.gap = e->gap_at_start;
    q.groups = e->xor_groups.enabled() ? &e->xor_groups : nullptr;
    q.newest_file = newest_file_of(e->id);
    const LevelChoice choice = choose_level(q);
    if (lost_at_newest.empty()) lost_at_newest = choice.lost_at_newest;
    if (!choice.recoverable()) continue;
    best.k = choice.iteration;
    best.epoch = e->id;
    best.level = choice.level;
    best.slot = slot_of(best.k, e->id);
    best.source.assign(e->n, -1);
    for (int r = 0; r < e->n; ++r) {
      const int src = choice.source[r];
      best.source[r] = src >= 0 ? e->now[src] : src == kSourceParity ? kSourceParity : -1;
    }
    return best;
  }
  best.lost_at_newest = lost_at_newest;
  return best;
}

namespace {

double seconds_now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Epoch rank -> current rank, -1 when the member is gone or a gap of the repaired comm.
int translate_epochs(MPI_Comm repaired) {
  State& s = state();
  MPI_Group now_group;
  if (int rc = MPI_Comm_group(repaired, &now_group); rc != MPI_SUCCESS) return rc;
  for (Epoch& e : s.epochs) {
    std::vector<int> ranks(e.n), out(e.n);
    for (int r = 0; r < e.n; ++r) ranks[r] = r;
    MPI_Group_translate_ranks(e.group, e.n, ranks.data(), now_group, out.data());
    for (int r = 0; r < e.n; ++r) {
      int st = FTMPI_PROC_OK;
      if (out[r] != MPI_UNDEFINED) FTMPI_Comm_proc_state(repaired, out[r], &st);
      e.now[r] = out[r] == MPI_UNDEFINED || st == FTMPI_PROC_FAILED ? -1 : out[r];
    }
  }
  MPI_Group_free(&now_group);
  return MPI_SUCCESS;
}

// Drops iterations newer than the recovered one (the job rolls back past them) and epochs
// nothing refers to any more.
void discard_after(std::int64_t k, int keep_epoch) {
  State& s = state();
  for (Slot& sl : s.slots)
    if (sl.k > k) sl.k = -1, sl.complete = false, sl.on_disk = false;
  while (!s.disk.empty() && s.disk.back().k > k) {
    if (const Epoch* e = find_epoch(s.disk.back().epoch))
      std::remove(image_path(s.l4_dir, s.disk.back().epoch, s.disk.back().k, e->my_rank).c_str());
    s.disk.pop_back();
  }
  for (auto it = s.epochs.begin(); it != s.epochs.end();) {
    bool used = it->id == keep_epoch;
    for (const Slot& sl : s.slots) used = used || (sl.k >= 0 && sl.epoch == it->id);
    for (const DiskSave& d : s.disk) used = used || d.epoch == it->id;
    if (used) {
      ++it;
    } else {
      MPI_Group_free(&it->group);
      it = s.epochs.erase(it);
    }
  }
}

std::string list(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : " ") + std::to_string(x);
  return out;
}

}  // namespace

int recover(int* iteration) {
  State& s = state();
  if (!s.initialised || !iteration) return FTCKPT_ERR_STATE;
  s.rec.valid = false;
  int st = FTMPI_COMM_OK;
  FTMPI_Comm_state(s.user, &st);
  // Not repaired yet, or failed again since: the caller must repair (again) first.
  if (st == FTMPI_COMM_DETECTED || st == FTMPI_COMM_RECOVER) return MPI_ERR_OTHER;
  if (int rc = translate_epochs(s.user); rc != MPI_SUCCESS) return rc;

  // The broken communicator is retired, not freed: freeing would release its context id for
  // the new one, and messages of the interrupted round still in flight would match there.
  if (s.comm != MPI_COMM_NULL) s.retired.push_back(s.comm);
  s.comm = MPI_COMM_NULL;
  if (int rc = MPI_Comm_dup(s.user, &s.comm); rc != MPI_SUCCESS) {
    s.comm = MPI_COMM_NULL;
    return rc;
  }
  MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);

  long long newest = -1, newest_disk = s.disk.empty() ? -1 : s.disk.back().k;
  for (const Slot& sl : s.slots)
    if (sl.complete) newest = std::max<long long>(newest, sl.k);
  long long mine[4] = {s.seq, -newest, newest, -newest_disk}, all[4];
  if (int rc = MPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_MAX, s.comm); rc != MPI_SUCCESS) return rc;
  s.seq = static_cast<int>(all[0]);
  if (-all[1] != all[2]) report("survivors disagreed on the newest complete save (%lld..%lld); using the older",
                                -all[1], all[2]);
  for (Slot& sl : s.slots)
    if (sl.k > -all[1]) sl.complete = false;
  while (!s.disk.empty() && s.disk.back().k > -all[3]) s.disk.pop_back();

  const double t_select = seconds_now();
  Candidate best;
  int rounds = 0;
  if (s.search_rounds) {
    if (int rc = choose_by_rounds(&best, &rounds); rc != MPI_SUCCESS) return rc;
  } else {
    best = choose_from_topology();
  }
  const double select_seconds = seconds_now() - t_select;
  if (best.k < 0) {
    if (newest < 0 && s.disk.empty()) {
      report("nothing to recover: no save completed before the failure");
      return FTCKPT_ERR_NO_CHECKPOINT;
    }
    report("no kept iteration can be rebuilt: every copy of process(es) %s of the newest one "
           "is lost%s", list(best.lost_at_newest).c_str(), s.l4_dir.empty() ? " and no files are kept" : "");
    return FTCKPT_ERR_UNRECOVERABLE;
  }

  if (best.level == FTCKPT_LEVEL_XOR) {
    if (int rc = rebuild_from_parity(*find_epoch(best.epoch), s.slots[best.slot], &best.source); rc != MPI_SUCCESS)
      return rc;
  }

  // Roll this process back. Its own image of k is in memory unless the line came from disk
  // after the slot was reused; then its file serves.
  const Epoch& re = *find_epoch(best.epoch);
  std::vector<char> file_image;
  const std::vector<char>* own = best.slot >= 0 ? &s.slots[best.slot].image : nullptr;
  int ok = 1;
  if (!own) {
    ok = read_image_file(image_path(s.l4_dir, re.id, best.k, re.my_rank), &file_image);
    own = &file_image;
  }
  if (ok) restore_regions(*own, s.regions);
  int all_ok = 0;
  if (int rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, s.comm); rc != MPI_SUCCESS) return rc;
  if (!all_ok) {
    report("level-4 files of iteration %lld could not be read everywhere", static_cast<long long>(best.k));
    return FTCKPT_ERR_UNRECOVERABLE;
  }

  discard_after(best.k, best.epoch);
  s.rec.valid = true;
  s.rec.k = best.k;
  s.rec.epoch = best.epoch;
  s.rec.level = best.level;
  s.rec.slot = best.slot;
  s.rec.source = best.source;
  s.rec.select_seconds = select_seconds;
  s.rec.select_rounds = rounds;
  s.next_k = best.k + 1;
  if (s.verbose) {
    const Epoch& e = *find_epoch(best.epoch);
    std::vector<int> lost;
    for (int r = 0; r < e.n; ++r)
      if (e.now[r] < 0 && !e.gap_at_start[r]) lost.push_back(r);
    report("recovered iteration %lld (level %d, saved by %d processes; lost: %s)",
           static_cast<long long>(best.k), best.level, e.n, list(lost).c_str());
  }
  // Saves from now on use the repaired communicator's numbering and size.
  begin_epoch(false);
  *iteration = static_cast<int>(best.k);
  return MPI_SUCCESS;
}

}  // namespace ftckpt

extern "C" int FTCKPT_Recover(int* iteration) { return ftckpt::recover(iteration); }
