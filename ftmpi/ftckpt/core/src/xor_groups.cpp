#include "ftckpt/xor_groups.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ftckpt {

XorGroups::XorGroups(int n, const std::vector<int>& members, int g) {
  if (g < 2 || members.size() < 2) return;
  group_of_.assign(static_cast<std::size_t>(n), -1);
  position_.assign(static_cast<std::size_t>(n), -1);
  for (std::size_t at = 0; at < members.size(); at += static_cast<std::size_t>(g)) {
    std::vector<int> group(members.begin() + static_cast<std::ptrdiff_t>(at),
                           members.begin() + static_cast<std::ptrdiff_t>(std::min(members.size(), at + g)));
    if (group.size() == 1 && !groups_.empty()) groups_.back().push_back(group[0]);
    else groups_.push_back(std::move(group));
  }
  for (std::size_t gi = 0; gi < groups_.size(); ++gi)
    for (std::size_t p = 0; p < groups_[gi].size(); ++p) {
      int r = groups_[gi][p];
      if (r < 0 || r >= n) throw std::out_of_range("XorGroups: member out of range");
      group_of_[r] = static_cast<int>(gi);
      position_[r] = static_cast<int>(p);
    }
}

int XorGroups::group_of(int rank) const {
  if (rank < 0 || rank >= static_cast<int>(group_of_.size())) return -1;
  return group_of_[rank];
}

int XorGroups::position(int rank) const {
  if (rank < 0 || rank >= static_cast<int>(position_.size())) return -1;
  return position_[rank];
}

std::size_t xor_chunk_bytes(std::size_t max_image, int group_size) {
  if (group_size < 2) return 0;
  const std::size_t parts = static_cast<std::size_t>(group_size - 1);
  return (max_image + parts - 1) / parts;
}

ChunkSpan xor_chunk_span(std::size_t image_bytes, std::size_t chunk_bytes, int chunk) {
  ChunkSpan s;
  s.offset = chunk_bytes * static_cast<std::size_t>(chunk);
  if (s.offset < image_bytes) s.length = std::min(chunk_bytes, image_bytes - s.offset);
  return s;
}

void xor_into(char* dst, const char* src, std::size_t n) {
  // Word at a time (memcpy keeps it free of alignment and aliasing assumptions; compilers
  // turn it into plain loads), then the tail.
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, dst + i, 8);
    std::memcpy(&b, src + i, 8);
    a ^= b;
    std::memcpy(dst + i, &a, 8);
  }
  for (; i < n; ++i) dst[i] = static_cast<char>(dst[i] ^ src[i]);
}

RebuildPiece xor_rebuild_piece(int survivor_pos, int lost_pos, int column,
                               std::size_t survivor_image_bytes, std::size_t chunk_bytes) {
  if (column == lost_pos || survivor_pos == lost_pos)
    throw std::invalid_argument("xor_rebuild_piece: no piece for the lost member's column");
  RebuildPiece piece;
  if (column == survivor_pos) {
    piece.is_parity = true;
    piece.span.length = chunk_bytes;
  } else {
    piece.span = xor_chunk_span(survivor_image_bytes, chunk_bytes, xor_chunk(survivor_pos, column));
  }
  return piece;
}

}  // namespace ftckpt
