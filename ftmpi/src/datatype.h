// Datatype table. Handles index it directly; predefined types occupy the first
// FTMPI_NUM_PREDEFINED_TYPES slots (values fixed by mpi.h). Derived types (issue: MPI-1
// coverage) append entries with their own layout; the point-to-point path asks only whether a
// type is contiguous and how many bytes `count` elements occupy.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "error.h"

namespace ftmpi {

struct Datatype {
  const char* name = "";
  std::size_t size = 0;   // bytes of data in one element
  MPI_Aint extent = 0;    // span of one element in memory
  MPI_Aint lb = 0;
  bool contiguous = true;  // count elements occupy count * extent bytes, sent as they are
  bool predefined = false;
  bool committed = false;
  bool in_use = false;    // slot holds a live type
};

class DatatypeTable {
 public:
  DatatypeTable();
  // Looks up a handle that may be used for communication (committed, live).
  Err lookup(MPI_Datatype handle, const Datatype** out) const {
    if (handle <= 0 || static_cast<std::size_t>(handle) >= types_.size() ||
        !types_[static_cast<std::size_t>(handle)].in_use) {
      return fail(Err::type, "datatype handle %d is not a valid datatype", handle);
    }
    const Datatype& t = types_[static_cast<std::size_t>(handle)];
    if (!t.committed) return fail(Err::type, "datatype %d is not committed", handle);
    *out = &t;
    return Err::ok;
  }

 private:
  std::vector<Datatype> types_;
};

}  // namespace ftmpi
