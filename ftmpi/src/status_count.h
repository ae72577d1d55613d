// How MPI_Status carries the received byte count and the cancelled flag (mpi.h's two private
// fields): the low 32 bits in one int, bits 32..62 shifted left by one and the flag in bit 0
// of the other, so any MPI_Count (up to 2^63 - 1 bytes) fits. One place writes and reads
// them: completion, MPI_Get_count/elements and the MPI_Status_set_* calls.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace ftmpi {

inline void status_set_bytes(MPI_Status* st, std::size_t bytes, bool cancelled) {
  st->ftmpi_count_lo = static_cast<int>(static_cast<unsigned>(bytes & 0xffffffffu));
  st->ftmpi_count_hi_cancelled =
      static_cast<int>(static_cast<unsigned>(((bytes >> 32) & 0x7fffffffu) << 1) | (cancelled ? 1u : 0u));
}

inline bool status_cancelled(const MPI_Status* st) { return (st->ftmpi_count_hi_cancelled & 1) != 0; }

inline std::size_t status_bytes(const MPI_Status* st) {
  return static_cast<std::size_t>(static_cast<unsigned>(st->ftmpi_count_lo)) |
         (static_cast<std::size_t>(static_cast<unsigned>(st->ftmpi_count_hi_cancelled) >> 1) << 32);
}

}  // namespace ftmpi
