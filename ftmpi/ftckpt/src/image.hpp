// Checkpoint images: the byte layout of one process's protected regions at one iteration.
// The same image is kept locally, sent as a copy and written as a level-4 file, so a holder
// or a file reader can find any region by id without asking the owner.
//
//   header  u64 magic, u64 region count
//   table   per region: i64 id, u64 offset (from image start), u64 bytes
//   data    regions back to back, in id order
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "ckpt_state.hpp"

namespace ftckpt {

// Bytes build_image will produce for these regions.
std::size_t image_size(const std::map<int, Region>& regions);

// Serialises every region into `image`, reusing its capacity (saves are frequent).
void build_image(const std::map<int, Region>& regions, std::vector<char>* image);

// Locates region `id` in an image; false when absent or the image is malformed.
bool find_region(const std::vector<char>& image, int id, const char** data, std::size_t* bytes);

// The table of an image: `head` holds at least its header and table (image_head_bytes), the
// whole image has image_bytes; false when malformed or an entry lies outside the image.
struct ImageEntry {
  std::int64_t id = 0;
  std::size_t offset = 0, bytes = 0;
};
constexpr std::size_t kImageHeaderBytes = 16, kImageEntryBytes = 24;
bool image_entries(const char* head, std::size_t head_bytes, std::size_t image_bytes,
                   std::vector<ImageEntry>* out);
// Header plus table of an image with `count` regions, as stated in its first 16 bytes
// (0 when the header is not an image's).
std::size_t image_head_bytes(const char* header16);

// Copies back every registered region whose size equals the saved size; returns how many.
// Regions registered with another size (e.g. after a SHRINK redistribution) are left for
// the application to refill with FTCKPT_Fetch.
int restore_regions(const std::vector<char>& image, const std::map<int, Region>& regions);

// Level 4: one file per process and iteration. Written to a temporary name and renamed, so
// a crash mid-write never leaves a file that looks complete.
std::string image_path(const std::string& dir, int epoch, long long k, int rank);
bool write_image_file(const std::string& path, const std::vector<char>& image);
bool read_image_file(const std::string& path, std::vector<char>* image);

}  // namespace ftckpt
