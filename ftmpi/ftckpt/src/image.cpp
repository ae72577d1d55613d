#include "image.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace ftckpt {

namespace {

constexpr std::uint64_t kMagic = 0x31544b4349544621ull;  // "!FTICKT1"
constexpr std::size_t kHeader = 16, kEntry = 24;

std::uint64_t get_u64(const std::vector<char>& v, std::size_t at) {
  std::uint64_t x;
  std::memcpy(&x, v.data() + at, sizeof x);
  return x;
}

void put_u64(std::vector<char>* v, std::size_t at, std::uint64_t x) {
  std::memcpy(v->data() + at, &x, sizeof x);
}

}  // namespace

std::size_t image_size(const std::map<int, Region>& regions) {
  std::size_t total = kHeader + kEntry * regions.size();
  for (const auto& [id, r] : regions) total += r.bytes;
  return total;
}

void build_image(const std::map<int, Region>& regions, std::vector<char>* image) {
  image->resize(image_size(regions));
  put_u64(image, 0, kMagic);
  put_u64(image, 8, regions.size());
  std::size_t entry = kHeader, data = kHeader + kEntry * regions.size();
  for (const auto& [id, r] : regions) {
    put_u64(image, entry, static_cast<std::uint64_t>(static_cast<std::int64_t>(id)));
    put_u64(image, entry + 8, data);
    put_u64(image, entry + 16, r.bytes);
    if (r.bytes) std::memcpy(image->data() + data, r.ptr, r.bytes);
    entry += kEntry;
    data += r.bytes;
  }
}

std::size_t image_head_bytes(const char* header16) {
  std::uint64_t magic, n;
  std::memcpy(&magic, header16, sizeof magic);
  std::memcpy(&n, header16 + 8, sizeof n);
  if (magic != kMagic || n > (1u << 20)) return 0;
  return kHeader + kEntry * static_cast<std::size_t>(n);
}

bool image_entries(const char* head, std::size_t head_bytes, std::size_t image_bytes,
                   std::vector<ImageEntry>* out) {
  if (head_bytes < kHeader) return false;
  const std::size_t need = image_head_bytes(head);
  if (need == 0 || need > head_bytes || need > image_bytes) return false;
  out->clear();
  for (std::size_t at = kHeader; at < need; at += kEntry) {
    std::uint64_t id, off, len;
    std::memcpy(&id, head + at, 8);
    std::memcpy(&off, head + at + 8, 8);
    std::memcpy(&len, head + at + 16, 8);
    if (off < need || off > image_bytes || len > image_bytes - off) return false;
    out->push_back(ImageEntry{static_cast<std::int64_t>(id), static_cast<std::size_t>(off),
                              static_cast<std::size_t>(len)});
  }
  return true;
}

bool find_region(const std::vector<char>& image, int id, const char** data, std::size_t* bytes) {
  if (image.size() < kHeader || get_u64(image, 0) != kMagic) return false;
  std::uint64_t n = get_u64(image, 8);
  if (n > (image.size() - kHeader) / kEntry) return false;
  for (std::uint64_t e = 0; e < n; ++e) {
    std::size_t at = kHeader + kEntry * e;
    if (static_cast<std::int64_t>(get_u64(image, at)) != id) continue;
    std::uint64_t off = get_u64(image, at + 8), len = get_u64(image, at + 16);
    if (off > image.size() || len > image.size() - off) return false;
    *data = image.data() + off;
    *bytes = len;
    return true;
  }
  return false;
}

int restore_regions(const std::vector<char>& image, const std::map<int, Region>& regions) {
  int restored = 0;
  for (const auto& [id, r] : regions) {
    const char* data;
    std::size_t bytes;
    if (!find_region(image, id, &data, &bytes) || bytes != r.bytes) continue;
    if (bytes) std::memcpy(r.ptr, data, bytes);
    ++restored;
  }
  return restored;
}

std::string image_path(const std::string& dir, int epoch, long long k, int rank) {
  char name[96];
  std::snprintf(name, sizeof name, "/ftckpt-e%d-k%lld-r%d.img", epoch, k, rank);
  return dir + name;
}

bool write_image_file(const std::string& path, const std::vector<char>& image) {
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(image.data(), 1, image.size(), f) == image.size();
  ok = (std::fclose(f) == 0) && ok;
  if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) std::remove(tmp.c_str());
  return ok;
}

bool read_image_file(const std::string& path, std::vector<char>* image) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  bool ok = std::fseek(f, 0, SEEK_END) == 0;
  long size = ok ? std::ftell(f) : -1;
  ok = ok && size >= 0 && std::fseek(f, 0, SEEK_SET) == 0;
  if (ok) {
    image->resize(static_cast<std::size_t>(size));
    ok = std::fread(image->data(), 1, image->size(), f) == image->size();
  }
  std::fclose(f);
  return ok;
}

}  // namespace ftckpt
