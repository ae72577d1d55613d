// The v- and w-collectives and the reduce-scatters on intercommunicators (intercomm_coll.h),
// MPI-3.1 5.2.3: each group ends with what the OTHER group sent or reduced.
//
// The rooted ones move each remote member's block straight between it and the root (no
// relay through the leaders: the blocks differ in size, so the root posts one receive or send
// per remote rank); allgatherv, alltoallv and alltoallw are all-pairs exchanges. Every block
// travels packed: a block's bytes are counts[j] elements of its type, whatever the layout.
// Reduce-scatter reduces inside each group, the leaders swap the results, and each group
// scatters the other's among itself by recvcounts.
#include <cstdint>
#include <vector>

#include "intercomm_call.h"
#include "intercomm_coll.h"
#include "library.h"

namespace ftmpi {

using namespace intercoll;

namespace {

// A buffer of one block per remote rank: block j is counts[j] elements of its type at byte
// offset `offset[j]` from the buffer, packed back to back in `packed` (at[j], bytes[j] long).
struct Blocks {
  std::vector<const Datatype*> types;
  std::vector<std::size_t> counts, bytes, at;
  std::vector<MPI_Aint> offset;
  std::vector<unsigned char> packed;

  // v-form: one type, displacements in its extents. w-form: a type per block, byte
  // displacements.
  Err setup(const char* what, const void* buf, int n, const int* cs, const int* ds,
            const MPI_Datatype* ts, MPI_Datatype one_type) {
    if (buf == MPI_IN_PLACE) {
      return fail(Err::buffer, "%s: MPI_IN_PLACE is not allowed on an intercommunicator", what);
    }
    if (cs == nullptr || ds == nullptr || (ts == nullptr && one_type == MPI_DATATYPE_NULL)) {
      return fail(Err::arg, "%s: counts, displacements or types array is NULL", what);
    }
    const auto size = static_cast<std::size_t>(n);
    types.resize(size);
    counts.resize(size);
    bytes.resize(size);
    at.resize(size);
    offset.resize(size);
    std::size_t total = 0;
    for (std::size_t j = 0; j < size; ++j) {
      if (cs[j] < 0)
        return fail(Err::count, "%s: count %d for rank %zu is negative", what, cs[j], j);
      if (Err e = lib().types.lookup(ts != nullptr ? ts[j] : one_type, &types[j]); e != Err::ok) {
        return e;
      }
      counts[j] = static_cast<std::size_t>(cs[j]);
      bytes[j] = packed_size(*types[j], counts[j]);
      offset[j] = ts != nullptr ? ds[j] : static_cast<MPI_Aint>(ds[j]) * types[j]->extent;
      if (buf == nullptr && bytes[j] > 0 && (types[j]->contiguous || types[j]->predefined)) {
        return fail(Err::buffer, "%s is NULL but %zu bytes are to be moved for rank %zu", what,
                    bytes[j], j);
      }
      at[j] = total;
      total += bytes[j];
    }
    packed.resize(total);
    return Err::ok;
  }
  // Integer arithmetic: buf may be MPI_BOTTOM (NULL) with types of absolute addresses.
  static char* block(const void* buf, MPI_Aint offset) {
    return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(buf) +
                                   static_cast<std::uintptr_t>(offset));
  }
  void pack_all(const void* buf) {
    for (std::size_t j = 0; j < types.size(); ++j) {
      if (bytes[j] > 0) pack(block(buf, offset[j]), counts[j], *types[j], packed.data() + at[j]);
    }
  }
  void unpack_all(void* buf) const {
    for (std::size_t j = 0; j < types.size(); ++j) {
      if (bytes[j] > 0) {
        unpack(packed.data() + at[j], bytes[j], block(buf, offset[j]), counts[j], *types[j]);
      }
    }
  }
};

int reduce_scatter(Comm* ic, const void* sendbuf, void* recvbuf, const int* recvcounts,
                   MPI_Datatype type, MPI_Op op, const char* fn) {
  if (int rc = begin(ic, fn); rc != MPI_SUCCESS) return rc;
  if (sendbuf == MPI_IN_PLACE) {
    return raise(ic,
                 fail(Err::buffer, "%s: MPI_IN_PLACE is not allowed on an intercommunicator", fn));
  }
  if (recvcounts == nullptr) return raise(ic, fail(Err::arg, "%s: recvcounts is NULL", fn));
  Inter x(ic);
  std::size_t total = 0;
  for (int i = 0; i < x.local_size(); ++i) {
    if (recvcounts[i] < 0) {
      return raise(ic,
                   fail(Err::count, "%s: recvcounts[%d] = %d is negative", fn, i, recvcounts[i]));
    }
    total += static_cast<std::size_t>(recvcounts[i]);
  }
  coll::Reduction r;
  Form form;
  const Datatype* t = nullptr;
  if (Err e = reduction_of(op, type, static_cast<int>(total), &r, &form, &t); e != Err::ok) {
    return raise(ic, e);
  }
  const std::size_t mine = static_cast<std::size_t>(recvcounts[ic->rank]);
  if ((sendbuf == nullptr && total > 0) || (recvbuf == nullptr && mine > 0)) {
    if (t->contiguous || t->predefined) {
      return raise(ic, fail(Err::buffer, "%s: sendbuf or recvbuf is NULL", fn));
    }
  }
  Stage in, out;
  in.setup(sendbuf, total, *t, form);
  in.load_all();
  out.setup(recvbuf, mine, *t, form);
  // This group's reduction at the leader; the leaders swap theirs; the other group's result
  // is scattered here by recvcounts.
  coll::Scratch partial(r.bytes()), result(x.leader() ? r.bytes() : 0);
  coll::Status s = coll::reduce(x.view, x.p2p, in.data(), partial.data(), r, 0);
  if (s == coll::Status::ok && x.leader()) {
    s = x.p2p.cross_sendrecv(0, partial.data(), r.bytes(), result.data(), r.bytes());
  }
  const std::size_t unit = in.elem_bytes();
  std::vector<std::size_t> counts, displs;
  if (x.leader()) {
    std::size_t at = 0;
    for (int i = 0; i < x.local_size(); ++i) {
      counts.push_back(static_cast<std::size_t>(recvcounts[i]) * unit);
      displs.push_back(at);
      at += counts.back();
    }
  }
  if (s == coll::Status::ok) {
    s = coll::scatterv(x.view, x.p2p, result.data(), x.leader() ? counts.data() : nullptr,
                       x.leader() ? displs.data() : nullptr, out.data(), mine * unit, 0);
  }
  if (s == coll::Status::ok) out.store_all();
  return finish(ic, s, fn);
}

// Alltoallv (one type, displacements in its extents) and alltoallw (a type per block, byte
// displacements): block j to and from remote rank j.
int alltoall_blocks(Comm* ic, const char* fn, const void* sendbuf, const int* sendcounts,
                    const int* sdispls, const MPI_Datatype* sendtypes, MPI_Datatype sendtype,
                    void* recvbuf, const int* recvcounts, const int* rdispls,
                    const MPI_Datatype* recvtypes, MPI_Datatype recvtype) {
  if (int rc = begin(ic, fn); rc != MPI_SUCCESS) return rc;
  Inter x(ic);
  Blocks in, out;
  if (Err e = in.setup(fn, sendbuf, x.remote_size(), sendcounts, sdispls, sendtypes, sendtype);
      e != Err::ok) {
    return raise(ic, e);
  }
  if (Err e = out.setup(fn, recvbuf, x.remote_size(), recvcounts, rdispls, recvtypes, recvtype);
      e != Err::ok) {
    return raise(ic, e);
  }
  in.pack_all(sendbuf);
  coll::Status s = exchange_all(x, in.packed.data(), in.bytes.data(), in.at.data(),
                                out.packed.data(), out.bytes.data(), out.at.data());
  if (s == coll::Status::ok) out.unpack_all(recvbuf);
  return finish(ic, s, fn);
}

}  // namespace

int inter_gatherv(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                  int root) {
  Role role;
  if (int rc = begin_rooted(ic, root, "MPI_Gatherv", &role);
      rc != MPI_SUCCESS || role == Role::idle) {
    return rc;
  }
  Inter x(ic);
  if (role == Role::root) {
    Blocks out;
    if (Err e = out.setup("MPI_Gatherv recvbuf", recvbuf, x.remote_size(), recvcounts, displs,
                          nullptr, recvtype);
        e != Err::ok) {
      return raise(ic, e);
    }
    coll::Status s = exchange_all(x, nullptr, nullptr, nullptr, out.packed.data(), out.bytes.data(),
                                  out.at.data());
    if (s == coll::Status::ok) out.unpack_all(recvbuf);
    return finish(ic, s, "MPI_Gatherv");
  }
  Packed in;
  if (Err e = in.setup("MPI_Gatherv sendbuf", sendbuf, sendcount, sendtype); e != Err::ok) {
    return raise(ic, e);
  }
  in.stage.load_all();
  return finish(ic, x.p2p.cross_send(root, in.data(), in.bytes), "MPI_Gatherv");
}

int inter_scatterv(Comm* ic, const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root) {
  Role role;
  if (int rc = begin_rooted(ic, root, "MPI_Scatterv", &role);
      rc != MPI_SUCCESS || role == Role::idle) {
    return rc;
  }
  Inter x(ic);
  if (role == Role::root) {
    Blocks in;
    if (Err e = in.setup("MPI_Scatterv sendbuf", sendbuf, x.remote_size(), sendcounts, displs,
                         nullptr, sendtype);
        e != Err::ok) {
      return raise(ic, e);
    }
    in.pack_all(sendbuf);
    return finish(
        ic,
        exchange_all(x, in.packed.data(), in.bytes.data(), in.at.data(), nullptr, nullptr, nullptr),
        "MPI_Scatterv");
  }
  Packed out;
  if (Err e = out.setup("MPI_Scatterv recvbuf", recvbuf, recvcount, recvtype); e != Err::ok) {
    return raise(ic, e);
  }
  coll::Status s = x.p2p.cross_recv(root, out.data(), out.bytes);
  if (s == coll::Status::ok) out.stage.store_all();
  return finish(ic, s, "MPI_Scatterv");
}

int inter_allgatherv(Comm* ic, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     void* recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype) {
  if (int rc = begin(ic, "MPI_Allgatherv"); rc != MPI_SUCCESS) return rc;
  Inter x(ic);
  Packed in;
  Blocks out;
  if (Err e = in.setup("MPI_Allgatherv sendbuf", sendbuf, sendcount, sendtype); e != Err::ok) {
    return raise(ic, e);
  }
  if (Err e = out.setup("MPI_Allgatherv recvbuf", recvbuf, x.remote_size(), recvcounts, displs,
                        nullptr, recvtype);
      e != Err::ok) {
    return raise(ic, e);
  }
  in.stage.load_all();
  // My one block goes to every remote rank; block j comes from remote rank j.
  const auto n = static_cast<std::size_t>(x.remote_size());
  const std::vector<std::size_t> sbytes(n, in.bytes), sat(n, 0);
  coll::Status s = exchange_all(x, in.data(), sbytes.data(), sat.data(), out.packed.data(),
                                out.bytes.data(), out.at.data());
  if (s == coll::Status::ok) out.unpack_all(recvbuf);
  return finish(ic, s, "MPI_Allgatherv");
}

int inter_alltoallv(Comm* ic, const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype) {
  return alltoall_blocks(ic, "MPI_Alltoallv", sendbuf, sendcounts, sdispls, nullptr, sendtype,
                         recvbuf, recvcounts, rdispls, nullptr, recvtype);
}

int inter_alltoallw(Comm* ic, const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[]) {
  return alltoall_blocks(ic, "MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                         MPI_DATATYPE_NULL, recvbuf, recvcounts, rdispls, recvtypes,
                         MPI_DATATYPE_NULL);
}

int inter_reduce_scatter(Comm* ic, const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype type, MPI_Op op) {
  return reduce_scatter(ic, sendbuf, recvbuf, recvcounts, type, op, "MPI_Reduce_scatter");
}

int inter_reduce_scatter_block(Comm* ic, const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype type, MPI_Op op) {
  if (recvcount < 0) {
    return raise(ic,
                 fail(Err::count, "MPI_Reduce_scatter_block: recvcount %d is negative", recvcount));
  }
  const std::vector<int> counts(static_cast<std::size_t>(ic->size()), recvcount);
  return reduce_scatter(ic, sendbuf, recvbuf, counts.data(), type, op, "MPI_Reduce_scatter_block");
}

}  // namespace ftmpi
