// C API: MPI_Alloc_mem / MPI_Free_mem (MPI-3.1 8.2) and the address arithmetic of MPI-3.1 4.1.5
// (MPI_Aint_add, MPI_Aint_diff). ftmpi has no memory that communicates faster (no RMA, and the
// shm transport copies from any memory), so MPI_Alloc_mem is an aligned malloc; every hint is
// accepted and ignored. What it adds over malloc: a request that cannot be met is
// MPI_ERR_NO_MEM through MPI_COMM_WORLD's handler (never a crash), and MPI_Free_mem refuses a
// pointer it did not hand out (MPI_ERR_ARG) instead of passing it to free().
#include <unistd.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "info.h"
#include "library.h"

using namespace ftmpi;

namespace {

// Cache-line aligned, as MPICH's: buffers given to reductions and packing start on a line.
constexpr std::size_t kAlignment = 64;

// Blocks handed out and not yet freed (the library lock guards it under MPI_THREAD_MULTIPLE).
std::unordered_map<void*, std::size_t>& blocks() {
  static std::unordered_map<void*, std::size_t> live;
  return live;
}

}  // namespace

extern "C" {

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  if (Err e = check_initialized("MPI_Alloc_mem"); e != Err::ok) return raise_world(e);
  if (size < 0) return raise_world(fail(Err::arg, "MPI_Alloc_mem: size %ld is negative", size));
  if (baseptr == nullptr) return raise_world(fail(Err::arg, "MPI_Alloc_mem: baseptr is NULL"));
  if (info != MPI_INFO_NULL) {
    const Info* i = nullptr;
    if (Err e = infos().lookup(info, &i); e != Err::ok) return raise_world(e);
  }
  // More than the machine has cannot be served: refused before the allocator is asked (a
  // sanitizer's allocator aborts on such a request instead of failing it).
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && size / page > pages) {
    return raise_world(fail(Err::no_mem, "MPI_Alloc_mem: %ld bytes is more than this machine's memory", size));
  }
  // size 0 still gets a block of its own: the program frees what it was given.
  const std::size_t bytes = static_cast<std::size_t>(size);
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = nullptr;
  if (rounded < bytes || posix_memalign(&p, kAlignment, rounded == 0 ? kAlignment : rounded) != 0) {
    return raise_world(fail(Err::no_mem, "MPI_Alloc_mem: cannot allocate %ld bytes", size));
  }
  blocks()[p] = bytes;
  std::memcpy(baseptr, &p, sizeof p);  // baseptr is a void** passed as void* (MPI-3.1 8.2)
  return MPI_SUCCESS;
}

int MPI_Free_mem(void* base) {
  if (Err e = check_initialized("MPI_Free_mem"); e != Err::ok) return raise_world(e);
  auto it = blocks().find(base);
  if (it == blocks().end()) {
    return raise_world(fail(Err::arg, "MPI_Free_mem: %p was not returned by MPI_Alloc_mem", base));
  }
  blocks().erase(it);
  std::free(base);
  return MPI_SUCCESS;
}

// Plain integer arithmetic: ftmpi's addresses are flat byte addresses (MPI_Get_address).
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(disp));
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) - static_cast<std::uintptr_t>(addr2));
}

}  // extern "C"
