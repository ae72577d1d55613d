// Communicator attributes: keyvals with copy/delete callbacks (MPI-1.3 5.7), the predefined
// attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE) and ftmpi's
// cached FT attributes (FTMPI_NUM_FAILED_PROCS ... FTMPI_COLL_MODE), computed when read.
#pragma once

#include <mpi.h>

#include <vector>

#include "comm.h"
#include "error.h"

namespace ftmpi {

class Attributes {
 public:
  Err create_keyval(MPI_Copy_function* copy, MPI_Delete_function* del, void* extra, int* keyval);
  Err free_keyval(int* keyval);
  Err set(Comm* c, int keyval, void* value);
  // *value receives the stored pointer (for predefined keys: a pointer to an int).
  Err get(Comm* c, int keyval, void** value, int* flag, int universe_size);
  Err remove(Comm* c, int keyval);
  // MPI_Comm_dup: runs every copy callback from parent into child.
  Err copy_all(Comm* parent, Comm* child);
  // MPI_Comm_free, and MPI_Finalize on MPI_COMM_SELF: runs every delete callback, the last
  // attribute set first. Each attribute is detached before its callback runs, so a callback
  // may make MPI calls, attribute calls on the same communicator included.
  Err delete_all(Comm* c);

 private:
  struct Keyval {
    MPI_Copy_function* copy = nullptr;
    MPI_Delete_function* del = nullptr;
    void* extra = nullptr;
    bool live = false;  // the user's handle: until MPI_Comm_free_keyval
    // Attributes set with it. MPI-1.3 5.7.1: freeing a keyval in use does not remove it; the
    // program may still delete those attributes by the key (MPICH's attr/fkeyval).
    int attached = 0;
  };
  static constexpr int kFirstUser = 64;  // below: predefined keys (mpi.h, ftmpi.h)
  Err user_keyval(int keyval, Keyval** out);
  std::vector<Keyval> keyvals_;
  std::uint64_t next_set_order_ = 0;
};

}  // namespace ftmpi
