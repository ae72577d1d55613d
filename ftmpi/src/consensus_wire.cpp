// The agreement's messages in the protocol library's codec (see consensus_wire.h).
#include "consensus_wire.h"

#include "ftmpi_proto/wire.h"

namespace ftmpi {

std::vector<std::uint8_t> encode_consensus_message(ConsensusHeader h, const std::vector<std::uint8_t>& body) {
  proto::WireWriter w;
  w.i32(h.type);
  w.i32(h.sender_rank);
  w.raw(body.data(), body.size());
  return std::move(w.bytes());
}

bool decode_consensus_message(const std::vector<std::uint8_t>& msg, ConsensusHeader* h,
                              std::vector<std::uint8_t>* body) {
  proto::WireReader r(msg);
  ConsensusHeader got;
  got.type = r.i32();
  got.sender_rank = r.i32();
  std::vector<std::uint8_t> rest = r.rest();
  if (r.finish() != proto::ProtoStatus::ok) return false;
  *h = got;
  *body = std::move(rest);
  return true;
}

std::vector<std::uint8_t> encode_decision(const Decision& d) {
  proto::WireWriter w;
  w.i32_list(d.failed);
  w.u32(static_cast<std::uint32_t>(d.contributions.size()));
  for (const auto& [rank, bytes] : d.contributions) {
    w.i32(rank);
    w.blob(bytes);
  }
  return std::move(w.bytes());
}

bool decode_decision(const std::vector<std::uint8_t>& in, Decision* d) {
  proto::WireReader r(in);
  std::vector<int> failed = r.i32_list();
  const std::uint32_t n = r.u32();
  std::vector<std::pair<int, std::vector<std::uint8_t>>> contributions;
  // Each entry takes at least 8 bytes, so a lying count stops at the end of the input.
  for (std::uint32_t i = 0; i < n && r.status() == proto::ProtoStatus::ok; ++i) {
    const int rank = r.i32();
    contributions.emplace_back(rank, r.blob());
  }
  if (r.finish() != proto::ProtoStatus::ok) return false;
  d->failed = std::move(failed);
  d->contributions = std::move(contributions);
  return true;
}

}  // namespace ftmpi
