// Reduce_scatter. Long vectors with a commutative operation: a ring, where block b travels
// from member b+1 around to member b collecting one contribution per hop; each member sends
// and receives (n-1)/n of the vector once (threshold FTMPI_COLL_REDUCE_SCATTER_LARGE).
// Otherwise, and for every non-commutative operation: reduce to the first member (whose tree
// is rank-ordered) followed by scatterv, which is simple and obviously order-preserving.
#include <vector>

#include "ftmpi/coll/tuning.h"
#include "group.h"
#include <ftmpi/coll/scratch.h>

namespace ftmpi::coll {

using namespace detail;

namespace {

Status ring_reduce_scatter(const Group& g, P2P& p2p, const unsigned char* input,
                           unsigned char* result, const std::vector<std::size_t>& offset,
                           const std::size_t* counts, const Reduction& r, std::size_t total) {
  const int n = g.size();
  const int me = g.me();
  const std::size_t es = r.elem_size;
  std::size_t largest = 0;
  for (int v = 0; v < n; ++v) largest = std::max(largest, counts[g.rank(v)]);
  Scratch acc_space(total * es), tmp_space(largest * es);
  unsigned char* acc = acc_space.data();
  unsigned char* tmp = tmp_space.data();
  copy_bytes(acc, input, total * es);
  const int left = g.rank((me - 1 + n) % n);
  const int right = g.rank((me + 1) % n);
  for (int step = 1; step < n; ++step) {
    const int out = g.rank((me - step + n) % n);     // block I pass on
    const int in = g.rank((me - step - 1 + n) % n);  // block I add my part to
    Status s = exchange(p2p, right, acc + offset[out] * es, counts[out] * es, left, tmp,
                        counts[in] * es, tag::reduce_scatter);
    if (s != Status::ok) return s;
    r.combine(tmp, acc + offset[in] * es, counts[in]);
  }
  const int mine = g.rank(me);
  copy_bytes(result, acc + offset[mine] * es, counts[mine] * es);
  return Status::ok;
}

}  // namespace

Status reduce_scatter(const View& view, P2P& p2p, const void* sendbuf, void* recvbuf,
                      const std::size_t* recvcounts, const Reduction& r) {
  Group g;
  if (Status s = Group::make(view, &g); s != Status::ok) return s;
  // Element offsets of the blocks, over every communicator rank (gaps keep their place).
  std::vector<std::size_t> offset(view.comm_size + 1);
  for (int c = 0; c < view.comm_size; ++c) offset[c + 1] = offset[c] + recvcounts[c];
  const std::size_t total = offset[view.comm_size];
  const std::size_t es = r.elem_size;
  const unsigned char* input = bytes_of(is_in_place(sendbuf) ? recvbuf : sendbuf);
  auto* result = bytes_of(recvbuf);
  const int me = view.my_rank;
  if (total == 0) return Status::ok;
  if (g.size() == 1) {
    copy_bytes(result, input + offset[me] * es, recvcounts[me] * es);
    return Status::ok;
  }
  if (r.commutative && total * es >= tuning().reduce_scatter_large) {
    return ring_reduce_scatter(g, p2p, input, result, offset, recvcounts, r, total);
  }

  Reduction whole = r;  // same operation over the whole vector
  whole.count = total;
  const int first = g.rank(0);
  Scratch reduced(me == first ? total * es : 0);
  if (Status s = reduce(view, p2p, input, reduced.data(), whole, first); s != Status::ok) {
    return s;
  }
  std::vector<std::size_t> bytes(view.comm_size), displs(view.comm_size);
  for (int c = 0; c < view.comm_size; ++c) {
    bytes[c] = recvcounts[c] * es;
    displs[c] = offset[c] * es;
  }
  return scatterv(view, p2p, reduced.data(), bytes.data(), displs.data(), result, bytes[me],
                  first);
}

}  // namespace ftmpi::coll
