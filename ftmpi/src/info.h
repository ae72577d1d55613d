// MPI_Info objects (MPI-3.1 chapter 9): ordered (key, value) string pairs. Handles index a
// table, like groups: a stale or garbage handle is reported (MPI_ERR_INFO), never followed.
// MPI_INFO_ENV (slot 1) is predefined and read-only; it describes how the process was
// started (MPI-3.1 8.6 keys: command, argv, maxprocs, host, wdir, thread_level).
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "error.h"

namespace ftmpi {

// The hints themselves; also what a communicator keeps (MPI_Comm_set_info/get_info).
struct Info {
  // Insertion order, one entry per key: MPI_Info_get_nthkey numbers them in this order.
  std::vector<std::pair<std::string, std::string>> entries;

  const std::string* find(const std::string& key) const;
  void set(const std::string& key, const std::string& value);
  bool erase(const std::string& key);  // false: no such key
};

// A key or value as MPI-3.1 9 bounds them: MPI_ERR_INFO_KEY / MPI_ERR_INFO_VALUE otherwise.
Err check_info_key(const char* key, std::string* out);
Err check_info_value(const char* value, std::string* out);

// The process's command line, word by word (/proc/self/cmdline).
std::vector<std::string> process_command_line();
// MPI_INFO_ENV's keys that MPI_Init does not decide (MPI-3.1 8.6): command (words[0]), argv
// (the rest, space separated) and wdir. MPI_Info_create_env's object holds these, so it is the
// same before MPI_Init, in between and after MPI_Finalize (MPICH's info/infocreateenv).
void set_launch_keys(Info& info, const std::vector<std::string>& words);

class InfoTable {
 public:
  InfoTable();

  // MPI_ERR_INFO for MPI_INFO_NULL, a freed or an unknown handle.
  Err lookup(MPI_Info handle, const Info** out);
  // The same, for changing it: MPI_INFO_ENV is read-only.
  Err lookup_mutable(MPI_Info handle, Info** out);
  MPI_Info create(Info contents);
  Err free(MPI_Info* handle);  // sets *handle to MPI_INFO_NULL

  std::size_t live() const;  // user-created objects not yet freed (leak checks)

 private:
  void fill_env();  // MPI_INFO_ENV, on first use (it needs MPI_Init's view of the job)

  std::vector<std::unique_ptr<Info>> infos_;  // slot 0: MPI_INFO_NULL, 1: MPI_INFO_ENV
  std::vector<MPI_Info> free_slots_;
  bool env_filled_ = false;
};

// The process-wide table (like groups()).
InfoTable& infos();

}  // namespace ftmpi
