// The agreement's bytes on the wire (consensus.h), in the protocol library's one codec
// (proto::WireWriter/WireReader: little-endian, bounds-checked reads). A message is a header
// (i32 type, i32 sender rank) and a body; a decision body is the Decision below. Decoders
// return false on anything the encoders did not produce, and the caller drops the message.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ftmpi {

struct Decision {
  std::vector<int> failed;                                // ascending communicator ranks
  std::vector<std::pair<int, std::vector<std::uint8_t>>> contributions;  // by rank, ascending
  // A vote met a construction in the same instance (see Consensus::Kind).
  bool mixed = false;
};

struct ConsensusHeader {
  std::int32_t type = 0;
  std::int32_t sender_rank = 0;
};

std::vector<std::uint8_t> encode_consensus_message(ConsensusHeader h, const std::vector<std::uint8_t>& body);
// false when `msg` is shorter than a header.
bool decode_consensus_message(const std::vector<std::uint8_t>& msg, ConsensusHeader* h,
                              std::vector<std::uint8_t>* body);

// failed ranks (i32 list) | u32 count | count x (i32 rank, blob). `mixed` is not sent.
std::vector<std::uint8_t> encode_decision(const Decision& d);
// false, `d` untouched, when truncated, overlong or with trailing bytes.
bool decode_decision(const std::vector<std::uint8_t>& in, Decision* d);

}  // namespace ftmpi
