// MPI_Op handles and how a (datatype, op) pair becomes the collectives layer's Reduction.
// Predefined ops are handles 1..13 (mpi.h); MPI_Op_create appends user ops.
#pragma once

#include <ftmpi/coll/ops.h>
#include <mpi.h>

#include <vector>

#include "error.h"

namespace ftmpi {

class OpTable {
 public:
  OpTable();
  Err create(MPI_User_function* fn, bool commutative, MPI_Op* out);
  Err free(MPI_Op* op);
  // MPI_Op_commutative: every predefined op is; a user op as created. Err::op for a bad handle.
  Err commutative(MPI_Op op, bool* out) const;
  // Builds the reduction of `count` elements of `type` under `op`; Err::op for pairs MPI does
  // not allow, Err::type for types no reduction takes.
  // Inline for a predefined pair (a table read); everything else, errors included, out of line.
  Err reduction(MPI_Op op, MPI_Datatype type, std::size_t elem_size, std::size_t count,
                coll::Reduction* out) const {
    if (op >= MPI_MAX && op <= MPI_MINLOC && type > 0 && type < FTMPI_NUM_PREDEFINED_TYPES) {
      const coll::Reduction& known = predefined_[predefined_index(op, type)];
      if (known.combine) {
        out->elem_size = known.elem_size;
        out->count = count;
        out->commutative = true;
        out->combine = known.combine;
        return Err::ok;
      }
    }
    return other_reduction(op, type, elem_size, count, out);
  }

 private:
  Err other_reduction(MPI_Op op, MPI_Datatype type, std::size_t elem_size, std::size_t count,
                      coll::Reduction* out) const;

  struct UserOp {
    MPI_User_function* fn = nullptr;
    bool commutative = true;
  };
  std::vector<UserOp> user_;  // handle = kFirstUser + index
  static constexpr MPI_Op kFirstUser = 64;
  // The reduction of every (predefined op, predefined type) pair, built once (count 0; an
  // empty combine where MPI does not allow the pair): a reduction on a basic type is a table
  // read, where mapping the type to its kind and looking the function up cost ~80
  // instructions per MPI_Allreduce (callgrind, tests/bench/ft_cost.c).
  static std::size_t predefined_index(MPI_Op op, MPI_Datatype type) {
    return static_cast<std::size_t>(op) * FTMPI_NUM_PREDEFINED_TYPES + static_cast<std::size_t>(type);
  }
  std::vector<coll::Reduction> predefined_;
};

}  // namespace ftmpi
