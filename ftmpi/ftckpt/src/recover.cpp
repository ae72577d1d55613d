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
// allreduce that agrees on the message generation, the configuration and who knows which
// epochs, and guards the "newest complete iteration" (equal everywhere when collectives are
// atomic; if not, the minimum is safe), the level-3 rebuild when that level is chosen, and
// one allreduce confirming every process could restore its data.
//
// REBUILD (handoff.hpp): a replacement process calls Recover too - its FTCKPT_Init did no
// communication, so both sides make exactly the same collective calls from the re-creation
// of the library communicator on. When some member does not know every kept epoch (a
// replacement knows none), the lowest rank among those that know the oldest one chooses and
// broadcasts the decision; then each lost owner's image goes from the survivor that serves
// it (copy holder, parity builder) to its heir, the process that now holds its rank.
#include <time.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ckpt_state.hpp"
#include "hosts.hpp"
#include "ftckpt/level_select.hpp"
#include "handoff.hpp"
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
    if (e->foreign) continue;  // this process holds nothing of it
    const Placement placement = epoch_placement(*e, s.df, s.sd);
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
    if (e.foreign) continue;  // nothing to translate: its members were described, not known
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
      if (it->group != MPI_GROUP_NULL) MPI_Group_free(&it->group);
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

namespace {

// What every member states before the choice: one allreduce (MPI_MAX; minima are negated).
// A member without a value for an entry (a replacement, or no complete save since it
// joined) contributes kNone, which changes nothing.
enum Meta {
  kSeq, kNegNewest, kNewest, kNegNewestDisk,  // message generation; guards (see below)
  kDf, kNegDf, kSd, kNegSd, kL3, kNegL3, kL4, kNegL4,  // the same configuration everywhere
  kFirstKnown, kNegFirstKnown, kNegLeaderKey,  // who knows which epochs; the leader
  kMaxEpochId, kMaxN, kMetaCount
};
constexpr long long kNone = LLONG_MIN;
constexpr long long kNoKnowledge = INT_MAX;

struct MetaResult {
  std::vector<int> hosts;      // host number of every rank of the repaired comm (hosts.hpp)
  bool config_differs = false;
  bool everyone_knows = true;  // every member knows every kept epoch: no broadcast needed
  bool anyone_knows = true;
  int leader = -1;             // lowest rank among those that know the oldest epoch
  int next_epoch_id = 0;
  int max_n = 0;
  long long min_newest = -1, max_newest = -1, min_newest_disk = -1;
};

long long first_known_epoch() {
  for (const Epoch& e : state().epochs)
    if (!e.foreign) return e.id;
  return kNoKnowledge;
}

int exchange_meta(MetaResult* out) {
  State& s = state();
  long long newest = -1;
  for (const Slot& sl : s.slots)
    if (sl.complete) newest = std::max<long long>(newest, sl.k);
  // After the fixed entries, one per rank of comm: its host key (hosts.hpp), 0 from others,
  // so the MAX gives the new epoch's host map without a round of its own.
  int n_now = 0;
  MPI_Comm_size(s.comm, &n_now);
  std::vector<long long> mine(static_cast<std::size_t>(kMetaCount) + n_now, 0), all(mine.size(), 0);
  mine[kMetaCount + my_rank()] = static_cast<long long>(my_host_key());
  const long long first = first_known_epoch();
  mine[kSeq] = s.seq;
  mine[kNegNewest] = newest >= 0 ? -newest : kNone;
  mine[kNewest] = newest >= 0 ? newest : kNone;
  mine[kNegNewestDisk] = s.disk.empty() ? kNone : -s.disk.back().k;
  const long long l4 = s.l4_dir.empty() ? 0 : s.l4_every;
  mine[kDf] = s.df, mine[kNegDf] = -s.df, mine[kSd] = s.sd, mine[kNegSd] = -s.sd;
  mine[kL3] = s.l3_group, mine[kNegL3] = -s.l3_group, mine[kL4] = l4, mine[kNegL4] = -l4;
  mine[kFirstKnown] = first;
  mine[kNegFirstKnown] = -first;
  mine[kNegLeaderKey] = -((first << 31) | my_rank());
  mine[kMaxEpochId] = s.epochs.empty() ? -1 : s.epochs.back().id;
  mine[kMaxN] = n_now;
  for (const Epoch& e : s.epochs) mine[kMaxN] = std::max<long long>(mine[kMaxN], e.n);
  if (int rc = MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_LONG_LONG, MPI_MAX, s.comm);
      rc != MPI_SUCCESS)
    return rc;
  std::vector<std::uint64_t> keys(all.begin() + kMetaCount, all.end());
  out->hosts = hosts_from_keys(keys);
  s.seq = static_cast<int>(all[kSeq]);
  out->config_differs = all[kDf] != -all[kNegDf] || all[kSd] != -all[kNegSd] || all[kL3] != -all[kNegL3] ||
                        all[kL4] != -all[kNegL4];
  const long long min_first = -all[kNegFirstKnown];
  out->anyone_knows = min_first != kNoKnowledge;
  out->everyone_knows = all[kFirstKnown] == min_first;
  out->leader = static_cast<int>((-all[kNegLeaderKey]) & ((1ll << 31) - 1));
  out->next_epoch_id = static_cast<int>(all[kMaxEpochId]) + 1;
  out->max_n = static_cast<int>(all[kMaxN]);
  out->min_newest = all[kNegNewest] == kNone ? -1 : -all[kNegNewest];
  out->max_newest = all[kNewest] == kNone ? -1 : all[kNewest];
  out->min_newest_disk = all[kNegNewestDisk] == kNone ? -1 : -all[kNegNewestDisk];
  return MPI_SUCCESS;
}

int no_choice_status() {
  const State& s = state();
  bool any_save = !s.disk.empty();
  for (const Slot& sl : s.slots) any_save = any_save || sl.complete;
  return any_save ? FTCKPT_ERR_UNRECOVERABLE : FTCKPT_ERR_NO_CHECKPOINT;
}

void explain_failure(int status, const Candidate& best) {
  const State& s = state();
  if (status == FTCKPT_ERR_NO_CHECKPOINT)
    std::fprintf(stderr, "ftckpt: nothing to recover: no save completed before the failure\n");
  else
    std::fprintf(stderr, "ftckpt: no kept iteration can be rebuilt: every copy of process(es) %s of the newest "
                 "one is lost%s\n", list(best.lost_at_newest).c_str(),
                 s.l4_dir.empty() ? " and no files are kept" : "");
}

// This process's own image of iteration k of e (a member of e): in memory, or its file.
bool restore_own(const Epoch& e, const Candidate& best) {
  State& s = state();
  std::vector<char> file_image;
  const std::vector<char>* own = best.slot >= 0 ? &s.slots[best.slot].image : nullptr;
  if (!own) {
    if (!read_image_file(image_path(s.l4_dir, e.id, best.k, e.my_rank), &file_image)) return false;
    own = &file_image;
  }
  restore_regions(*own, s.regions);
  return true;
}

// No save had completed: nothing to roll back to, but the library starts afresh on the
// repaired communicator (save numbers from 0), so the application can start over and save.
int start_over(int epoch_id, std::vector<int> hosts) {
  State& s = state();
  discard_after(-1, -1);
  s.next_k = 0;
  s.joining = false;
  s.recovering = false;
  begin_epoch(false, epoch_id, std::move(hosts));
  return FTCKPT_ERR_NO_CHECKPOINT;
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
  s.recovering = true;

  // The broken communicator is retired, not freed: freeing would release its context id for
  // the new one, and messages of the interrupted round still in flight would match there.
  // A REBUILD replacement makes the same call from its first Recover.
  if (s.comm != MPI_COMM_NULL) s.retired.push_back(s.comm);
  s.comm = MPI_COMM_NULL;
  if (int rc = MPI_Comm_dup(s.user, &s.comm); rc != MPI_SUCCESS) {
    s.comm = MPI_COMM_NULL;
    return rc;
  }
  MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);
  FTMPI_Comm_set_coll_mode(s.comm, FTMPI_COLL_MODE_ATOMIC);  // the protocols rely on it
  update_reporter();

  MetaResult meta;
  if (int rc = exchange_meta(&meta); rc != MPI_SUCCESS) return rc;
  if (meta.config_differs) {
    report("FTCKPT_Init was given different df/sd/l3_group/l4 settings on different processes");
    return MPI_ERR_ARG;
  }
  if (!meta.anyone_knows) {
    report("nothing to recover: no process holds any checkpoint");
    return start_over(meta.next_epoch_id, meta.hosts);
  }
  if (meta.min_newest != meta.max_newest)
    report("survivors disagreed on the newest complete save (%lld..%lld); using the older", meta.min_newest,
           meta.max_newest);
  for (Slot& sl : s.slots)
    if (sl.k > meta.min_newest) sl.complete = false;
  while (!s.disk.empty() && s.disk.back().k > meta.min_newest_disk) s.disk.pop_back();

  // The choice: computed by everyone when everyone knows every kept epoch (SHRINK, BLANK),
  // else by the leader and broadcast (a REBUILD replacement knows nothing yet).
  const double t_select = seconds_now();
  Decision d;
  Candidate& best = d.choice;
  int rounds = 0;
  const int me = my_rank();
  if (meta.everyone_knows || me == meta.leader) {
    if (meta.everyone_knows && s.search_rounds) {
      if (int rc = choose_by_rounds(&best, &rounds); rc != MPI_SUCCESS) return rc;
    } else {
      best = choose_from_topology();
    }
    if (best.k < 0) d.status = no_choice_status();
    if (d.status != MPI_SUCCESS && (meta.everyone_knows ? s.reporter : true)) explain_failure(d.status, best);
  }
  if (!meta.everyone_knows) {
    if (me == meta.leader && d.status == MPI_SUCCESS) {
      const Epoch& e = *find_epoch(best.epoch);
      d.described = e;
      d.described.group = MPI_GROUP_NULL;  // a copy of the description, not of the handle
      d.sizes.assign(e.n, -1);
      if (best.slot >= 0) d.sizes = s.slots[best.slot].sizes;
    }
    if (int rc = broadcast_decision(&d, meta.leader, meta.max_n); rc != MPI_SUCCESS) return rc;
  }
  const double select_seconds = seconds_now() - t_select;
  if (d.status == FTCKPT_ERR_NO_CHECKPOINT) return start_over(meta.next_epoch_id, meta.hosts);
  if (d.status != MPI_SUCCESS) return d.status;

  // The recovered epoch: this process's own record when it was a member, else the
  // description it was sent.
  Epoch* known = find_epoch(best.epoch);
  const bool member = known && !known->foreign;
  const Epoch& re = member ? *known : d.described;
  best.slot = member ? slot_of(best.k, best.epoch) : -1;
  if (member) d.sizes = best.slot >= 0 ? s.slots[best.slot].sizes : std::vector<long long>(re.n, -1);

  // Everyone takes both tags, whatever its part, so the generation stays agreed.
  const int parity_tag = next_tag(), handoff_tag = next_tag();
  // From here on a failed message must not make this process skip the closing allreduce:
  // ATOMIC collectives agree on their outcome among all live members, so the others would
  // wait in it for a member that left for the repair. Failures are carried into it instead.
  bool ok = true;
  int comm_rc = MPI_SUCCESS;
  if (best.level == FTCKPT_LEVEL_XOR) {
    if (member && best.slot < 0) {
      ok = false;  // a member always has the slot of a complete iteration
    } else if (member) {
      int rc = rebuild_from_parity(re, s.slots[best.slot], &best.source, parity_tag);
      if (rc == FTCKPT_ERR_UNRECOVERABLE) ok = false;
      else if (rc != MPI_SUCCESS) comm_rc = rc;
    } else {
      assign_parity_builders(re, &best.source);
    }
  }

  const std::vector<int> heir = heirs_of(re, s.comm);
  int restored = -1;
  if (comm_rc == MPI_SUCCESS) comm_rc = hand_over(re, best, d.sizes, heir, handoff_tag, &restored, &ok);
  if (comm_rc == MPI_SUCCESS && member) ok = restore_own(re, best) && ok;
  // A replacement is told about regions it did not protect with the same id and size, since
  // nothing else would tell it.
  if (comm_rc == MPI_SUCCESS && ok && restored >= 0 && restored != static_cast<int>(s.regions.size()))
    std::fprintf(stderr, "ftckpt: rank %d: restored %d of %zu protected regions from the saved state of its rank "
                 "(the others were not saved with the same id and size)\n", me, restored, s.regions.size());
  // 2: restored; 1: a message failed (a process died: repair and call again); 0: something
  // could not be read or sent although everybody is alive (unrecoverable).
  int all_ok = 0, mine_ok = !ok ? 0 : comm_rc != MPI_SUCCESS ? 1 : 2;
  if (int rc = MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, s.comm); rc != MPI_SUCCESS) return rc;
  if (comm_rc != MPI_SUCCESS) return comm_rc;
  if (all_ok == 1) return MPI_ERR_OTHER;
  if (all_ok == 0) {
    report("iteration %lld could not be restored everywhere (a file or an image could not be read or sent)",
           static_cast<long long>(best.k));
    return FTCKPT_ERR_UNRECOVERABLE;
  }

  // Commit. A process that was no member of the recovered epoch keeps its description (with
  // no data) until the next save, for Recovery_info and Fetch.
  discard_after(best.k, member ? best.epoch : -1);
  if (!member) {
    auto at = s.epochs.begin();
    while (at != s.epochs.end() && at->id < re.id) ++at;
    s.epochs.insert(at, d.described);
  }
  s.rec.valid = true;
  s.rec.k = best.k;
  s.rec.epoch = best.epoch;
  s.rec.level = best.level;
  s.rec.slot = best.slot;
  s.rec.source = best.source;
  s.rec.heir = heir;
  s.rec.select_seconds = select_seconds;
  s.rec.select_rounds = rounds;
  s.next_k = best.k + 1;
  s.joining = false;
  s.recovering = false;
  if (s.verbose) {
    const Epoch& e = *find_epoch(best.epoch);
    std::string lost;
    for (int r = 0; r < e.n; ++r) {
      if (e.now[r] >= 0 || e.gap_at_start[r]) continue;
      lost += (lost.empty() ? "" : " ") + std::to_string(r);
      if (heir[r] >= 0) lost += "->" + std::to_string(heir[r]);
    }
    report("recovered iteration %lld (level %d, saved by %d processes; lost: %s)", static_cast<long long>(best.k),
           best.level, e.n, lost.c_str());
  }
  // Saves from now on use the repaired communicator's numbering and size.
  begin_epoch(false, meta.next_epoch_id, std::move(meta.hosts));
  *iteration = static_cast<int>(best.k);
  return MPI_SUCCESS;
}

}  // namespace ftckpt

extern "C" int FTCKPT_Recover(int* iteration) { return ftckpt::recover(iteration); }
