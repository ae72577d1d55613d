// Fan-in/fan-out through the first member (fan.h says when and why).
#include "fan.h"

#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll::detail {

namespace {

// The first member's half: one message of `bytes` from each other member v into
// in + (v - 1) * bytes, all posted at once so that arrivals in any order are taken in one
// wait; then `combine()`; then answer_of(v) goes to each other member, all at once.
template <typename Combine, typename AnswerOf>
Status collect_and_answer(const Group& g, P2P& p2p, unsigned char* in, std::size_t bytes, int tg,
                          Combine&& combine, AnswerOf&& answer_of) {
  const int n = g.size();
  {
    Requests reqs(p2p);
    for (int v = 1; v < n; ++v) {
      Status s = reqs.recv(g.rank(v), in + static_cast<std::size_t>(v - 1) * bytes, bytes, tg);
      if (s != Status::ok) return s;
    }
    if (Status s = reqs.wait(); s != Status::ok) return s;
  }
  combine();
  Requests reqs(p2p);
  for (int v = 1; v < n; ++v) {
    if (Status s = reqs.send(g.rank(v), answer_of(v), bytes, tg); s != Status::ok) return s;
  }
  return reqs.wait();
}

// Every other member's half: send, then wait for the answer. Both posted before the one
// wait, so the answer is matched the moment it arrives.
Status send_and_wait(const Group& g, P2P& p2p, const unsigned char* out, unsigned char* answer,
                     std::size_t bytes, std::size_t answer_bytes, int tg) {
  Requests reqs(p2p);
  Status s = reqs.send(g.rank(0), out, bytes, tg);
  if (s == Status::ok) s = reqs.recv(g.rank(0), answer, answer_bytes, tg);
  if (s == Status::ok) s = reqs.wait();
  return s;
}

}  // namespace

Status fan_barrier(const Group& g, P2P& p2p) {
  // Zero-byte messages; the P2P layer is given valid addresses all the same.
  unsigned char token[1] = {0};
  if (g.me() != 0) return send_and_wait(g, p2p, token, token, 0, 0, tag::barrier);
  return collect_and_answer(
      g, p2p, token, 0, tag::barrier, [] {}, [&](int) { return token; });
}

Status fan_allreduce(const Group& g, P2P& p2p, const Reduction& r, unsigned char* result) {
  const std::size_t bytes = r.bytes();
  if (g.me() != 0) return send_and_wait(g, p2p, result, result, bytes, bytes, tag::allreduce);
  const int n = g.size();
  Scratch in_space(static_cast<std::size_t>(n - 1) * bytes);
  unsigned char* in = in_space.data();
  auto combine = [&] {
    // As recursive doubling would (group.h: MPICH's bits for floating-point sums).
    auto x = [&](int v) { return v == 0 ? result : in + static_cast<std::size_t>(v - 1) * bytes; };
    copy_bytes(result, combine_as_doubling(n, r, x), bytes);
  };
  return collect_and_answer(g, p2p, in, bytes, tag::allreduce, combine,
                            [&](int) { return result; });
}

Status fan_alltoall(const Group& g, P2P& p2p, const unsigned char* send, unsigned char* recv,
                    std::size_t block) {
  const int n = g.size();
  const auto nz = static_cast<std::size_t>(n);
  const std::size_t row = nz * block;  // one member's n blocks, in virtual-rank order
  auto slot = [&](int v) { return static_cast<std::size_t>(g.rank(v)) * block; };
  // Without gaps the caller's buffers are already in virtual-rank order, so a member sends
  // from and receives into them; with gaps it packs its row and unpacks its column.
  const bool dense = g.dense();
  Scratch packed(dense ? 0 : 2 * row);
  const unsigned char* my_row = send;
  unsigned char* my_col = dense ? recv : packed.data() + row;
  if (!dense) {
    for (int v = 0; v < n; ++v) copy_bytes(packed.data() + v * block, send + slot(v), block);
    my_row = packed.data();
  }
  Status s;
  if (g.me() != 0) {
    s = send_and_wait(g, p2p, my_row, my_col, row, row, tag::alltoall);
  } else {
    // rows: the other members' rows (member v's at v - 1); cols: what each member gets,
    // block v of member w's column being block w of member v's row.
    Scratch space((2 * nz - 1) * row);
    unsigned char* rows = space.data();
    unsigned char* cols = rows + (nz - 1) * row;
    auto row_of = [&](int v) { return v == 0 ? my_row : rows + (v - 1) * row; };
    auto transpose = [&] {
      for (int w = 0; w < n; ++w) {
        unsigned char* col = w == 0 ? my_col : cols + (w - 1) * row;
        for (int v = 0; v < n; ++v) copy_bytes(col + v * block, row_of(v) + w * block, block);
      }
    };
    s = collect_and_answer(g, p2p, rows, row, tag::alltoall, transpose,
                           [&](int w) { return cols + (w - 1) * row; });
  }
  if (s != Status::ok || dense) return s;
  for (int v = 0; v < n; ++v) copy_bytes(recv + slot(v), my_col + v * block, block);
  return Status::ok;
}

Status fan_allgather(const Group& g, P2P& p2p, unsigned char* out, std::size_t block) {
  const int n = g.size();
  const std::size_t all = static_cast<std::size_t>(n) * block;
  auto slot = [&](int v) { return out + static_cast<std::size_t>(g.rank(v)) * block; };
  auto packed_at = [&](unsigned char* p, int v) { return p + static_cast<std::size_t>(v) * block; };
  // Without gaps the members' slots are the whole buffer in virtual-rank order, so the answer
  // goes out of it and lands in it; with gaps it is packed and unpacked (a gap's slot is never
  // written).
  const bool dense = g.dense();
  Scratch packed(dense ? 0 : all);
  unsigned char* answer = dense ? out : packed.data();
  if (g.me() != 0) {
    // My own block comes back too, the same bytes: the first member answers only after it
    // received it, so nothing reads my slot while the answer lands there.
    Status s = send_and_wait(g, p2p, slot(g.me()), answer, block, all, tag::allgather);
    if (s != Status::ok || dense) return s;
    for (int v = 0; v < n; ++v) copy_bytes(slot(v), packed_at(answer, v), block);
    return Status::ok;
  }
  {
    // Each block straight into its slot: arrivals in any order, one wait.
    Requests reqs(p2p);
    for (int v = 1; v < n; ++v) {
      Status s = reqs.recv(g.rank(v), slot(v), block, tag::allgather);
      if (s != Status::ok) return s;
    }
    if (Status s = reqs.wait(); s != Status::ok) return s;
  }
  if (!dense) {
    for (int v = 0; v < n; ++v) copy_bytes(packed_at(answer, v), slot(v), block);
  }
  Requests reqs(p2p);
  for (int v = 1; v < n; ++v) {
    if (Status s = reqs.send(g.rank(v), answer, all, tag::allgather); s != Status::ok) return s;
  }
  return reqs.wait();
}

}  // namespace ftmpi::coll::detail
