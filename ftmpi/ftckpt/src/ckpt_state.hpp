// Internal state of libftckpt: protected regions, save generations (epochs), the slot ring,
// the result of the last recovery. One instance per process (the C API is process global).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <mpi.h>

#include "ftckpt.h"
#include "ftckpt/placement.hpp"
#include "ftckpt/xor_groups.hpp"

namespace ftckpt {

struct Region {
  void* ptr = nullptr;
  std::size_t bytes = 0;
};

// A save generation: the communicator as it was while a run of saves was taken. Placement
// ranks are ranks of the epoch. The MPI_Group is a snapshot, so after any number of repairs
// translating it into the repaired communicator tells which of its members are gone - the
// library never needs the application to report failures.
//
// A REBUILD replacement was no member of the epoch it recovers from; it gets that epoch's
// description (size, gaps, where its members are now) from a survivor, without a group:
// such a "foreign" epoch only serves Recovery_info and Fetch until the next save, and is
// never translated or searched (this process holds none of its data).
struct Epoch {
  int id = 0;
  bool foreign = false;             // described by a survivor; group is MPI_GROUP_NULL
  MPI_Group group = MPI_GROUP_NULL;
  int n = 0;
  int my_rank = -1;
  std::vector<char> gap_at_start;  // BLANK: ranks that were already gaps (own no data)
  std::vector<int> now;            // epoch rank -> current rank, -1 when lost (or a gap)
  std::vector<int> hosts;          // epoch rank -> host number (hosts.hpp); empty: one host
  XorGroups xor_groups;            // level 3 over the members that own data (off when unused)
};

// One iteration in the ring. The image format (image.hpp) is the same for the own copy and
// the copies held for others, so lookup by region id works on both.
struct Slot {
  std::int64_t k = -1;  // -1: free
  int epoch = -1;
  bool complete = false;
  bool on_disk = false;              // level-4 files were written and agreed for this k
  std::vector<char> image;           // own checkpoint
  std::map<int, std::vector<char>> held;  // owner epoch rank -> copy
  std::vector<long long> sizes;      // every member's image size at k (-1: a gap)
  std::vector<char> parity;          // level 3: this member's column of its group's parity
  std::map<int, std::vector<char>> rebuilt;  // level 3: images rebuilt here by a recovery
  std::vector<int> parity_serves;    // level 3, groups of two: owners whose image (zero
                                     // padded) is this member's parity, served as it is
};

struct DiskSave {  // a level-4 iteration that completed on every member
  std::int64_t k;
  int epoch;
};

struct Recovery {
  bool valid = false;
  std::int64_t k = -1;
  int epoch = -1;
  int level = FTCKPT_LEVEL_NONE;
  int slot = -1;               // ring slot of k (memory levels)
  std::vector<int> source;     // epoch rank -> current rank that serves its data, -1: file
  std::vector<int> heir;       // epoch rank -> current rank of the replacement that got its
                               // state (REBUILD), -1: none
  double select_seconds = 0;   // time spent choosing the level (FTCKPT_Test_last_selection)
  int select_rounds = 0;       // validation rounds that took (0 when chosen from the topology)
};

struct State {
  bool initialised = false;
  bool joining = false;           // a REBUILD replacement between Init and its first Recover:
                                  // no library communicator, no epoch, no data yet
  bool recovering = false;        // a Recover began and has not succeeded: no Save until it has
  MPI_Comm user = MPI_COMM_NULL;  // the application's communicator, repaired by the app
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate; NULL after a failed re-creation
  std::vector<MPI_Comm> retired;  // broken duplicates, freed at Finalize (see recover.cpp)
  int df = 2, sd = 2;
  int required = 0;
  bool refuse = false, verbose = false;
  bool reporter = false;          // lowest valid rank of comm: prints reports
  std::string l4_dir;
  int l4_every = 10;
  int l3_group = 0;               // 0: no level 3
  std::vector<char> scratch;      // level 3: parity pieces received during a save, reused
  bool search_rounds = false;     // FTCKPT_Test_level_search: validate level by level
  std::map<int, Region> regions;
  std::vector<Epoch> epochs;      // oldest first; back() is the current one
  std::vector<Slot> slots;        // SD + 1
  std::vector<DiskSave> disk;     // agreed level-4 saves, oldest first
  std::int64_t next_k = 0;
  int seq = 0;                    // message generation, agreed at Init and every Recover
  int tolerated = 0;
  int hosts = 1;                  // hosts of the current epoch
  int tolerated_hosts = 0;        // whole hosts lost at once it survives (0 with one host)
  Recovery rec;
  std::int64_t kill_in_save = -1;
  bool kill_in_recover = false;
};

State& state();

// Current epoch helpers.
inline Epoch& current_epoch() { return state().epochs.back(); }
Epoch* find_epoch(int id);

// Makes epoch `id` from state().comm (after Init or a recovery) with host numbers `hosts`
// (hosts.hpp; empty: one host) and recomputes the tolerance for its size and hosts; warns
// (or, at Init with refuse set, fails) below the requirement.
int begin_epoch(bool at_init, int id, std::vector<int> hosts);

// Lowest rank of state().comm that is not a BLANK gap prints the reports from now on.
void update_reporter();

// Tag for the library's next message round. Tags carry a generation so that messages of an
// interrupted round can never match a later one, even where the message mode keeps context ids.
int next_tag();

// Prints on stderr once per job: by the lowest rank of the library communicator.
void report(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Level-3 geometry of one group at one iteration: its members (epoch ranks), the position of
// a member, and the chunk (= parity) size from the group's largest image.
struct GroupGeometry {
  const std::vector<int>* members = nullptr;
  std::size_t chunk = 0;
};
GroupGeometry group_geometry(const Epoch& e, const Slot& slot, int group);

// Level 3 recovery: rebuilds, in the memory of the lowest surviving member of their group,
// every process whose source is kSourceParity, and points its source there. Collective over
// the surviving members of e (with message tag `tag`). source: epoch rank -> current rank.
int rebuild_from_parity(const Epoch& e, Slot& slot, std::vector<int>* source, int tag);

// The same re-pointing of kSourceParity entries to their builders, without data: what
// processes that hold nothing of e (REBUILD replacements) need to know.
void assign_parity_builders(const Epoch& e, std::vector<int>* source);

// The image of `owner` (epoch rank of e) in ring slot slot_index (the recovered iteration),
// if this process has it: its own, a held copy, one rebuilt from parity or a pair's parity
// (zero padded). Null otherwise.
const std::vector<char>* recovered_image_of(const Epoch& e, int slot_index, int owner);

// Rank in state().comm, or -1.
int my_rank();

// count elements of a contiguous type in bytes; MPI_ERR_TYPE for types with holes.
int type_bytes(MPI_Datatype type, int count, std::size_t* bytes);

}  // namespace ftckpt
