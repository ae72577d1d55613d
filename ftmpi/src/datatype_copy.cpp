// The copy engine behind pack, unpack and non-contiguous sends and receives. One template serves
// both directions; the inner loop of a strided run is specialised for the common piece sizes so
// that an 8-byte piece is a register move, not a call to memcpy.
#include <algorithm>
#include <cstring>

#include "datatype_layout.h"

namespace ftmpi {
namespace {

// Addresses are integers: with MPI_BOTTOM the base is 0 and offsets are absolute, and pointer
// arithmetic on a null pointer would be undefined.
using Addr = std::uintptr_t;

inline Addr at(Addr base, MPI_Aint off) { return base + static_cast<Addr>(off); }

template <bool Pack>
inline void move(Addr mem, unsigned char* stream, std::size_t n) {
  if (Pack) {
    std::memcpy(stream, reinterpret_cast<const void*>(mem), n);
  } else {
    std::memcpy(reinterpret_cast<void*>(mem), stream, n);
  }
}

template <bool Pack, std::size_t L>
void runs_fixed(Addr mem, MPI_Aint stride, std::size_t n, unsigned char* s) {
  for (std::size_t i = 0; i < n; ++i, mem = at(mem, stride), s += L) move<Pack>(mem, s, L);
}

// One piece: the usual basic sizes become fixed-size moves instead of a call to memcpy, which
// matters for structs, where pieces are few bytes and one element holds several of them.
template <bool Pack>
inline void piece(Addr mem, unsigned char* s, std::size_t len) {
  switch (len) {
    case 4: return move<Pack>(mem, s, 4);
    case 8: return move<Pack>(mem, s, 8);
    case 12: return move<Pack>(mem, s, 12);
    case 16: return move<Pack>(mem, s, 16);
    default: return move<Pack>(mem, s, len);
  }
}

// n pieces of len bytes, stride apart in memory, back to back in the stream.
template <bool Pack>
void runs(Addr mem, MPI_Aint stride, std::size_t len, std::size_t n, unsigned char* s) {
  if (n == 0) return;
  if (n == 1) return piece<Pack>(mem, s, len);
  if (stride == static_cast<MPI_Aint>(len)) {
    move<Pack>(mem, s, len * n);
    return;
  }
  switch (len) {
    case 1: return runs_fixed<Pack, 1>(mem, stride, n, s);
    case 2: return runs_fixed<Pack, 2>(mem, stride, n, s);
    case 4: return runs_fixed<Pack, 4>(mem, stride, n, s);
    case 8: return runs_fixed<Pack, 8>(mem, stride, n, s);
    case 12: return runs_fixed<Pack, 12>(mem, stride, n, s);
    case 16: return runs_fixed<Pack, 16>(mem, stride, n, s);
    case 24: return runs_fixed<Pack, 24>(mem, stride, n, s);
    case 32: return runs_fixed<Pack, 32>(mem, stride, n, s);
    default:
      for (std::size_t i = 0; i < n; ++i, mem = at(mem, stride), s += len) move<Pack>(mem, s, len);
  }
}

// The whole of a block, no window to respect: the fast path of every complete transfer.
template <bool Pack>
unsigned char* block_all(const Block& b, Addr base, unsigned char* s);

template <bool Pack>
unsigned char* layout_all(const Layout& l, Addr base, unsigned char* s) {
  for (const Block& b : l.blocks) s = block_all<Pack>(b, base, s);
  return s;
}

// n copies of a flat layout (a few pieces each), stride apart: an array of structs.
template <bool Pack>
unsigned char* flat_copies(const Layout& l, Addr mem, MPI_Aint stride, std::size_t n,
                           unsigned char* s) {
  const Block* first = l.blocks.data();
  const Block* last = first + l.blocks.size();
  for (std::size_t k = 0; k < n; ++k, mem = at(mem, stride)) {
    for (const Block* b = first; b != last; ++b) {
      piece<Pack>(at(mem, b->offset), s, b->len);
      s += b->len;
    }
  }
  return s;
}

template <bool Pack>
unsigned char* block_all(const Block& b, Addr base, unsigned char* s) {
  const Addr mem = at(base, b.offset);
  if (!b.child) {
    runs<Pack>(mem, b.stride, b.len, b.repeat, s);
    return s + b.len * b.repeat;
  }
  if (b.child->flat) return flat_copies<Pack>(*b.child, mem, b.stride, b.repeat, s);
  for (std::size_t k = 0; k < b.repeat; ++k) {
    s = layout_all<Pack>(*b.child, at(mem, static_cast<MPI_Aint>(k) * b.stride), s);
  }
  return s;
}

// Position in the stream: bytes still to pass over, bytes still to move.
struct Cursor {
  unsigned char* stream;
  std::size_t skip;
  std::size_t left;
};

template <bool Pack>
void leaf(Addr base, const Block& b, Cursor& c) {
  const std::size_t total = b.len * b.repeat;
  if (c.skip >= total) {
    c.skip -= total;
    return;
  }
  std::size_t k = c.skip / b.len;
  const std::size_t inside = c.skip % b.len;
  c.skip = 0;
  Addr mem = at(base, b.offset + static_cast<MPI_Aint>(k) * b.stride);
  if (inside != 0) {  // resume in the middle of a piece
    const std::size_t n = std::min(b.len - inside, c.left);
    move<Pack>(mem + inside, c.stream, n);
    c.stream += n;
    c.left -= n;
    if (c.left == 0) return;
    ++k;
    mem = at(mem, b.stride);
  }
  const std::size_t full = std::min(b.repeat - k, c.left / b.len);
  runs<Pack>(mem, b.stride, b.len, full, c.stream);
  c.stream += full * b.len;
  c.left -= full * b.len;
  k += full;
  if (k < b.repeat && c.left > 0) {  // stop in the middle of a piece (short message)
    mem = at(mem, static_cast<MPI_Aint>(full) * b.stride);
    const std::size_t n = std::min(b.len, c.left);
    move<Pack>(mem, c.stream, n);
    c.stream += n;
    c.left -= n;
  }
}

template <bool Pack>
void walk(const Layout& l, Addr base, Cursor& c) {
  for (const Block& b : l.blocks) {
    if (c.left == 0) return;
    const std::size_t whole = b.len * b.repeat;
    if (c.skip == 0 && c.left >= whole) {
      c.stream = block_all<Pack>(b, base, c.stream);
      c.left -= whole;
      continue;
    }
    if (!b.child) {
      leaf<Pack>(base, b, c);
      continue;
    }
    if (c.skip >= whole) {
      c.skip -= whole;
      continue;
    }
    std::size_t k = c.skip / b.len;
    c.skip %= b.len;
    for (; k < b.repeat && c.left > 0; ++k) {
      walk<Pack>(*b.child, at(base, b.offset + static_cast<MPI_Aint>(k) * b.stride), c);
    }
  }
}

template <bool Pack>
std::size_t transfer(const Layout& l, MPI_Aint extent, Addr base, std::size_t count,
                     std::size_t skip, std::size_t max, unsigned char* stream) {
  const std::size_t total = l.size * count;
  if (total == 0 || skip >= total) return 0;
  const std::size_t want = std::min(max, total - skip);
  if (want == 0) return 0;  // the stream may be NULL then
  Cursor c{stream, skip, want};
  if (l.single_run()) {
    // count elements of one dense piece: a single strided run, one loop for the whole message.
    Block b = l.blocks[0];
    b.repeat = count;
    b.stride = extent;
    leaf<Pack>(base, b, c);
  } else {
    std::size_t i = skip / l.size;
    c.skip = skip % l.size;
    if (l.flat && c.skip == 0) {  // whole elements of a struct: one tight loop
      const std::size_t n = std::min(count - i, c.left / l.size);
      c.stream = flat_copies<Pack>(l, at(base, static_cast<MPI_Aint>(i) * extent), extent, n,
                                   c.stream);
      c.left -= n * l.size;
      i += n;
    }
    for (; i < count && c.left > 0; ++i) {
      const Addr elem = at(base, static_cast<MPI_Aint>(i) * extent);
      if (c.skip == 0 && c.left >= l.size) {
        c.stream = layout_all<Pack>(l, elem, c.stream);
        c.left -= l.size;
      } else {
        walk<Pack>(l, elem, c);
      }
    }
  }
  return want - c.left;
}

}  // namespace

std::size_t layout_pack(const Layout& l, MPI_Aint extent, const void* base, std::size_t count,
                        std::size_t skip, std::size_t max, void* stream) {
  return transfer<true>(l, extent, reinterpret_cast<Addr>(base), count, skip, max,
                        static_cast<unsigned char*>(stream));
}

std::size_t layout_unpack(const Layout& l, MPI_Aint extent, void* base, std::size_t count,
                          std::size_t skip, std::size_t max, const void* stream) {
  // The stream is only read when unpacking; the shared template takes a mutable pointer.
  return transfer<false>(l, extent, reinterpret_cast<Addr>(base), count, skip, max,
                         const_cast<unsigned char*>(static_cast<const unsigned char*>(stream)));
}

}  // namespace ftmpi
