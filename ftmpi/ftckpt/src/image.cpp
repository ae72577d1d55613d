#include "image.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "ftmpi_proto/wire.h"

namespace ftckpt {

namespace {

using ftmpi::proto::ProtoStatus;
using ftmpi::proto::WireReader;

constexpr std::uint64_t kMagic = 0x31544b4349544621ull;  // "!FTICKT1"
constexpr std::size_t kHeader = kImageHeaderBytes, kEntry = kImageEntryBytes;
// More regions than any application registers: a header claiming more is not an image's.
constexpr std::uint64_t kMaxRegions = 1u << 20;

// Header and table are in the protocol library's codec (little-endian u64 fields, reads that
// never pass the end). False when the header is not an image's.
bool read_header(WireReader& r, std::uint64_t* regions) {
  const std::uint64_t magic = r.u64(), n = r.u64();
  if (r.status() != ProtoStatus::ok || magic != kMagic || n > kMaxRegions) return false;
  *regions = n;
  return true;
}

// One table entry; false when truncated or when the region does not lie inside the image,
// after its head (header and table, head_bytes).
bool read_entry(WireReader& r, std::size_t head_bytes, std::size_t image_bytes, ImageEntry* e) {
  const std::uint64_t id = r.u64(), off = r.u64(), len = r.u64();
  if (r.status() != ProtoStatus::ok) return false;
  if (off < head_bytes || off > image_bytes || len > image_bytes - off) return false;
  *e = ImageEntry{static_cast<std::int64_t>(id), static_cast<std::size_t>(off), static_cast<std::size_t>(len)};
  return true;
}

WireReader reader(const char* data, std::size_t n) {
  return WireReader(reinterpret_cast<const std::uint8_t*>(data), n);
}

}  // namespace

std::size_t image_size(const std::map<int, Region>& regions) {
  std::size_t total = kHeader + kEntry * regions.size();
  for (const auto& [id, r] : regions) total += r.bytes;
  return total;
}

void build_image(const std::map<int, Region>& regions, std::vector<char>* image) {
  ftmpi::proto::WireWriter head;
  head.u64(kMagic);
  head.u64(regions.size());
  std::size_t data = kHeader + kEntry * regions.size();
  for (const auto& [id, r] : regions) {
    head.u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(id)));
    head.u64(data);
    head.u64(r.bytes);
    data += r.bytes;
  }
  image->resize(data);  // keeps the capacity of the last save
  std::memcpy(image->data(), head.bytes().data(), head.bytes().size());
  data = head.bytes().size();
  for (const auto& [id, r] : regions) {
    if (r.bytes) std::memcpy(image->data() + data, r.ptr, r.bytes);
    data += r.bytes;
  }
}

std::size_t image_head_bytes(const char* header16) {
  WireReader r = reader(header16, kHeader);
  std::uint64_t n = 0;
  if (!read_header(r, &n)) return 0;
  return kHeader + kEntry * static_cast<std::size_t>(n);
}

bool image_entries(const char* head, std::size_t head_bytes, std::size_t image_bytes,
                   std::vector<ImageEntry>* out) {
  if (head_bytes < kHeader) return false;
  const std::size_t need = image_head_bytes(head);
  if (need == 0 || need > head_bytes || need > image_bytes) return false;
  WireReader r = reader(head, need);
  std::uint64_t n = 0;
  (void)read_header(r, &n);  // checked by image_head_bytes
  out->clear();
  for (std::uint64_t e = 0; e < n; ++e) {
    ImageEntry entry;
    if (!read_entry(r, need, image_bytes, &entry)) return false;
    out->push_back(entry);
  }
  return r.finish() == ProtoStatus::ok;
}

bool find_region(const std::vector<char>& image, int id, const char** data, std::size_t* bytes) {
  WireReader r = reader(image.data(), image.size());
  std::uint64_t n = 0;
  if (!read_header(r, &n) || n > (image.size() - kHeader) / kEntry) return false;
  const std::size_t head_bytes = kHeader + kEntry * static_cast<std::size_t>(n);
  for (std::uint64_t e = 0; e < n; ++e) {
    ImageEntry entry;
    if (!read_entry(r, head_bytes, image.size(), &entry)) return false;
    if (entry.id != id) continue;
    *data = image.data() + entry.offset;
    *bytes = entry.bytes;
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
