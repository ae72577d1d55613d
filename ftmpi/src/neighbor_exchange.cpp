// The neighbourhood collectives' exchange (neighbor_exchange.h).
#include "neighbor_exchange.h"

namespace ftmpi::neighbor {
namespace {

// Above every algorithm's tag (collectives/src/group.h) and below MPI_Comm_create_group's.
constexpr int kTowardsMinus = 0x20;  // graphs, and Cartesian blocks sent to the -1 neighbour
constexpr int kTowardsPlus = 0x21;   // Cartesian blocks sent to the +1 neighbour

bool direct(const Datatype& t) {
  return t.contiguous && static_cast<MPI_Aint>(t.size) == t.extent;
}

// Where each block's bytes are: the user's memory (direct) or an offset into the staging
// buffer (staged; `at`).
struct Place {
  std::size_t bytes = 0;
  bool staged = false;
  std::size_t at = 0;
};

std::size_t lay_out(const std::vector<Block>& blocks, std::size_t n, std::vector<Place>* places,
                    std::size_t total) {
  places->resize(blocks.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Block& b = blocks[i];
    Place& p = (*places)[i];
    p.bytes = packed_size(*b.type, static_cast<std::size_t>(b.count));
    p.staged = p.bytes > 0 && !direct(*b.type);
    if (p.staged) {
      p.at = total;
      total += p.bytes;
    }
  }
  return total;
}

void* where(const Block& b, const Place& p, std::vector<unsigned char>& staging) {
  return p.staged ? static_cast<void*>(staging.data() + p.at) : reinterpret_cast<void*>(b.addr);
}

}  // namespace

coll::Status exchange(const Comm& c, CommP2P& p2p, const Plan& plan) {
  const std::vector<int>& from = plan.peers.sources;
  const std::vector<int>& to = plan.peers.destinations;
  for (int r : from) {
    if (r != MPI_PROC_NULL && c.is_failed(r)) return coll::Status::proc_failed;
  }
  for (int r : to) {
    if (r != MPI_PROC_NULL && c.is_failed(r)) return coll::Status::proc_failed;
  }
  std::vector<Place> sends, recvs;
  const std::size_t nsend = plan.one_send ? (plan.sends.empty() ? 0 : 1) : plan.sends.size();
  std::size_t total = lay_out(plan.sends, nsend, &sends, 0);
  for (std::size_t i = nsend; i < plan.sends.size(); ++i) sends[i] = sends[0];
  total = lay_out(plan.recvs, plan.recvs.size(), &recvs, total);
  std::vector<unsigned char> staging(total);
  for (std::size_t i = 0; i < nsend; ++i) {
    if (sends[i].staged) {
      const Block& b = plan.sends[i];
      pack(reinterpret_cast<const void*>(b.addr), static_cast<std::size_t>(b.count), *b.type,
           staging.data() + sends[i].at);
    }
  }

  std::vector<coll::RequestId> ids;
  ids.reserve(from.size() + to.size());
  coll::Status s = coll::Status::ok;
  // Receives first: a block from a process that is its own neighbour finds its receive posted.
  for (std::size_t i = 0; i < from.size() && s == coll::Status::ok; ++i) {
    if (from[i] == MPI_PROC_NULL || recvs[i].bytes == 0) continue;
    // Slot -1 of a dimension gets what that neighbour sent towards +1, and the reverse.
    const int tag = plan.peers.cartesian && i % 2 == 0 ? kTowardsPlus : kTowardsMinus;
    coll::RequestId id = 0;
    s = p2p.irecv(from[i], where(plan.recvs[i], recvs[i], staging), recvs[i].bytes, tag, &id);
    if (s == coll::Status::ok) ids.push_back(id);
  }
  for (std::size_t i = 0; i < to.size() && s == coll::Status::ok; ++i) {
    if (to[i] == MPI_PROC_NULL || sends[i].bytes == 0) continue;
    const int tag = plan.peers.cartesian && i % 2 == 1 ? kTowardsPlus : kTowardsMinus;
    const Block& b = plan.sends[plan.one_send ? 0 : i];
    coll::RequestId id = 0;
    s = p2p.isend(to[i], where(b, sends[i], staging), sends[i].bytes, tag, &id);
    if (s == coll::Status::ok) ids.push_back(id);
  }
  // A post that failed ends the call: CommP2P purges what was posted when it goes.
  if (s == coll::Status::ok) s = p2p.waitall(ids.data(), static_cast<int>(ids.size()));
  if (s != coll::Status::ok) return s;
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (from[i] == MPI_PROC_NULL || !recvs[i].staged) continue;
    const Block& b = plan.recvs[i];
    unpack(staging.data() + recvs[i].at, recvs[i].bytes, reinterpret_cast<void*>(b.addr),
           static_cast<std::size_t>(b.count), *b.type);
  }
  return coll::Status::ok;
}

Err check_buffer(const char* what, const void* buf) {
  if (buf == MPI_IN_PLACE) {
    return fail(Err::buffer, "%sbuf is MPI_IN_PLACE, which neighbourhood collectives do not take",
                what);
  }
  return Err::ok;
}

Err check_blocks(const char* what, const std::vector<Block>& blocks, const void* buf) {
  if (Err e = check_buffer(what, buf); e != Err::ok) return e;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (b.count < 0) return fail(Err::count, "%s count %d for neighbour %zu is negative", what, b.count, i);
    // NULL is MPI_BOTTOM for a staged type (absolute addresses); a type moved in place has its
    // data at the buffer's start.
    if (b.addr == 0 && b.count > 0 && b.type->size > 0 && direct(*b.type) && buf == nullptr) {
      return fail(Err::buffer, "%sbuf is NULL but %d elements go to or from neighbour %zu", what,
                  b.count, i);
    }
  }
  return Err::ok;
}

}  // namespace ftmpi::neighbor
