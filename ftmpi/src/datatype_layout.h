// Where the data bytes of one datatype element lie, and the copy engine that moves them between
// a user buffer and a packed byte stream (pack, unpack, partial transfers).
//
// A layout is a list of blocks in typemap order (the order the bytes travel). A leaf block is
// `repeat` runs of `len` raw bytes, `stride` apart; a nested block is `repeat` copies of a child
// layout. Constructors fold regular patterns into leaf runs and merge adjacent bytes, so a
// vector of doubles is one block, not 131072, and the copy loop reads almost no metadata. Nesting
// is kept only when flattening would replicate many blocks (a contiguous of a gappy struct).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ftmpi {

struct Layout;

struct Block {
  MPI_Aint offset = 0;   // of the first run, from the element's origin
  MPI_Aint stride = 0;   // between runs (meaningless when repeat == 1)
  std::size_t len = 0;   // bytes per run; for a nested block, child->size
  std::size_t repeat = 1;
  std::shared_ptr<const Layout> child;  // null: raw bytes
};

struct Layout {
  std::vector<Block> blocks;
  std::size_t size = 0;  // data bytes of one element (= packed bytes)
  // Span actually touched, from the element's origin (the MPI-2 "true" lb and ub). Both 0 when
  // the layout is empty.
  MPI_Aint true_lb = 0;
  MPI_Aint true_ub = 0;

  // Every block is one raw piece (a struct's fields): repeated copies take a tight loop.
  bool flat = true;

  // One dense run: count elements spaced `extent` apart collapse into one strided run.
  bool single_run() const {
    return blocks.size() == 1 && !blocks[0].child && blocks[0].repeat == 1;
  }
};

using LayoutPtr = std::shared_ptr<const Layout>;

// Layout of a basic type: `size` bytes at offset 0 (pair types add two pieces with place_bytes).
LayoutPtr basic_layout(std::size_t size);

class LayoutBuilder {
 public:
  // Appends `count` copies of `child` at disp, disp + stride, ... (typemap order).
  void place(const LayoutPtr& child, MPI_Aint disp, std::size_t count, MPI_Aint stride);
  // Appends `len` raw bytes at disp.
  void place_bytes(MPI_Aint disp, std::size_t len);
  LayoutPtr finish();

  // Flattening a child of n blocks `count` times is fine while n * count stays under this;
  // beyond it the child is referenced as a nested block (bounded memory for huge counts).
  static constexpr std::size_t kFlattenLimit = 256;

 private:
  void push(Block b);
  void extend_span(MPI_Aint lo, MPI_Aint hi);
  Layout out_;
  bool have_span_ = false;
};

// Copies between `count` elements of a layout in memory (element i at base + i * extent) and a
// packed stream. `skip` bytes of the stream are passed over first; at most `max` bytes move.
// Returns the number of bytes moved. base may be MPI_BOTTOM (0) with absolute offsets.
std::size_t layout_pack(const Layout& l, MPI_Aint extent, const void* base, std::size_t count,
                        std::size_t skip, std::size_t max, void* stream);
std::size_t layout_unpack(const Layout& l, MPI_Aint extent, void* base, std::size_t count,
                          std::size_t skip, std::size_t max, const void* stream);

}  // namespace ftmpi
