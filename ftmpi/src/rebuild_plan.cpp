// A REBUILD plan in the protocol library's codec, as hex text for the environment.
#include "rebuild_plan.h"

#include "ftmpi_proto/wire.h"
#include "match_bits.h"

namespace ftmpi {
namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr std::size_t kMaskWords = CommTable::kContextPairs / 32;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

// Fields: base, count, leader, context, coll_context, comm_mode, msg_mode, coll_mode, sequence
// (u32/i32 each), the world (u32 list), then the context mask as kMaskWords u32 words, one bit
// per context pair.
std::string RebuildPlan::encode() const {
  proto::WireWriter w;
  for (std::uint32_t v : {base, count, leader, context, coll_context}) w.u32(v);
  for (std::int32_t v : {comm_mode, msg_mode, coll_mode}) w.i32(v);
  w.u32(sequence);
  w.u32_list(world);
  for (std::size_t i = 0; i < kMaskWords; ++i) {
    std::uint32_t bits = 0;
    for (std::size_t b = 0; b < 32; ++b) {
      if (used.test(i * 32 + b)) bits |= 1u << b;
    }
    w.u32(bits);
  }
  std::string out;
  out.reserve(w.bytes().size() * 2);
  for (std::uint8_t byte : w.bytes()) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xf]);
  }
  return out;
}

bool RebuildPlan::decode(const std::string& text, RebuildPlan* out) {
  if (text.size() % 2 != 0) return false;
  std::vector<std::uint8_t> bytes(text.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const int hi = hex_value(text[2 * i]), lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    bytes[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  proto::WireReader r(bytes);
  RebuildPlan p;
  p.base = r.u32();
  p.count = r.u32();
  p.leader = r.u32();
  p.context = r.u32();
  p.coll_context = r.u32();
  p.comm_mode = r.i32();
  p.msg_mode = r.i32();
  p.coll_mode = r.i32();
  p.sequence = r.u32();
  p.world = r.u32_list();  // the reader never allocates more than the bytes left describe
  for (std::size_t i = 0; i < kMaskWords; ++i) {
    const std::uint32_t bits = r.u32();
    for (std::size_t b = 0; b < 32; ++b) {
      if (bits & (1u << b)) p.used.set(i * 32 + b);
    }
  }
  if (r.finish() != proto::ProtoStatus::ok || p.world.size() > match::kMaxProcesses) return false;
  *out = std::move(p);
  return true;
}

}  // namespace ftmpi
