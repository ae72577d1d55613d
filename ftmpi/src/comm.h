// Communicators: who is in them (by process index), which context ids they own, how errors are
// handled. Handles index the table; MPI_COMM_WORLD and MPI_COMM_SELF are slots 1 and 2.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "error.h"

namespace ftmpi {

struct Comm {
  MPI_Comm handle = MPI_COMM_NULL;
  std::uint32_t context = 0;          // point-to-point; context + 1 is for collectives
  std::vector<std::uint32_t> procs;   // communicator rank -> process index (transport peer)
  std::vector<int> rank_of_proc;      // process index -> communicator rank, -1 if absent
  int rank = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;

  // Fault tolerance (SPEC 4): modes chosen by the application, state kept by ft.cpp.
  int comm_mode = FTMPI_COMM_MODE_ABORT;
  int msg_mode = FTMPI_MSG_MODE_NOP;
  int coll_mode = FTMPI_COLL_MODE_ATOMIC;
  int state = FTMPI_COMM_OK;
  std::vector<unsigned char> proc_state;  // per communicator rank, FTMPI_PROC_*
  std::vector<int> failed;                // ranks failed since the last repair, in order seen

  int size() const { return static_cast<int>(procs.size()); }
  bool is_failed(int r) const { return proc_state[static_cast<std::size_t>(r)] == FTMPI_PROC_FAILED; }
};

class CommTable {
 public:
  // Builds MPI_COMM_WORLD (all nprocs processes) and MPI_COMM_SELF (just me), both in the
  // job's default modes.
  void init(int nprocs, int my_proc, int comm_mode, int msg_mode);

  Err lookup(MPI_Comm handle, Comm** out) {
    if (handle <= 0 || static_cast<std::size_t>(handle) >= comms_.size() ||
        !comms_[static_cast<std::size_t>(handle)]) {
      return fail(Err::comm, "communicator handle %d is not a valid communicator", handle);
    }
    *out = comms_[static_cast<std::size_t>(handle)].get();
    return Err::ok;
  }
  Comm* world() { return comms_[MPI_COMM_WORLD].get(); }
  template <typename F>
  void for_each(F&& f) {
    for (auto& c : comms_) {
      if (c) f(*c);
    }
  }

 private:
  std::vector<std::unique_ptr<Comm>> comms_;
};

}  // namespace ftmpi
