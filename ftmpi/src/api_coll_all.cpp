// C API: the collectives in which everybody sends to everybody (MPI_Barrier, MPI_Allgather(v),
// MPI_Alltoall(v/w)); shared entry, checks and outcome in coll_call.h.
#include "coll_call.h"
#include "intercomm_coll.h"

using namespace ftmpi;
using namespace ftmpi::collapi;

namespace {

// MPI_Alltoallw's buffer: one (count, byte displacement, type) block per rank, packed back to
// back in `packed` (block r at at[r], bytes[r] long).
struct WBlocks {
  std::vector<const Datatype*> types;
  std::vector<std::size_t> bytes, at;
  const int* counts = nullptr;
  const int* displs = nullptr;
  std::size_t total = 0;
  std::vector<std::uint8_t> packed;

  Err setup(const Comm* c, const char* what, const void* buf, const int* cs, const int* ds,
            const MPI_Datatype* ts) {
    if (cs == nullptr || ds == nullptr || ts == nullptr) {
      return fail(Err::arg, "%scounts, %s displacements or %stypes is NULL", what, what, what);
    }
    const auto n = static_cast<std::size_t>(c->size());
    types.resize(n);
    bytes.resize(n);
    at.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
      if (cs[r] < 0) return fail(Err::count, "%scounts[%zu] = %d is negative", what, r, cs[r]);
      if (ds[r] < 0) return fail(Err::arg, "%s displacement %d for rank %zu is negative", what, ds[r], r);
      if (Err e = lib().types.lookup(ts[r], &types[r]); e != Err::ok) return e;
      bytes[r] = packed_size(*types[r], static_cast<std::size_t>(cs[r]));
      if (buf == nullptr && bytes[r] > 0 && (types[r]->contiguous || types[r]->predefined)) {
        return fail(Err::buffer, "%sbuf is NULL but %zu bytes are to be transferred for rank %zu",
                    what, bytes[r], r);
      }
      at[r] = total;
      total += bytes[r];
    }
    counts = cs;
    displs = ds;
    packed.resize(total);
    return Err::ok;
  }
  // Integer arithmetic: buf may be MPI_BOTTOM (NULL) with types of absolute addresses.
  char* block(const void* buf, std::size_t r) const {
    return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(buf) +
                                   static_cast<std::uintptr_t>(displs[r]));
  }
  void pack_all(const void* buf) {
    for (std::size_t r = 0; r < types.size(); ++r) {
      if (bytes[r] > 0) {
        pack(block(buf, r), static_cast<std::size_t>(counts[r]), *types[r], packed.data() + at[r]);
      }
    }
  }
  void unpack_members(const coll::View& v, void* buf) const {
    for (int m : v.members) {
      const auto r = static_cast<std::size_t>(m);
      if (bytes[r] == 0) continue;
      unpack(packed.data() + at[r], bytes[r], block(buf, r),
             static_cast<std::size_t>(counts[r]), *types[r]);
    }
  }
};

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Barrier", inter_barrier(ic));
  // Leaving a barrier cleanly means every member's message chain reached here.
  return finish_uniform(c, call.view(), coll::barrier(call.view(), p2p),
                        UniformResult{nullptr, 0, true}, "MPI_Barrier");
}
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Allgather", inter_allgather(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t rbytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_equal_blocks("MPI_Allgather", sendbuf, sendcount, sendtype, &st, recvbuf, recvcount, recvtype, &rt, &rbytes));
  if (!in_place) {
    CHECK(check_not_own_block(sendbuf, recvbuf, MPI_Aint{c->rank} * recvcount * rt->extent, rbytes));
  }
  // Every member ends with every member's block (rbytes > 0): the outcome may settle. With
  // BLANK gaps the gap slots are not the algorithm's, so such a view does not settle.
  const bool from_everyone =
      rbytes > 0 && static_cast<int>(call.view().members.size()) == c->size();
  const std::size_t total = rbytes * static_cast<std::size_t>(c->size());
  if (moves_in_place(st) && moves_in_place(rt)) {
    return finish_uniform(c, call.view(),
                          coll::allgather(call.view(), p2p, in_place_or(sendbuf), rbytes, recvbuf),
                          UniformResult{recvbuf, total, from_everyone}, "MPI_Allgather");
  }
  const auto per = static_cast<std::size_t>(recvcount);
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount), *st, Form::packed(*st));
    in.load_all();
  }
  out.setup(recvbuf, per * static_cast<std::size_t>(c->size()), *rt, Form::packed(*rt));
  if (in_place) load_slot(&out, c->rank, per);  // my block, read from my slot
  const coll::Status s =
      coll::allgather(call.view(), p2p, in_place ? coll::in_place : in.data(), rbytes, out.data());
  const int rc = finish_uniform(c, call.view(), s, UniformResult{out.data(), total, from_everyone},
                                "MPI_Allgather");
  // A result taken from a member that settled holds my own slot too: store it all.
  if (rc == MPI_SUCCESS) store_slots(out, call.view(), per, s == coll::Status::ok && in_place ? c->rank : -1);
  return rc;
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Allgatherv",
                 inter_allgatherv(ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t sbytes = 0, unused = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) CHECK(bytes_of("sendbuf", sendbuf, sendcount, sendtype, &st, &sbytes));
  CHECK(bytes_of("recvbuf", recvbuf, 0, recvtype, &rt, &unused));
  VBuffer out;
  CHECK(v_buffer(c, "recvbuf", recvbuf, recvcounts, displs, *rt, &out));
  if (!in_place) {
    CHECK(check_distinct(sendbuf, recvbuf, sbytes));
    CHECK(check_not_own_block(sendbuf, recvbuf, MPI_Aint{displs[c->rank]} * rt->extent, sbytes));
  }
  Stage in;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount), *st, Form::packed(*st));
    in.load_all();
  } else {
    out.load_block(c->rank);  // my block, read from its place
  }
  const coll::Status s = coll::allgatherv(call.view(), p2p, in_place ? coll::in_place : in.data(),
                                          out.stage.data(), out.counts.data(), out.displs.data());
  if (s == coll::Status::ok) out.store_members(call.view(), in_place ? c->rank : -1);
  return finish(c, s, "MPI_Allgatherv");
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Alltoall", inter_alltoall(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t rbytes = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(check_equal_blocks("MPI_Alltoall", sendbuf, sendcount, sendtype, &st, recvbuf, recvcount, recvtype, &rt, &rbytes));
  if (moves_in_place(st) && moves_in_place(rt)) {
    return finish(c, coll::alltoall(call.view(), p2p, in_place_or(sendbuf), rbytes, recvbuf),
                  "MPI_Alltoall");
  }
  const auto slots = static_cast<std::size_t>(c->size());
  Stage in, out;
  if (!in_place) {
    in.setup(sendbuf, static_cast<std::size_t>(sendcount) * slots, *st, Form::packed(*st));
    in.load_all();
  }
  out.setup(recvbuf, static_cast<std::size_t>(recvcount) * slots, *rt, Form::packed(*rt));
  if (in_place) out.load_all();  // sent from and replaced in recvbuf
  const coll::Status s =
      coll::alltoall(call.view(), p2p, in_place ? coll::in_place : in.data(), rbytes, out.data());
  if (s == coll::Status::ok) store_slots(out, call.view(), static_cast<std::size_t>(recvcount), -1);
  return finish(c, s, "MPI_Alltoall");
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Alltoallv",
                 inter_alltoallv(ic, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype));
  const Datatype *st = nullptr, *rt = nullptr;
  std::size_t unused = 0;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  CHECK(bytes_of("recvbuf", recvbuf, 0, recvtype, &rt, &unused));
  VBuffer in, out;
  CHECK(v_buffer(c, "recvbuf", recvbuf, recvcounts, rdispls, *rt, &out));
  if (!in_place) {
    CHECK(bytes_of("sendbuf", sendbuf, 0, sendtype, &st, &unused));
    CHECK(v_buffer(c, "sendbuf", sendbuf, sendcounts, sdispls, *st, &in));
    CHECK(check_distinct(sendbuf, recvbuf, total_of(in.counts)));
    in.load_all(c->size());
  } else {
    out.load_all(c->size());  // sent from and replaced in recvbuf
  }
  const coll::Status s = coll::alltoallv(
      call.view(), p2p, in_place ? coll::in_place : in.stage.data(),
      in.counts.empty() ? nullptr : in.counts.data(),
      in.displs.empty() ? nullptr : in.displs.data(),
      out.stage.data(), out.counts.data(), out.displs.data());
  if (s == coll::Status::ok) out.store_members(call.view(), -1);
  return finish(c, s, "MPI_Alltoallv");
}

// MPI-2.2 5.8: block r is counts[r] elements of types[r] at byte displacement displs[r]. Every
// block travels in its packed (wire) form, back to back in rank order, so the byte-level
// alltoallv moves them whatever the types; each received block is unpacked with its own type.
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  BEGIN_OR_INTER("MPI_Alltoallw",
                 inter_alltoallw(ic, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  WBlocks in, out;
  CHECK(out.setup(c, "recv", recvbuf, recvcounts, rdispls, recvtypes));
  if (!in_place) {
    CHECK(in.setup(c, "send", sendbuf, sendcounts, sdispls, sendtypes));
    CHECK(check_distinct(sendbuf, recvbuf, in.total));
    in.pack_all(sendbuf);
  } else {
    out.pack_all(recvbuf);  // sent from and replaced in recvbuf
  }
  const coll::Status s = coll::alltoallv(
      call.view(), p2p, in_place ? coll::in_place : in.packed.data(),
      in_place ? nullptr : in.bytes.data(), in_place ? nullptr : in.at.data(),
      out.packed.data(), out.bytes.data(), out.at.data());
  if (s == coll::Status::ok) out.unpack_members(call.view(), recvbuf);
  return finish(c, s, "MPI_Alltoallw");
}

}  // extern "C"
