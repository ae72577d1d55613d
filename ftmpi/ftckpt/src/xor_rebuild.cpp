// Level 3 recovery: rebuilding a lost member of an XOR group from the survivors' images and
// parity (layout in core/include/ftckpt/xor_groups.hpp).
//
// For each lost process x that has no surviving copy (the level choice guarantees it is the
// only loss of its group), the lowest surviving member b of the group is the builder. Every
// other survivor q sends b, for each column other than x's, its piece (its parity for its own
// column, else its chunk there); b XORs its own pieces and the received ones into x's image,
// which it then keeps beside its copies (Slot::rebuilt) and serves to FTCKPT_Fetch like a
// copy. For groups of two the builder's parity already is x's image (zero padded to the
// pair's larger one), served as it is: no message, no copy.
// All groups work at once, in one Waitall.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ckpt_state.hpp"
#include "ftckpt/level_select.hpp"

namespace ftckpt {

GroupGeometry group_geometry(const Epoch& e, const Slot& slot, int group) {
  GroupGeometry g;
  g.members = &e.xor_groups.members(group);
  long long max = 0;
  for (int m : *g.members) max = std::max(max, slot.sizes[static_cast<std::size_t>(m)]);
  g.chunk = xor_chunk_bytes(static_cast<std::size_t>(max), static_cast<int>(g.members->size()));
  return g;
}

namespace {

// One piece survivor q contributes to rebuilding position x: `length` bytes (the rest of
// the chunk is zero padding) that land at `at` in the rebuilt image. `src` is set only when
// q is this process.
struct Piece {
  const char* src = nullptr;
  std::size_t length = 0, at = 0;
};

std::vector<Piece> pieces_of(const Epoch& e, const Slot& slot, int group, int q, int x, std::size_t chunk) {
  const std::vector<int>& members = e.xor_groups.members(group);
  const int rank = members[static_cast<std::size_t>(q)];
  const std::size_t size = static_cast<std::size_t>(slot.sizes[static_cast<std::size_t>(rank)]);
  std::vector<Piece> out;
  for (int col = 0; col < static_cast<int>(members.size()); ++col) {
    if (col == x) continue;
    const RebuildPiece rp = xor_rebuild_piece(q, x, col, size, chunk);
    Piece p;
    p.length = rp.span.length;
    p.at = chunk * static_cast<std::size_t>(xor_chunk(x, col));
    if (rank == e.my_rank) p.src = rp.is_parity ? slot.parity.data() : slot.image.data() + rp.span.offset;
    out.push_back(p);
  }
  return out;
}

struct Build {
  int lost = -1;
  std::vector<std::vector<char>> incoming;  // one zero-filled image-sized buffer per sender
};

}  // namespace

namespace {

// The builder of lost member o: the lowest other member of its group (alive: the level choice
// allows only one loss per group).
int builder_of(const XorGroups& xg, int o) {
  const std::vector<int>& members = xg.members(xg.group_of(o));
  return members[xg.position(o) == 0 ? 1 : 0];
}

}  // namespace

void assign_parity_builders(const Epoch& e, std::vector<int>* source) {
  for (int o = 0; o < static_cast<int>(source->size()); ++o)
    if ((*source)[o] == kSourceParity) (*source)[o] = e.now[builder_of(e.xor_groups, o)];
}

int rebuild_from_parity(const Epoch& e, Slot& slot, std::vector<int>* source, int tag) {
  State& s = state();
  const XorGroups& xg = e.xor_groups;
  const int my_group = xg.group_of(e.my_rank);
  std::vector<MPI_Request> reqs;
  std::vector<Build> builds;
  bool ok = true;
  for (int o = 0; o < static_cast<int>(source->size()); ++o) {
    if ((*source)[o] != kSourceParity) continue;
    const int group = xg.group_of(o);
    const GroupGeometry geo = group_geometry(e, slot, group);
    const std::vector<int>& members = *geo.members;
    const int x = xg.position(o);
    const int builder = builder_of(xg, o);
    (*source)[o] = e.now[builder];
    if (group != my_group) continue;
    const int me = xg.position(e.my_rank);
    if (slot.parity.size() != geo.chunk) ok = false;  // a complete slot always has it

    if (members.size() == 2) {  // the partner's parity is o's image: nothing to compute
      if (e.my_rank == builder && ok) slot.parity_serves.push_back(o);
      continue;
    }
    if (e.my_rank == builder) {
      std::vector<char>& out = slot.rebuilt[o];
      out.assign(geo.chunk * (members.size() - 1), 0);
      for (const Piece& p : pieces_of(e, slot, group, me, x, geo.chunk))
        if (p.length && ok) xor_into(out.data() + p.at, p.src, p.length);
      builds.emplace_back();
      builds.back().lost = o;
      for (int q = 0; q < static_cast<int>(members.size()); ++q) {
        if (q == x || q == me) continue;
        builds.back().incoming.emplace_back(out.size(), 0);
        char* buf = builds.back().incoming.back().data();
        // Posted in column order, as the sender sends: MPI's non-overtaking rule pairs them.
        for (const Piece& p : pieces_of(e, slot, group, q, x, geo.chunk)) {
          if (!p.length) continue;  // padding only: not sent
          reqs.emplace_back();
          MPI_Irecv(buf + p.at, static_cast<int>(p.length), MPI_BYTE, e.now[members[q]], tag, s.comm,
                    &reqs.back());
        }
      }
    } else if (e.my_rank != o) {
      for (const Piece& p : pieces_of(e, slot, group, me, x, geo.chunk)) {
        if (!p.length) continue;
        reqs.emplace_back();
        MPI_Isend(p.src, static_cast<int>(p.length), MPI_BYTE, e.now[builder], tag, s.comm, &reqs.back());
      }
    }
  }
  int rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  if (!ok) return FTCKPT_ERR_UNRECOVERABLE;  // local: not a failure, the caller agrees on it
  for (Build& b : builds) {
    std::vector<char>& out = slot.rebuilt[b.lost];
    for (const std::vector<char>& in : b.incoming) xor_into(out.data(), in.data(), out.size());
    out.resize(static_cast<std::size_t>(slot.sizes[static_cast<std::size_t>(b.lost)]));
  }
  return MPI_SUCCESS;
}

}  // namespace ftckpt
