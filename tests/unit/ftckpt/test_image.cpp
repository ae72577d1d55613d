// Checkpoint images (ftmpi/ftckpt/src/image.cpp): header and table in the protocol codec, and
// malformed images (truncated, bad magic, lying counts or offsets) refused, never read past.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "image.hpp"

using namespace ftckpt;

namespace {

std::vector<char> sample_image(std::vector<int>* a, std::vector<double>* b) {
  *a = {1, 2, 3, 4};
  *b = {0.5, -1.25};
  std::map<int, Region> regions;
  regions[7].ptr = a->data();
  regions[7].bytes = a->size() * sizeof(int);
  regions[-3].ptr = b->data();
  regions[-3].bytes = b->size() * sizeof(double);
  regions[9].ptr = nullptr;
  regions[9].bytes = 0;
  std::vector<char> image;
  build_image(regions, &image);
  REQUIRE(image.size() == image_size(regions));
  return image;
}

void put_u64(std::vector<char>* v, std::size_t at, std::uint64_t x) {
  for (int i = 0; i < 8; ++i) (*v)[at + static_cast<std::size_t>(i)] = static_cast<char>(x >> (8 * i));
}

}  // namespace

TEST_CASE("an image finds every region it was built from", "[ftckpt][image]") {
  std::vector<int> a;
  std::vector<double> b;
  std::vector<char> image = sample_image(&a, &b);
  const char* data = nullptr;
  std::size_t bytes = 0;
  REQUIRE(find_region(image, 7, &data, &bytes));
  REQUIRE(bytes == 16);
  REQUIRE(std::memcmp(data, a.data(), bytes) == 0);
  REQUIRE(find_region(image, -3, &data, &bytes));
  REQUIRE(std::memcmp(data, b.data(), bytes) == 0);
  REQUIRE(find_region(image, 9, &data, &bytes));
  REQUIRE(bytes == 0);
  REQUIRE_FALSE(find_region(image, 8, &data, &bytes));
  REQUIRE(image_head_bytes(image.data()) == kImageHeaderBytes + 3 * kImageEntryBytes);
  std::vector<ImageEntry> entries;
  REQUIRE(image_entries(image.data(), image.size(), image.size(), &entries));
  REQUIRE(entries.size() == 3);
  REQUIRE(entries[0].id == -3);  // id order
  // Little-endian on the wire, whatever the host: the magic's first byte is '!'.
  REQUIRE(image[0] == '!');
}

TEST_CASE("malformed images are refused without reading past them", "[ftckpt][image]") {
  std::vector<int> a;
  std::vector<double> b;
  const std::vector<char> good = sample_image(&a, &b);
  const char* data = nullptr;
  std::size_t bytes = 0;
  std::vector<ImageEntry> entries;
  // Every truncation: no region found beyond the end, no table read past the head given.
  for (std::size_t n = 0; n < kImageHeaderBytes + 3 * kImageEntryBytes; ++n) {
    std::vector<char> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    REQUIRE_FALSE(find_region(cut, 7, &data, &bytes));
    if (n >= kImageHeaderBytes) REQUIRE_FALSE(image_entries(cut.data(), cut.size(), good.size(), &entries));
  }
  auto bad = good;
  bad[0] = 'x';  // magic
  REQUIRE_FALSE(find_region(bad, 7, &data, &bytes));
  REQUIRE(image_head_bytes(bad.data()) == 0);
  bad = good;
  put_u64(&bad, 8, ~0ull);  // a count no image has
  REQUIRE(image_head_bytes(bad.data()) == 0);
  REQUIRE_FALSE(find_region(bad, 7, &data, &bytes));
  bad = good;
  put_u64(&bad, 8, 1000);  // more entries than the image holds
  REQUIRE_FALSE(find_region(bad, 7, &data, &bytes));
  REQUIRE_FALSE(image_entries(bad.data(), bad.size(), bad.size(), &entries));
  // An entry whose region lies outside the image, or inside its table.
  for (std::uint64_t off : {std::uint64_t{good.size() + 1}, std::uint64_t{0}, std::uint64_t{~0ull}}) {
    bad = good;
    put_u64(&bad, kImageHeaderBytes + 8, off);  // the first entry's offset
    REQUIRE_FALSE(image_entries(bad.data(), bad.size(), bad.size(), &entries));
    REQUIRE_FALSE(find_region(bad, -3, &data, &bytes));
  }
  bad = good;
  put_u64(&bad, kImageHeaderBytes + 16, good.size());  // the first entry's length
  REQUIRE_FALSE(find_region(bad, -3, &data, &bytes));
  // Random bytes: never a crash; whatever is found lies inside the buffer.
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::vector<char> junk = good;
    for (int k = 0; k < 4; ++k) junk[rng() % junk.size()] = static_cast<char>(rng());
    junk.resize(rng() % (junk.size() + 1));
    if (find_region(junk, 7, &data, &bytes)) {
      REQUIRE(data >= junk.data());
      REQUIRE(data + bytes <= junk.data() + junk.size());
    }
  }
}
