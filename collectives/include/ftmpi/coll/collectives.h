// The collective operations of ftmpi, as pure functions of (communicator view, point-to-point
// interface, byte buffers, parameters). The MPI layer packs user data into contiguous bytes,
// converts counts and displacements to bytes, and maps Status to an MPI error class.
//
// Conventions shared by every entry point:
// - Participants are `view.members`; ranks passed in (root) and buffer slots are communicator
//   ranks. A slot of a rank that is not a member (a BLANK gap) is never read or written.
// - Buffers of a "slot" layout hold view.comm_size blocks; v-variants take per-communicator-rank
//   arrays of byte counts and byte displacements (length view.comm_size, read for members only).
// - Arguments MPI calls "significant only at root" may be nullptr elsewhere.
// - `in_place` given as the buffer MPI-2 names asks for MPI_IN_PLACE semantics (see each
//   function). It is not nullptr, so an empty buffer passed as NULL is never taken for it.
// - Status::invalid: my_rank or root not a member, or in_place where it is not allowed.
//   Any other non-ok Status comes straight from the point-to-point layer: the collective returns
//   the first one it gets, after completing the requests it had posted, and never retries.
//   After a failure no output buffer content is guaranteed, except that bcast never reports ok
//   with data other than the root's.
// - All participants must call with matching sizes (MPI's type-signature rule); thresholds
//   in tuning.h pick the algorithm from those sizes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ftmpi/coll/ops.h"
#include "ftmpi/coll/p2p.h"

namespace ftmpi::coll {

// The MPI_IN_PLACE marker; the same bit pattern as MPICH's MPI_IN_PLACE. Not const-qualified
// in what it points to, so it fits receive-buffer parameters (scatter) as well.
inline void* const in_place = reinterpret_cast<void*>(std::intptr_t{-1});

// Dissemination barrier: ceil(log2 n) rounds.
Status barrier(const View& view, P2P& p2p);

// Root's `bytes` of buf reach every member. Binomial tree below FTMPI_COLL_BCAST_LARGE,
// scatter + ring allgather above, segmented pipeline above FTMPI_COLL_BCAST_PIPELINE.
Status bcast(const View& view, P2P& p2p, void* buf, std::size_t bytes, int root);
// The same result in dissemination rounds (the barrier's pattern carrying the data): a clean
// finish at any member implies that every member entered, which a tree does not give. For
// small data in ATOMIC mode, where that lets the outcome settle (ftmpi/CONSENSUS.md).
Status bcast_from_everyone(const View& view, P2P& p2p, void* buf, std::size_t bytes, int root);

// recvbuf at root = x(m0) op x(m1) op ... over members in rank order, r.count elements.
// In place: sendbuf == in_place at root, whose input is then read from recvbuf.
Status reduce(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf,
              const Reduction& r, int root);

// reduce, with the result on every member. In place: sendbuf == in_place (input in recvbuf).
Status allreduce(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf,
                 const Reduction& r);

// Reduces a vector of blocks, block c holding recvcounts[c] elements (c = communicator rank,
// blocks in rank order, a gap's block included in the layout but delivered nowhere), and
// leaves block my_rank in recvbuf. r.count is ignored. In place: sendbuf == in_place, the
// whole input vector in recvbuf and the result at its start.
Status reduce_scatter(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf,
                      const std::size_t* recvcounts, const Reduction& r);

// Inclusive prefix: recvbuf on member k = x(m0) op ... op x(mk). In place: sendbuf == in_place.
Status scan(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf, const Reduction& r);
// Exclusive prefix: recvbuf on member k > 0 = x(m0) op ... op x(m(k-1)); the first member's
// recvbuf is left as it is. In place: sendbuf == in_place (input in recvbuf).
Status exscan(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf, const Reduction& r);

// Root's recvbuf slot c (block bytes at c*block) receives member c's sendbuf.
// In place: sendbuf == in_place at root, whose own slot is left as it is.
Status gather(const View& view, P2P& p2p, const void* sendbuf, std::size_t block, void* recvbuf,
              int root);

// Root receives member c's sendbytes at recvbuf + displs[c]; recvcounts[c] must equal
// them. In place: sendbuf == in_place at root.
Status gatherv(const View& view, P2P& p2p, const void* sendbuf, std::size_t sendbytes,
               void* recvbuf, const std::size_t* recvcounts, const std::size_t* displs, int root);

// Member c receives root's sendbuf slot c. In place: recvbuf == in_place at root, whose own
// slot stays in sendbuf.
Status scatter(const View& view, P2P& p2p, const void* sendbuf, std::size_t block,
               void* recvbuf, int root);

// Member c receives sendcounts[c] bytes from root's sendbuf + displs[c] into recvbuf
// (recvbytes must match). In place: recvbuf == in_place at root.
Status scatterv(const View& view, P2P& p2p, const void* sendbuf, const std::size_t* sendcounts,
                const std::size_t* displs, void* recvbuf, std::size_t recvbytes, int root);

// Every member's recvbuf slot c receives member c's block. Bruck's algorithm below
// FTMPI_COLL_ALLGATHER_LARGE total bytes, ring above. In place: sendbuf == in_place, my
// block already in my slot.
Status allgather(const View& view, P2P& p2p, const void* sendbuf, std::size_t block,
                 void* recvbuf);

// Every member receives member c's counts[c] bytes at recvbuf + displs[c] (ring).
// sendbuf holds my counts[my_rank] bytes. In place: sendbuf == in_place.
Status allgatherv(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf,
                  const std::size_t* counts, const std::size_t* displs);

// Slot d of my sendbuf goes to member d, arriving in its recvbuf slot my_rank.
// In place (MPI-2.2): sendbuf == in_place, data sent from and replaced in recvbuf.
Status alltoall(const View& view, P2P& p2p, const void* sendbuf, std::size_t block,
                void* recvbuf);

// sendcounts[d] bytes at sendbuf + sdispls[d] go to member d; recvcounts[s] bytes from member s
// land at recvbuf + rdispls[s]. In place (MPI-2.2): sendbuf == in_place, sendcounts/sdispls
// ignored, data sent from and replaced in recvbuf per recvcounts/rdispls.
Status alltoallv(const View& view, P2P& p2p, const void* sendbuf, const std::size_t* sendcounts,
                 const std::size_t* sdispls, void* recvbuf, const std::size_t* recvcounts,
                 const std::size_t* rdispls);

}  // namespace ftmpi::coll
