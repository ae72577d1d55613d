// C API: configuration, initialisation, protection, queries and shutdown of libftckpt, plus
// the helpers every part shares (epochs, tags, reports). Save, Recover and Fetch live in
// save.cpp, recover.cpp and fetch.cpp.
#include <sys/stat.h>

#include <cstdarg>
#include <cstdio>
#include <exception>
#include <string>

#include "ckpt_state.hpp"
#include "ftckpt/host_tolerance.hpp"
#include "ftckpt/tolerance.hpp"
#include "hosts.hpp"
#include "image.hpp"

namespace ftckpt {

State& state() {
  static State s;
  return s;
}

Epoch* find_epoch(int id) {
  for (Epoch& e : state().epochs)
    if (e.id == id) return &e;
  return nullptr;
}

int my_rank() {
  int r = -1;
  if (state().comm != MPI_COMM_NULL) MPI_Comm_rank(state().comm, &r);
  return r;
}

int next_tag() {
  // 30000 generations fit under the smallest MPI_TAG_UB the standard allows (32767).
  State& s = state();
  s.seq = (s.seq + 1) % 30000;
  return 100 + s.seq;
}

void report(const char* fmt, ...) {
  if (!state().reporter) return;
  va_list ap;
  va_start(ap, fmt);
  std::fputs("ftckpt: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

void update_reporter() {
  State& s = state();
  int n = 0, me = -1;
  MPI_Comm_size(s.comm, &n);
  MPI_Comm_rank(s.comm, &me);
  for (int r = 0; r < n; ++r) {
    int st = FTMPI_PROC_OK;
    FTMPI_Comm_proc_state(s.comm, r, &st);  // BLANK: a gap stays FAILED
    if (st == FTMPI_PROC_FAILED) continue;
    s.reporter = r == me;
    return;
  }
  s.reporter = false;
}

int begin_epoch(bool at_init, int id, std::vector<int> hosts) {
  State& s = state();
  Epoch e;
  e.id = id;
  MPI_Comm_group(s.comm, &e.group);
  MPI_Comm_size(s.comm, &e.n);
  MPI_Comm_rank(s.comm, &e.my_rank);
  e.gap_at_start.assign(e.n, 0);
  e.now.resize(e.n);
  for (int r = 0; r < e.n; ++r) {
    int st = FTMPI_PROC_OK;
    FTMPI_Comm_proc_state(s.comm, r, &st);  // BLANK: a gap stays FAILED
    e.gap_at_start[r] = st == FTMPI_PROC_FAILED;
    e.now[r] = e.gap_at_start[r] ? -1 : r;
  }
  update_reporter();
  if (s.l3_group > 0) {
    std::vector<int> members;
    for (int r = 0; r < e.n; ++r)
      if (!e.gap_at_start[r]) members.push_back(r);
    e.xor_groups = XorGroups(e.n, members, s.l3_group);
  }
  e.hosts = std::move(hosts);
  const int n = e.n;
  s.epochs.push_back(std::move(e));

  // The exact search is cheap for the sizes this runs at (see README timings) and every
  // member computes the same answer, so refusing is consistent without communication.
  // Gaps of a BLANK communicator are not counted against it: the number is for new failures
  // of a full communicator of this size.
  // With several hosts the host tolerance counts whole hosts lost at once (host_tolerance.hpp).
  try {
    const Placement placement = epoch_placement(s.epochs.back(), s.df, s.sd);
    s.tolerated = compute_tolerance(placement).tolerated;
    s.hosts = placement.hosts();
    s.tolerated_hosts = s.hosts > 1 ? compute_host_tolerance(placement).tolerated : 0;
  } catch (const std::exception& ex) {
    report("tolerance search failed: %s", ex.what());
    s.tolerated = 0;
    s.tolerated_hosts = 0;
  }
  if (s.verbose)
    report("N=%d DF=%d SD=%d tolerates %d simultaneous failures (paper's MNF %d%s)", n, s.df,
           s.sd, s.tolerated, paper_mnf(s.df, s.sd),
           paper_condition_holds(n, s.df, s.sd) ? "" : ", its condition N > DF^SD+SD fails");
  if (s.verbose && s.hosts > 1)
    report("%d hosts: no copy on its owner's host; tolerates %d whole host(s) lost at once", s.hosts,
           s.tolerated_hosts);
  if (s.verbose && s.l3_group > 0) {
    const XorGroups& xg = s.epochs.back().xor_groups;
    report("level 3: %d XOR group(s) of about %d; any one loss per group is rebuilt from parity",
           xg.count(), s.l3_group);
  }
  if (s.tolerated < s.required) {
    bool refuse = at_init && s.refuse;
    report("%s: N=%d DF=%d SD=%d tolerates only %d simultaneous failures, %d required",
           refuse ? "refusing" : "warning", n, s.df, s.sd, s.tolerated, s.required);
    if (refuse) return FTCKPT_ERR_TOLERANCE;
  }
  return MPI_SUCCESS;
}

namespace {

int contiguous_size(MPI_Datatype type, std::size_t* size) {
  int sz = 0;
  MPI_Aint lb = 0, extent = 0;
  if (MPI_Type_size(type, &sz) != MPI_SUCCESS) return MPI_ERR_TYPE;
  if (MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS) return MPI_ERR_TYPE;
  // Regions are copied as bytes; a type with holes would copy (and overwrite) the holes.
  if (lb != 0 || extent != sz) return MPI_ERR_TYPE;
  *size = static_cast<std::size_t>(sz);
  return MPI_SUCCESS;
}

// mkdir -p; errors show up later as files that cannot be written (reported per save).
void make_dirs(const std::string& path) {
  for (std::size_t at = 1; at <= path.size(); ++at)
    if (at == path.size() || path[at] == '/') mkdir(path.substr(0, at).c_str(), 0700);
}

void release_all() {
  State& s = state();
  for (Epoch& e : s.epochs)
    if (e.group != MPI_GROUP_NULL) MPI_Group_free(&e.group);
  if (s.comm != MPI_COMM_NULL) MPI_Comm_free(&s.comm);
  for (MPI_Comm& c : s.retired) MPI_Comm_free(&c);
  s = State();
}

}  // namespace

int type_bytes(MPI_Datatype type, int count, std::size_t* bytes) {
  std::size_t sz = 0;
  if (count < 0) return MPI_ERR_COUNT;
  if (int rc = contiguous_size(type, &sz); rc != MPI_SUCCESS) return rc;
  *bytes = sz * static_cast<std::size_t>(count);
  return MPI_SUCCESS;
}

}  // namespace ftckpt

using namespace ftckpt;

extern "C" {

void FTCKPT_Config_default(FTCKPT_Config* cfg) {
  if (!cfg) return;
  *cfg = FTCKPT_Config{};
  cfg->df = 2;
  cfg->sd = 2;
  cfg->l4_every = 10;
}

int FTCKPT_Init(MPI_Comm comm, const FTCKPT_Config* cfg) {
  State& s = state();
  if (s.initialised) return FTCKPT_ERR_STATE;
  FTCKPT_Config c;
  FTCKPT_Config_default(&c);
  if (cfg) c = *cfg;
  if (c.df < 1 || c.sd < 1 || c.l4_every < 1 || c.required_tolerance < 0) return MPI_ERR_ARG;
  if (c.l3_group < 0 || c.l3_group == 1) return MPI_ERR_ARG;
  int n = 0;
  if (MPI_Comm_size(comm, &n) != MPI_SUCCESS) return MPI_ERR_COMM;
  std::string why;
  if (!Placement::valid_params(n, c.df, c.sd, &why)) {
    std::fprintf(stderr, "ftckpt: bad configuration: %s\n", why.c_str());
    return MPI_ERR_ARG;
  }
  s.user = comm;
  s.df = c.df;
  s.sd = c.sd;
  s.required = c.required_tolerance;
  s.refuse = c.refuse_if_low != 0;
  s.verbose = c.verbose != 0;
  s.l4_dir = c.l4_dir ? c.l4_dir : "";
  s.l4_every = c.l4_every;
  s.l3_group = c.l3_group;
  if (!s.l4_dir.empty()) make_dirs(s.l4_dir);
  s.slots.assign(static_cast<std::size_t>(s.sd) + 1, Slot());
  // A REBUILD replacement: the survivors do not call FTCKPT_Init again, they are (or will
  // be) in FTCKPT_Recover, whose first collective is the re-creation of the library
  // communicator. So a replacement's Init does no communication at all; its Recover makes
  // exactly the survivors' calls and learns the epoch, counters and its data from them.
  // Only the first Init of a restarted process joins; a later one (after Finalize) is an
  // ordinary collective Init.
  static bool initialised_before = false;
  int init_state = FTMPI_INIT_NEW;
  FTMPI_Init_state(&init_state);
  const bool join = init_state == FTMPI_INIT_RESTARTED && !initialised_before;
  initialised_before = true;
  if (join) {
    s.joining = true;
    s.initialised = true;
    return MPI_SUCCESS;
  }
  if (int rc = MPI_Comm_dup(comm, &s.comm); rc != MPI_SUCCESS) {
    s = State();
    return rc;
  }
  MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);
  // Save and Recover rely on collectives that succeed everywhere or fail everywhere, also
  // when the application relaxed the collective mode of its own communicator.
  FTMPI_Comm_set_coll_mode(s.comm, FTMPI_COLL_MODE_ATOMIC);
  s.initialised = true;
  // Every member's host (hosts.hpp). Gaps of a BLANK communicator keep 0.
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(n), 0);
  const std::uint64_t mine = my_host_key();
  if (int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, s.comm); rc != MPI_SUCCESS) {
    release_all();
    return rc;
  }
  if (int rc = begin_epoch(true, 0, hosts_from_keys(keys)); rc != MPI_SUCCESS) {
    release_all();
    return rc;
  }
  return MPI_SUCCESS;
}

int FTCKPT_Protect(int id, void* ptr, int count, MPI_Datatype type) {
  State& s = state();
  if (!s.initialised) return FTCKPT_ERR_STATE;
  if (count == 0) {
    s.regions.erase(id);
    return MPI_SUCCESS;
  }
  std::size_t bytes = 0;
  if (int rc = type_bytes(type, count, &bytes); rc != MPI_SUCCESS) return rc;
  if (!ptr) return MPI_ERR_BUFFER;
  s.regions[id] = Region{ptr, bytes};
  return MPI_SUCCESS;
}

int FTCKPT_Tolerated(int* failures) {
  if (!state().initialised) return FTCKPT_ERR_STATE;
  if (!failures) return MPI_ERR_ARG;
  *failures = state().tolerated;
  return MPI_SUCCESS;
}

int FTCKPT_Tolerated_hosts(int* hosts, int* tolerated_hosts) {
  if (!state().initialised) return FTCKPT_ERR_STATE;
  if (!hosts || !tolerated_hosts) return MPI_ERR_ARG;
  *hosts = state().hosts;
  *tolerated_hosts = state().tolerated_hosts;
  return MPI_SUCCESS;
}

int FTCKPT_Memory_usage(long long* bytes) {
  if (!state().initialised) return FTCKPT_ERR_STATE;
  if (!bytes) return MPI_ERR_ARG;
  long long total = 0;
  for (const Slot& sl : state().slots) {
    total += static_cast<long long>(sl.image.capacity() + sl.parity.capacity());
    for (const auto& [owner, copy] : sl.held) total += static_cast<long long>(copy.capacity());
    for (const auto& [owner, copy] : sl.rebuilt) total += static_cast<long long>(copy.capacity());
  }
  total += static_cast<long long>(state().scratch.capacity());
  *bytes = total;
  return MPI_SUCCESS;
}

int FTCKPT_Finalize(void) {
  State& s = state();
  if (!s.initialised) return FTCKPT_ERR_STATE;
  // Level-4 files are for this run only; each process removes the ones it wrote.
  for (const DiskSave& d : s.disk) {
    const Epoch* e = find_epoch(d.epoch);
    if (e) std::remove(image_path(s.l4_dir, d.epoch, d.k, e->my_rank).c_str());
  }
  release_all();
  return MPI_SUCCESS;
}

int FTCKPT_Test_kill_in_save(int k) {
  state().kill_in_save = k;
  return MPI_SUCCESS;
}

int FTCKPT_Test_kill_in_recover(int arm) {
  state().kill_in_recover = arm != 0;
  return MPI_SUCCESS;
}

int FTCKPT_Test_level_search(int rounds) {
  state().search_rounds = rounds != 0;
  return MPI_SUCCESS;
}

int FTCKPT_Test_last_selection(double* seconds, int* rounds) {
  const State& s = state();
  if (!s.initialised) return FTCKPT_ERR_STATE;
  if (seconds) *seconds = s.rec.select_seconds;
  if (rounds) *rounds = s.rec.select_rounds;
  return MPI_SUCCESS;
}

const char* FTCKPT_Error_string(int code) {
  switch (code) {
    case MPI_SUCCESS: return "success";
    case FTCKPT_ERR_TOLERANCE: return "ftckpt: the placement tolerates fewer failures than required";
    case FTCKPT_ERR_UNRECOVERABLE: return "ftckpt: no kept iteration can be rebuilt (every copy of a failed process lost)";
    case FTCKPT_ERR_NO_CHECKPOINT: return "ftckpt: no save completed yet";
    case FTCKPT_ERR_NOT_FOUND: return "ftckpt: no such region at the recovered iteration";
    case FTCKPT_ERR_STATE: return "ftckpt: call out of order (not initialised, or Recover needed first)";
    default: break;
  }
  static thread_local char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) std::snprintf(text, sizeof text, "error %d", code);
  return text;
}

}  // extern "C"
