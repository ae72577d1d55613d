// Building layouts: placing child layouts, folding regular patterns into strided runs and merging
// adjacent bytes as blocks arrive, so the copy loop (datatype_copy.cpp) sees few blocks.
#include "datatype_layout.h"

#include <algorithm>

namespace ftmpi {

LayoutPtr basic_layout(std::size_t size) {
  LayoutBuilder b;
  b.place_bytes(0, size);
  return b.finish();
}

void LayoutBuilder::place_bytes(MPI_Aint disp, std::size_t len) {
  if (len == 0) return;
  Block b;
  b.offset = disp;
  b.len = len;
  push(b);
}

void LayoutBuilder::place(const LayoutPtr& child, MPI_Aint disp, std::size_t count,
                          MPI_Aint stride) {
  if (count == 0 || child->size == 0) return;
  const Layout& c = *child;
  const Block* only = c.blocks.size() == 1 && !c.blocks[0].child ? &c.blocks[0] : nullptr;
  if (only != nullptr && only->repeat == 1) {
    // A dense piece placed count times is one strided run (vector/contiguous of a basic type).
    Block b;
    b.offset = disp + only->offset;
    b.len = only->len;
    b.repeat = count;
    b.stride = stride;
    push(b);
    return;
  }
  if (only != nullptr && (count == 1 || stride == static_cast<MPI_Aint>(only->repeat) *
                                                       only->stride)) {
    // The copies continue the child's own run: a vector of vectors with matching stride.
    Block b = *only;
    b.offset += disp;
    b.repeat = only->repeat * count;
    push(b);
    return;
  }
  if (c.blocks.size() * count <= kFlattenLimit) {
    for (std::size_t k = 0; k < count; ++k) {
      for (Block b : c.blocks) {
        b.offset += disp + static_cast<MPI_Aint>(k) * stride;
        push(b);
      }
    }
    return;
  }
  Block b;
  b.offset = disp;
  b.stride = stride;
  b.len = c.size;
  b.repeat = count;
  b.child = child;
  push(b);
}

void LayoutBuilder::extend_span(MPI_Aint lo, MPI_Aint hi) {
  if (!have_span_) {
    out_.true_lb = lo;
    out_.true_ub = hi;
    have_span_ = true;
    return;
  }
  out_.true_lb = std::min(out_.true_lb, lo);
  out_.true_ub = std::max(out_.true_ub, hi);
}

void LayoutBuilder::push(Block b) {
  if (b.repeat == 0 || b.len == 0) return;
  // Canonical form: a run whose copies touch is one longer piece; a single piece has no stride.
  if (!b.child && b.repeat > 1 && b.stride == static_cast<MPI_Aint>(b.len)) {
    b.len *= b.repeat;
    b.repeat = 1;
  }
  if (b.repeat == 1) b.stride = 0;

  const MPI_Aint last = static_cast<MPI_Aint>(b.repeat - 1) * b.stride;
  const MPI_Aint lo = b.offset + std::min<MPI_Aint>(0, last);
  const MPI_Aint hi = b.offset + std::max<MPI_Aint>(0, last);
  if (b.child) {
    extend_span(lo + b.child->true_lb, hi + b.child->true_ub);
  } else {
    extend_span(lo, hi + static_cast<MPI_Aint>(b.len));
  }
  out_.size += b.len * b.repeat;

  if (!out_.blocks.empty() && !b.child && !out_.blocks.back().child) {
    Block& a = out_.blocks.back();
    const MPI_Aint next = a.offset + static_cast<MPI_Aint>(a.repeat) * a.stride;
    if (a.repeat == 1 && b.repeat == 1 && a.offset + static_cast<MPI_Aint>(a.len) == b.offset) {
      a.len += b.len;  // adjacent bytes
      return;
    }
    if (a.len == b.len) {
      if (a.repeat == 1 && b.repeat == 1) {
        a.stride = b.offset - a.offset;  // two equal pieces start a run
        a.repeat = 2;
        return;
      }
      if (a.repeat > 1 && b.repeat == 1 && b.offset == next) {
        ++a.repeat;
        return;
      }
      if (a.repeat > 1 && b.repeat > 1 && a.stride == b.stride && b.offset == next) {
        a.repeat += b.repeat;
        return;
      }
      if (a.repeat == 1 && b.repeat > 1 && b.offset - b.stride == a.offset) {
        a.stride = b.stride;
        a.repeat = b.repeat + 1;
        return;
      }
    }
  }
  out_.blocks.push_back(std::move(b));
}

LayoutPtr LayoutBuilder::finish() {
  out_.flat = std::all_of(out_.blocks.begin(), out_.blocks.end(),
                          [](const Block& b) { return !b.child && b.repeat == 1; });
  auto l = std::make_shared<Layout>(std::move(out_));
  out_ = Layout{};
  have_span_ = false;
  return l;
}

}  // namespace ftmpi
