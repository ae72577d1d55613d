// Level 3: XOR parity groups (SCR's XOR scheme, Moody et al. 2010), all geometry and byte
// arithmetic without MPI so it can be tested in one process.
//
// The ranks that own data (a BLANK gap owns none) are cut, in rank order, into consecutive
// groups of g; a last group of one member joins the group before it (one member cannot keep
// parity of itself). Inside a group of s members every image is padded with zeros to the
// group's largest image and cut into s-1 chunks of c = ceil(max / (s-1)) bytes. Think of an
// s x s table: member p puts its chunks, in order, in the columns other than p (chunk t in
// column t if t < p, else t+1); member m keeps the XOR of column m, c bytes. So each member
// holds 1/(s-1) of an image as parity, and when one member x of the group is lost, each of
// its chunks is the XOR of that column's parity (held by a survivor) and the other
// survivors' chunks in that column. Any single loss per group is recoverable from the group
// alone, whatever happened to the level-2 copies of its members.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftckpt {

class XorGroups {
 public:
  XorGroups() = default;  // level 3 off

  // members: ranks that own data, ascending, each in [0, n). g >= 2, else level 3 is off.
  XorGroups(int n, const std::vector<int>& members, int g);

  bool enabled() const { return !groups_.empty(); }
  int count() const { return static_cast<int>(groups_.size()); }
  const std::vector<int>& members(int group) const { return groups_[group]; }
  // -1 for ranks that own no data (or when off).
  int group_of(int rank) const;
  int position(int rank) const;

 private:
  std::vector<std::vector<int>> groups_;
  std::vector<int> group_of_, position_;  // by rank
};

// Bytes of one chunk (and of a member's parity) in a group of `group_size` whose largest
// image has `max_image` bytes. Zero for groups of fewer than 2.
std::size_t xor_chunk_bytes(std::size_t max_image, int group_size);

// Column of chunk t of the member at `position`, and the inverse.
inline int xor_column(int position, int chunk) { return chunk < position ? chunk : chunk + 1; }
inline int xor_chunk(int position, int column) { return column < position ? column : column - 1; }

// The part of chunk t that lies inside an image of `image_bytes` (the rest is zero padding):
// bytes [offset, offset + length) of the image; length may be 0.
struct ChunkSpan {
  std::size_t offset = 0, length = 0;
};
ChunkSpan xor_chunk_span(std::size_t image_bytes, std::size_t chunk_bytes, int chunk);

// dst[i] ^= src[i] for n bytes.
void xor_into(char* dst, const char* src, std::size_t n);

// The piece that the survivor at `survivor_pos` contributes to column `column` when the
// member at `lost_pos` is rebuilt: its parity if column == survivor_pos, else its own chunk
// in that column. XOR over all survivors of the group gives the lost member's chunk
// xor_chunk(lost_pos, column). Only the span is returned for the own-chunk case (zero
// padding is implied); `is_parity` tells the two apart.
struct RebuildPiece {
  bool is_parity = false;
  ChunkSpan span;  // within the survivor's image when !is_parity, within its parity otherwise
};
RebuildPiece xor_rebuild_piece(int survivor_pos, int lost_pos, int column,
                               std::size_t survivor_image_bytes, std::size_t chunk_bytes);

}  // namespace ftckpt
